// The PostgreSQL store: one database for a team's machines and CI runners. Answers, the request
// ledger and the history are tables (schema.ts, docs/store-schema.md), shared per base URL and key
// fingerprint; identical questions asked at once on any machine wait on one advisory lock.
// It connects on first use. A store found unreachable (refused, not resolving, no answer in time)
// is not asked again for OUTAGE_MS: a batch with the database down or cut off goes on without it
// at once, instead of waiting on a connection (up to --timeout, or the driver's growing backoff)
// for each name; after that it is tried again, so a long batch records again once it is back.
import type { Sql } from 'postgres';
import { randomHex } from '../../state/ids.js';
import { isFresh } from '../policy.js';
import type { AnswerKey, AnswerStorePort, CachedAnswer, Freshness, LedgerPort, LedgerScope, RateLimitFacts, SingleFlightPort, Store } from '../port.js';
import { StoreError } from '../errors.js';
import { storeError, type ConnectOptions } from './connect.js';
import { postgresHistory } from './history.js';
import { literal, openSession } from './session.js';
import { describeTarget, targetText, type StoreTarget } from './url.js';

export interface PostgresStoreOptions extends ConnectOptions {
  target: StoreTarget;
  /**
   * Which machine this is (a hash, not its name): the ledger says from how many machines requests came.
   * A function is asked once, at the first write (a run answered from the store writes nothing).
   */
  machine: string | (() => string);
  /** Said once when the store fails where rep carries on without it (an answer, a count). */
  warn?: (text: string) => void;
}

/** Ledger rows older than this go (the quota is counted over the last hour). */
const LEDGER_KEEP_MS = 24 * 60 * 60 * 1000;
/** How long a store found unreachable is not asked again. */
export const OUTAGE_MS = 30_000;

export function openPostgresStore(options: PostgresStoreOptions): Store {
  const { target, machine: given, warn } = options;
  let machineId: string | undefined;
  const machine = () => (machineId ??= typeof given === 'string' ? given : given());
  const run = randomHex(8);
  const session = openSession(target, options);
  /** The store found unreachable, and until when it is not asked again. */
  let outage: { error: StoreError; until: number } | undefined;
  const reachable = <T>(ask: () => Promise<T>): Promise<T> => (outage && Date.now() < outage.until ? Promise.reject(outage.error) : ask());
  const ready = () => reachable(session.ready);
  const read = <T extends object>(text: string) => reachable(() => session.read<T>(text));
  const warned = new Set<string>();
  /** What was told, by message; a lost connection once a run, whatever was being done when it went. */
  const toldAs = (found: StoreError) => (found.failure === 'dropped' ? 'dropped' : found.message);
  const failure = (error: unknown, doing: string) => {
    const found = storeError(error, target, doing);
    if (found.failure === 'unreachable' && found !== outage?.error) outage = { error: found, until: Date.now() + OUTAGE_MS };
    found.told ||= warned.has(toldAs(found));
    return found;
  };
  const carryOn = (error: unknown, doing: string) => {
    const told = failure(error, doing);
    if (!warned.has(toldAs(told))) warn?.(`${told.message}; going on without it`);
    warned.add(toldAs(told));
    told.told = warn !== undefined;
    return told;
  };
  const where = `postgres ${targetText(target)}`;

  const answers: AnswerStorePort = {
    async get(key, freshness) {
      return (await answers.getMany([key], freshness))[0];
    },
    async getMany(keys, freshness) {
      // A NUL cannot be in a statement, nor in a kept answer's key: such a key misses without asking.
      const asked = keys.flatMap((key, i) => (Object.values(key).some((value) => value.includes('\u0000')) ? [] : [{ key, i }]));
      const found: Array<CachedAnswer | undefined> = keys.map(() => undefined);
      if (asked.length === 0) return found;
      try {
        const values = asked.map(({ key, i }) => `(${i}, ${[key.baseUrl, key.endpoint, key.keyFingerprint, key.query].map(literal).join(', ')})`);
        const rows = await read<AnswerRow & { i: number }>(
          `select q.i, a.status, a.body, a.content_type, a.stored_at, a.fresh_until
           from (values ${values.join(', ')}) as q(i, base_url, endpoint, key_fingerprint, query)
           join rep_answers a using (base_url, endpoint, key_fingerprint, query)`,
        );
        for (const row of rows) found[row.i] = cachedAnswer(row, freshness);
        return found;
      } catch (error) {
        carryOn(error, keys.length === 1 ? 'read an answer' : 'read the answers');
        return found;
      }
    },
    async put(key, answer) {
      try {
        const db = await ready();
        await db`
          insert into rep_answers (base_url, endpoint, key_fingerprint, query, status, body, content_type, stored_at, fresh_until, machine)
          values (${key.baseUrl}, ${key.endpoint}, ${key.keyFingerprint}, ${key.query}, ${answer.status}, ${answer.bodyText}, ${answer.contentType ?? null},
            ${new Date(answer.storedAt)}, ${answer.freshUntil === undefined ? null : new Date(answer.freshUntil)}, ${machine()})
          on conflict (base_url, endpoint, key_fingerprint, query) do update set status = excluded.status, body = excluded.body,
            content_type = excluded.content_type, stored_at = excluded.stored_at, fresh_until = excluded.fresh_until, machine = excluded.machine`;
        return { stored: true };
      } catch (error) {
        return { stored: false, error: carryOn(error, 'keep an answer') };
      }
    },
    async forget(key) {
      try {
        const db = await ready();
        await db`delete from rep_answers where ${answerWhere(db, key)}`;
      } catch (error) {
        carryOn(error, 'forget an answer');
      }
    },
    async stats() {
      try {
        const db = await ready();
        const [row] = await db<Array<{ entries: number; bytes: number }>>`
          select count(*)::int as entries, coalesce(sum(octet_length(body)), 0)::float8 as bytes from rep_answers`;
        return { where, entries: row?.entries ?? 0, bytes: row?.bytes ?? 0 };
      } catch (error) {
        throw failure(error, 'count the answers');
      }
    },
    async clear() {
      try {
        const db = await ready();
        return (await db`delete from rep_answers`).count;
      } catch (error) {
        throw failure(error, 'clear the answers');
      }
    },
  };

  const pending = new Set<Promise<void>>();
  let ledgerFailure: Error | undefined;
  let pruned = false;
  const track = (work: () => Promise<void>, doing: string) => {
    const promise = work()
      .catch((error: unknown) => {
        ledgerFailure ??= carryOn(error, doing);
      })
      .finally(() => pending.delete(promise));
    pending.add(promise);
    return promise;
  };
  const settled = async () => {
    while (pending.size > 0) await Promise.all(pending);
  };
  const ledger: LedgerPort = {
    record: (scope, at) =>
      track(async () => {
        const db = await ready();
        await db`insert into rep_requests (key_fingerprint, base_url, sent_at, machine, run) values (${scope.keyFingerprint}, ${scope.baseUrl}, ${new Date(at)}, ${machine()}, ${run})`;
        if (pruned) return;
        pruned = true;
        await db`delete from rep_requests where sent_at < ${new Date(at - LEDGER_KEEP_MS)}`;
      }, 'count a request'),
    noteRateLimit: (scope, facts) =>
      track(async () => {
        const db = await ready();
        await db`
          insert into rep_rate_limits (key_fingerprint, base_url, rate_limit, remaining, reset_at, window_seconds, seen_at)
          values (${scope.keyFingerprint}, ${scope.baseUrl}, ${facts.limit ?? null}, ${facts.remaining ?? null},
            ${facts.resetAt === undefined ? null : new Date(facts.resetAt)}, ${facts.windowSeconds ?? null}, ${new Date(facts.seenAt)})
          on conflict (key_fingerprint, base_url) do update set rate_limit = excluded.rate_limit, remaining = excluded.remaining,
            reset_at = excluded.reset_at, window_seconds = excluded.window_seconds, seen_at = excluded.seen_at
          where rep_rate_limits.seen_at <= excluded.seen_at`;
      }, 'note the rate limit'),
    async count(scope, since, now) {
      await settled();
      try {
        const db = await ready();
        const [row] = await db<Array<{ requests: number; oldest: Date | null; machines: number }>>`
          select count(*)::int as requests, min(sent_at) as oldest, count(distinct machine)::int as machines from rep_requests
          where ${scopeWhere(db, scope)} and sent_at >= ${new Date(since)} and sent_at <= ${new Date(now)}`;
        if (!row || row.requests === 0) return { requests: 0 };
        const oldestAt = Math.max(since, Math.floor(row.oldest!.getTime() / 60_000) * 60_000);
        return { requests: row.requests, oldestAt, contributors: row.machines };
      } catch (error) {
        throw failure(error, 'count the requests');
      }
    },
    async lastRateLimit(scope) {
      await settled();
      try {
        const db = await ready();
        const [row] = await db<
          Array<{ rate_limit: number | null; remaining: number | null; reset_at: Date | null; window_seconds: number | null; seen_at: Date }>
        >`
          select rate_limit, remaining, reset_at, window_seconds, seen_at from rep_rate_limits
          where ${scopeWhere(db, scope)} and seen_at > now() - interval '1 day'`;
        return row ? factsOf(row) : undefined;
      } catch (error) {
        throw failure(error, 'read the rate limit');
      }
    },
    async settle() {
      await settled();
      return ledgerFailure;
    },
  };

  // The lock is a transaction's: it holds one connection while the work runs and goes with it, even if the process dies.
  const singleFlight: SingleFlightPort = {
    async run(key, work, signal) {
      signal?.throwIfAborted();
      let db: Sql;
      try {
        db = await ready();
      } catch (error) {
        carryOn(error, 'share a question');
        return work();
      }
      const lockKey = `rep:${key}`;
      let working: ReturnType<typeof work> | undefined;
      let result: { value: Awaited<ReturnType<typeof work>> } | undefined;
      try {
        await db.begin(async (tx) => {
          const [row] = await tx<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
          // Cancelled from another connection, the wait ends with the signal.
          const abort = () => void db`select pg_cancel_backend(${row!.pid})`.catch(() => undefined);
          signal?.addEventListener('abort', abort, { once: true });
          try {
            signal?.throwIfAborted();
            await tx`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
          } finally {
            signal?.removeEventListener('abort', abort);
          }
          working = work();
          result = { value: await working };
        });
      } catch (error) {
        if (result) return result.value; // the work was done; only the commit failed, which releases the lock anyway
        // The work under way: its own answer or failure, not the lost connection's (which released the lock).
        if (working) return working;
        if (signal?.aborted) throw signal.reason;
        carryOn(error, 'share a question');
        return work();
      }
      return result!.value;
    },
  };

  return {
    answers,
    ledger,
    history: postgresHistory({ sql: ready, failure, machine, where }),
    singleFlight,
    describe: () => ({ kind: 'postgres', details: describeTarget(target) }),
    async close() {
      await settled();
      await session.end();
    },
  };
}

interface AnswerRow {
  status: number;
  body: string;
  content_type: string | null;
  stored_at: Date;
  fresh_until: Date | null;
}

/** A row as an answer from the cache, if it is fresh. */
function cachedAnswer(row: AnswerRow, freshness: Freshness): CachedAnswer | undefined {
  const storedAt = row.stored_at.getTime();
  const entry = { storedAt, ...(row.fresh_until ? { freshUntil: row.fresh_until.getTime() } : {}) };
  if (!isFresh(entry, freshness)) return undefined;
  return {
    bodyText: row.body,
    status: row.status,
    headers: (row.content_type === null ? {} : { 'content-type': row.content_type }) as Record<string, string>,
    storedAt,
    ageMs: Math.max(0, freshness.now - storedAt),
  };
}

function answerWhere(db: Sql, key: AnswerKey) {
  return db`base_url = ${key.baseUrl} and endpoint = ${key.endpoint} and key_fingerprint = ${key.keyFingerprint} and query = ${key.query}`;
}

function scopeWhere(db: Sql, scope: LedgerScope) {
  return db`key_fingerprint = ${scope.keyFingerprint} and base_url = ${scope.baseUrl}`;
}

function factsOf(row: {
  rate_limit: number | null;
  remaining: number | null;
  reset_at: Date | null;
  window_seconds: number | null;
  seen_at: Date;
}): RateLimitFacts {
  return {
    ...(row.rate_limit === null ? {} : { limit: row.rate_limit }),
    ...(row.remaining === null ? {} : { remaining: row.remaining }),
    ...(row.reset_at === null ? {} : { resetAt: row.reset_at.getTime() }),
    ...(row.window_seconds === null ? {} : { windowSeconds: row.window_seconds }),
    seenAt: row.seen_at.getTime(),
  };
}

export { StoreError };
