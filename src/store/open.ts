// Which store a run uses, in one place: `--store URL` > REP_STORE > the config file's `store` > local
// files. A URL opens the PostgreSQL store, whose code and driver load only then.
import { createHash } from 'node:crypto';
import { homedir, hostname } from 'node:os';
import { UsageError } from '../api/errors.js';
import { StoreError } from './errors.js';
import type { Store } from './port.js';

export type StoreSource = 'flag' | 'env' | 'config';

export interface StoreChoice {
  url: string;
  source: StoreSource;
}

/**
 * The store URL a run uses, if any. A password in `--store` is refused: the command line is what `ps`
 * and shell history show, so it comes from REP_STORE, the config file, PGPASSWORD or ~/.pgpass.
 */
export function chooseStoreUrl({ flag, env, config }: { flag?: string; env: NodeJS.ProcessEnv; config?: string }): StoreChoice | undefined {
  const candidates: Array<[StoreSource, string | undefined]> = [
    ['flag', flag],
    ['env', env.REP_STORE],
    ['config', config],
  ];
  for (const [source, value] of candidates) {
    const url = value?.trim();
    if (!url) continue;
    if (!/^postgres(ql)?:\/\//i.test(url))
      throw new UsageError(`${SOURCE_NAMES[source]} must be a postgres:// or postgresql:// URL`, { hint: 'leave it unset to keep the local store' });
    if (source === 'flag' && passwordIn(url))
      throw new UsageError('--store must not carry a password: the command line is visible to other processes', {
        hint: 'put the URL in REP_STORE, or the password in PGPASSWORD or ~/.pgpass',
      });
    return { url, source };
  }
  return undefined;
}

const SOURCE_NAMES: Record<StoreSource, string> = { flag: '--store', env: 'REP_STORE', config: "the config file's store" };

function passwordIn(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

export interface OpenStoreOptions {
  /** For PG* variables and PGPASSWORD (default: none, as the library reads no environment unless given one). */
  env?: NodeJS.ProcessEnv;
  /** Where ~/.pgpass is (default: the user's home). */
  home?: string;
  /** This machine's id in the ledger (default: a hash of the host name and home). */
  machine?: string;
  /** Seconds to wait for a connection. */
  timeout?: number;
  /** Told once when the store fails where rep carries on without it. */
  warn?: (text: string) => void;
}

/** A store on a PostgreSQL database: `openStore('postgres://rep@db.internal/rep')`, for `createClient({ store })`. */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const env = options.env ?? {};
  const { parseStoreUrl } = await import('./postgres/url.js');
  let target: ReturnType<typeof parseStoreUrl>;
  try {
    target = parseStoreUrl(url, env, options.home ?? homedir());
  } catch (error) {
    throw new StoreError((error as Error).message, 'other');
  }
  const { openPostgresStore } = await import('./postgres/index.js');
  return openPostgresStore({
    target,
    machine: options.machine ?? machineId(options.home ?? homedir()),
    ...(options.timeout === undefined ? {} : { connectTimeout: options.timeout }),
    ...(options.warn ? { warn: options.warn } : {}),
  });
}

/** A machine as the ledger counts it: a host and a home (two users, or two CI jobs' homes, are two). */
export function machineId(home: string): string {
  return createHash('sha256').update(`${hostname()}\n${home}`).digest('hex').slice(0, 16);
}
