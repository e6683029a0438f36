// A store URL opened: the PostgreSQL store, whose driver (a leaf of dist/lib/) loads on first use.
// Which URL a run uses is choose.ts's.
import { homedir, hostname } from 'node:os';
import { UsageError } from '../api/errors.js';
import { sha256Hex } from '../state/ids.js';
import type { Store } from './port.js';
import { openPostgresStore } from './postgres/index.js';
import { parseStoreUrl, type StoreTarget } from './postgres/url.js';

export interface OpenStoreOptions {
  /** For PG* variables and PGPASSWORD (default: none, as the library reads no environment unless given one). */
  env?: Record<string, string | undefined>;
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
  return sha256Hex(`${hostname()}\n${home}`).slice(0, 16);
}
