// The driver (Postgres.js, its own leaf of dist/lib/, loaded only when a store URL is set), its
// connection options from a store target, and its errors in rep's words, without a password.
import type { Socket } from 'node:net';
import type { Options, Sql } from 'postgres';
import { StoreError } from '../errors.js';
import { openSocket, type EarlyConnection } from './early.js';
import { socketPath, targetText, type StoreTarget } from './url.js';

export interface ConnectOptions {
  /** Seconds to wait for a connection (rep's --timeout). */
  connectTimeout?: number;
  /** Connections at most (a batch asks in parallel; single-flight holds one per waiting question). */
  max?: number;
  /** A connection the CLI began before the driver loaded (early.ts): the first one the driver makes. */
  early?: EarlyConnection;
}

/** A pool, and its sockets while open: ending it, rep lets them go without waiting for the server to close them. */
export interface Pool {
  sql: Sql;
  sockets: ReadonlySet<Socket>;
}

export async function connect(target: StoreTarget, { connectTimeout = 10, max = 10, early }: ConnectOptions = {}): Promise<Pool> {
  const { default: postgres } = await import('postgres');
  const path = socketPath(target);
  const sockets = new Set<Socket>();
  // The driver's connect done here, so each socket is known (Postgres.js upgrades it to TLS as sslmode
  // says; its host names the server for SNI). A documented option that Postgres.js's types lack.
  const ownSockets = {
    socket: () => {
      const opened = Object.assign(early?.take() ?? openSocket(target), { host: target.host });
      sockets.add(opened);
      opened.once('close', () => sockets.delete(opened));
      return opened;
    },
  };
  const options: Options<Record<string, never>> = {
    ...(path ? { path } : { host: target.host, port: target.port }),
    ...ownSockets,
    database: target.database,
    username: target.user,
    ...(target.password === undefined ? {} : { password: target.password }),
    ssl: path ? false : sslOption(target),
    max,
    idle_timeout: 5,
    // No lifetime: its timer, set at each connection, would hold the process until the server closed the socket.
    max_lifetime: 0,
    connect_timeout: Math.max(1, Math.ceil(connectTimeout)),
    connection: target.settings,
    // CREATE … IF NOT EXISTS tells of tables that exist: nothing for a user to read.
    onnotice: () => {},
    // Prepared statements are per connection: a pooler in transaction mode (PgBouncer) would refuse them.
    prepare: false,
    types: {},
    // Postgres.js reads PG* variables and ~/.pgpass on its own otherwise; the target holds what rep read.
    fetch_types: false,
  };
  return { sql: postgres(options), sockets };
}

/** TLS as libpq's sslmode says; Node's CA store is used, so NODE_EXTRA_CA_CERTS is honoured. */
function sslOption(target: StoreTarget): Options<Record<string, never>>['ssl'] {
  switch (target.sslmode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
      return 'prefer';
    case 'require':
      return 'require';
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, servername: target.host };
  }
}

const CONNECTION_LOST = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03']);

/** Whether the connection went away under a statement (the database restarted, a backend was ended). */
export function connectionLost(error: unknown): boolean {
  return CONNECTION_LOST.has(String((error as { code?: unknown })?.code));
}

/** A driver's error as a StoreError: one line naming the store (user@host/database) and what went wrong. */
export function storeError(error: unknown, target: StoreTarget, doing: string): StoreError {
  if (error instanceof StoreError) return error;
  const where = targetText(target);
  const code = String((error as { code?: unknown })?.code ?? '');
  const serverText = (error as { message?: unknown })?.message;
  const detail = typeof serverText === 'string' ? serverText.split('\n')[0]!.replaceAll(target.password ?? '\u0000', '***') : '';
  const options = { cause: error };
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOENT':
      return new StoreError(`cannot reach the store at ${where}: connection refused (is PostgreSQL running?)`, 'unreachable', options);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StoreError(`cannot reach the store at ${where}: the host name does not resolve`, 'unreachable', options);
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return new StoreError(`cannot reach the store at ${where}: no answer in time`, 'unreachable', options);
    case '28P01':
      return new StoreError(`the store at ${where} refused the password for user ${target.user}`, 'password', {
        ...options,
        hint: 'check the password in REP_STORE, PGPASSWORD or ~/.pgpass',
      });
    case '28000':
    case '3D000':
    case '53300':
      return new StoreError(`the store at ${where} refused the connection: ${detail}`, 'refused', options);
    case '42501':
    case '25006':
      return new StoreError(`the store at ${where} does not let ${target.user} ${doing}: ${detail}`, 'permission', {
        ...options,
        hint: 'grant the role what README "Teams and CI" lists, or use a store it may write to',
      });
    case '57014':
      return new StoreError(`the store at ${where} took too long to ${doing} (statement timeout)`, 'timeout', options);
  }
  if (connectionLost(error)) return new StoreError(`the connection to the store at ${where} was lost while trying to ${doing}`, 'dropped', options);
  return new StoreError(`the store at ${where} failed to ${doing}${detail ? `: ${detail}` : ''}`, 'other', options);
}
