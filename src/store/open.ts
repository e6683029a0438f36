// A store URL opened: the PostgreSQL store, whose code (and driver, a leaf of dist/lib/) loads on first
// use, so that a run that never touches the store pays nothing for it. Which URL a run uses is choose.ts's.
import { UsageError } from '../api/errors.js';
import { sha256Hex } from '../state/ids.js';
import type { AnswerStorePort, HistoryPort, LedgerPort, Store } from './port.js';
import type { PostgresStoreOptions } from './postgres/index.js';
import { connectEarly } from './postgres/early.js';
import { describeTarget, parseStoreUrl, type StoreTarget } from './postgres/url.js';

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
  /**
   * Begin connecting now rather than on first use, for a caller that uses the store at once (the CLI):
   * the server starts the connection while the driver loads (postgres/early.ts).
   */
  connectNow?: boolean;
}

/**
 * A store on a PostgreSQL database, for `createClient({ store })`: `openStore('postgres://rep@db.internal/rep')`.
 * Nothing connects until the store is first used (unless `connectNow`); the driver loads then. A malformed URL throws UsageError.
 */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  // node:os only where no home is given (it costs a run ~0.15 ms on Node 20).
  const home = options.home ?? process.getBuiltinModule('node:os').homedir();
  let target: StoreTarget;
  try {
    target = parseStoreUrl(url, options.env ?? {}, home);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return lazyPostgresStore({
    target,
    machine: options.machine ?? (() => machineId(home)),
    ...(options.timeout === undefined ? {} : { connectTimeout: options.timeout }),
    ...(options.warn ? { warn: options.warn } : {}),
    ...(options.connectNow ? { early: connectEarly(target) } : {}),
  });
}

/** A machine as the ledger counts it: a host and a home (two users, or two CI jobs' homes, are two). */
export function machineId(home: string): string {
  return sha256Hex(`${process.getBuiltinModule('node:os').hostname()}\n${home}`).slice(0, 16);
}

/** The PostgreSQL store, its module imported by the first method called; closing an unused one loads nothing. */
function lazyPostgresStore(options: PostgresStoreOptions): Store {
  let opened: Promise<Store> | undefined;
  const store = () => (opened ??= import('./postgres/index.js').then(({ openPostgresStore }) => openPostgresStore(options)));
  const ledger: LedgerPort = later<Omit<LedgerPort, 'recordInTurn'>>(async () => (await store()).ledger, LEDGER_METHODS);
  return {
    answers: later(async () => (await store()).answers, ANSWER_METHODS),
    // Nothing recorded yet, nothing to settle.
    ledger: { ...ledger, settle: async () => (opened ? ledger.settle() : undefined) },
    history: later(async () => (await store()).history, HISTORY_METHODS),
    singleFlight: { run: async (key, work, signal) => (await store()).singleFlight!.run(key, work, signal) },
    describe: () => ({ kind: 'postgres', details: describeTarget(options.target) }),
    close: async () => {
      try {
        if (opened) await (await opened).close();
      } finally {
        options.early?.discard(); // begun, never used (or the store failed to open)
      }
    },
  };
}

// Every method of each port, listed so that the compiler says when one is added.
const ANSWER_METHODS: Record<keyof AnswerStorePort, true> = { get: true, getMany: true, put: true, forget: true, stats: true, clear: true };
// (recordInTurn is the local store's: the team store counts in the background, with record.)
const LEDGER_METHODS: Record<Exclude<keyof LedgerPort, 'recordInTurn'>, true> = {
  record: true,
  noteRateLimit: true,
  count: true,
  lastRateLimit: true,
  settle: true,
};
const HISTORY_METHODS: Record<keyof HistoryPort, true> = { append: true, previous: true, range: true, names: true, prune: true, stats: true };

/** A port whose every method waits for the real one (all of a port's methods are async). */
function later<T extends object>(port: () => Promise<T>, methods: Record<keyof T, true>): T {
  const entries = Object.keys(methods).map((name) => [
    name,
    async (...args: unknown[]) => {
      const real = await port();
      return (real[name as keyof T] as (...given: unknown[]) => unknown).apply(real, args);
    },
  ]);
  return Object.fromEntries(entries) as T;
}
