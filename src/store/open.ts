// Which store a run uses, in one place: `--store URL` > REP_STORE > the config file's `store` > local
// files. A URL opens the PostgreSQL store; its driver (a leaf of dist/lib/) loads on first use.
import { createHash } from 'node:crypto';
import { homedir, hostname } from 'node:os';
import { UsageError } from '../api/errors.js';
import type { Store } from './port.js';
import { openPostgresStore } from './postgres/index.js';
import { parseStoreUrl, type StoreTarget } from './postgres/url.js';

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

/**
 * A store on a PostgreSQL database, for `createClient({ store })`: `openStore('postgres://rep@db.internal/rep')`.
 * Nothing connects until the store is first used; the driver loads then. A malformed URL throws UsageError.
 */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  const home = options.home ?? homedir();
  let target: StoreTarget;
  try {
    target = parseStoreUrl(url, options.env ?? {}, home);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return openPostgresStore({
    target,
    machine: options.machine ?? machineId(home),
    ...(options.timeout === undefined ? {} : { connectTimeout: options.timeout }),
    ...(options.warn ? { warn: options.warn } : {}),
  });
}

/** A machine as the ledger counts it: a host and a home (two users, or two CI jobs' homes, are two). */
export function machineId(home: string): string {
  return createHash('sha256').update(`${hostname()}\n${home}`).digest('hex').slice(0, 16);
}
