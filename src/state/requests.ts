// The local count of requests sent, per key, in per-minute buckets over the last hour: it estimates
// when a rate limit resets when the server does not say, and feeds `rep status`. Each run keeps what it
// sent as one live record of a record store (record-store.ts), appended as each request goes out, so
// parallel rep processes lose no count, and neither does a run that is killed.
// It is a cache, not config: a broken record is skipped. Keys are stored only as a hash (keyId).
import { join } from 'node:path';
// The window the log counts over is the service's rate-limit window.
import { HOUR_MS } from '../time.js';
import { isRecord } from '../text.js';
import { openRecordStore, type RecordStore } from './record-store.js';
import { randomHex, sha256Hex } from './ids.js';

/** The directory of the request records, in the state dir. */
export const REQUESTS_DIR = 'requests';
/** Merge the record files once this many are there: a run reads them all at start. */
export const MERGE_AT = 16;
const MINUTE_MS = 60 * 1000;
/** Last rate-limit facts older than this are dropped. */
const RATE_LIMIT_TTL_MS = 24 * HOUR_MS;

/** The last rate-limit facts a server sent for a key. */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  windowSeconds?: number;
  /** When the response carrying them arrived (epoch ms). */
  seenAt: number;
}

export interface RequestLog {
  /** One request reached the server at nowMs. */
  record(nowMs: number): void;
  /** The start of the minute of the oldest request at or after sinceMs (never before sinceMs). */
  oldestSince(sinceMs: number): number | undefined;
  /** Requests (every run's) since sinceMs, the oldest one's minute, and how many runs sent them. */
  countSince(sinceMs: number): { requests: number; oldestAt?: number; contributors: number };
  noteRateLimit(info: Omit<RateLimitSnapshot, 'seenAt'> & { seenAt?: number }): void;
  lastRateLimit(): RateLimitSnapshot | undefined;
  /** Ends the run's record (each request is saved as it is sent); why a save failed, if one did. Never throws. */
  flush(): Error | undefined;
}

export interface RequestStatus {
  /** Requests counted in the hour before nowMs. */
  lastHour: number;
  rateLimit?: RateLimitSnapshot;
}

/** What one run added for one key: its requests per minute and the last rate-limit facts it saw. */
interface CountRecord {
  id: string;
  key: string;
  /** The base URL the run sent to (baseUrlKey); a record without one (older rep) counts for every base URL. */
  base?: string;
  /** Minute index (epoch ms / 60000) → requests sent in that minute. */
  minutes?: Record<string, number>;
  rateLimit?: RateLimitSnapshot;
}

interface KeyState {
  minutes: Record<string, number>;
  /** Minute index → the runs that sent requests in it. */
  runs: Record<string, Set<string>>;
  rateLimit?: RateLimitSnapshot;
}

/** A stable, non-reversible name for a key: the first 16 hex digits of its SHA-256. */
export function keyId(key: string): string {
  if (lastKeyId?.key !== key) lastKeyId = { key, id: sha256Hex(key).slice(0, 16) };
  return lastKeyId.id;
}
/** The last key named: a run has one, and a batch asks for its name once an answer. */
let lastKeyId: { key: string; id: string } | undefined;

/** Opens the log of one key (at one base URL, when given) in stateDir; `now` dates pruning. */
export function openRequestLog(stateDir: string, id: string, now: () => number = Date.now, base?: string): RequestLog {
  const store = countStore(stateDir, now);
  // Only what this process added is written, under its own record id, so concurrent rep processes do not count twice.
  const runId = randomHex(8);
  const pending: Record<string, number> = {};
  let pendingRateLimit: RateLimitSnapshot | undefined;
  const scope = base === undefined ? {} : { base };
  const live = store.live(() => ({
    id: runId,
    key: id,
    ...scope,
    minutes: recentMinutes(pending, now()),
    ...(pendingRateLimit ? { rateLimit: pendingRateLimit } : {}),
  }));
  let failure: Error | undefined;
  /** Saves what changed: one minute's count so far, or the rate-limit facts. */
  const save = (change: Pick<CountRecord, 'minutes' | 'rateLimit'>) => {
    if (failure) return; // said once, at the end
    try {
      live.put({ id: runId, key: id, ...scope, ...change });
    } catch (error) {
      // A cache that cannot be written (read-only home, full disk) must not fail the command.
      failure = error instanceof Error ? error : new Error(String(error));
    }
  };
  // The files are read when a question needs them (a rate limit's reset, the hour's oldest request),
  // not to count a request: a run that only sends and answers reads no record file. What this process
  // added is counted on top of them.
  let known: KeyState | undefined;
  const view = (): KeyState => {
    if (known) return known;
    let initial: KeyState | undefined;
    try {
      initial = keyState(
        store.read().filter((record) => record.id !== runId),
        id,
        base,
      );
    } catch {
      // Unreadable: counted from zero; flush says why when it cannot write either.
    }
    const minutes = { ...(initial?.minutes ?? {}) };
    const runs = initial?.runs ?? {};
    for (const [minute, count] of Object.entries(pending)) {
      minutes[minute] = (minutes[minute] ?? 0) + count;
      (runs[minute] ??= new Set()).add(runId);
    }
    const rateLimit = pendingRateLimit ?? initial?.rateLimit;
    return (known = { minutes, runs, ...(rateLimit ? { rateLimit } : {}) });
  };

  return {
    record(nowMs) {
      const minute = String(Math.floor(nowMs / MINUTE_MS));
      pending[minute] = (pending[minute] ?? 0) + 1;
      if (known) {
        known.minutes[minute] = (known.minutes[minute] ?? 0) + 1;
        (known.runs[minute] ??= new Set()).add(runId);
      }
      save({ minutes: { [minute]: pending[minute] } });
    },
    oldestSince(sinceMs) {
      const first = bucketsSince(view().minutes, sinceMs)[0];
      return first === undefined ? undefined : Math.max(first[0] * MINUTE_MS, sinceMs);
    },
    countSince(sinceMs) {
      return countOf(view(), sinceMs);
    },
    noteRateLimit(info) {
      const snapshot = cleanSnapshot({ ...info, seenAt: info.seenAt ?? now() });
      if (!snapshot) return;
      pendingRateLimit = snapshot;
      if (known) known.rateLimit = snapshot;
      save({ rateLimit: snapshot });
    },
    lastRateLimit() {
      return view().rateLimit;
    },
    flush() {
      try {
        live.done();
      } catch (error) {
        // Left live: a merge takes it once it is stale.
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
      return failure;
    },
  };
}

/** What `rep status` shows: requests in the last hour and the last rate-limit facts, for one key. Throws when unreadable. */
export function readRequestStatus(stateDir: string, id: string, nowMs: number, base?: string): RequestStatus {
  const entry = keyState(countStore(stateDir, () => nowMs).read(), id, base);
  const status: RequestStatus = { lastHour: requestsSince(entry.minutes, nowMs - HOUR_MS) };
  if (entry.rateLimit) status.rateLimit = entry.rateLimit;
  return status;
}

/** Requests of one key (at one base URL, when given) since sinceMs, as LedgerPort.count gives them. Throws when unreadable. */
export function readRequestCount(stateDir: string, id: string, nowMs: number, base: string | undefined, sinceMs: number) {
  return countOf(keyState(countStore(stateDir, () => nowMs).read(), id, base), sinceMs);
}

/** The directory of the request records, for messages. */
export function requestsDir(stateDir: string): string {
  return join(stateDir, REQUESTS_DIR);
}

function countStore(stateDir: string, now: () => number): RecordStore<CountRecord> {
  return openRecordStore(requestsDir(stateDir), { parse: countRecord, prune: (records) => prune(records, now()), mergeAt: MERGE_AT, combine: latestOf });
}

/** A run's record as saved at two moments (its counts only grow): each minute's larger count, the later rate-limit facts. */
function latestOf(a: CountRecord, b: CountRecord): CountRecord {
  const minutes = { ...a.minutes };
  for (const [minute, n] of Object.entries(b.minutes ?? {})) minutes[minute] = Math.max(minutes[minute] ?? 0, n);
  const rateLimit = !a.rateLimit || (b.rateLimit && b.rateLimit.seenAt >= a.rateLimit.seenAt) ? b.rateLimit : a.rateLimit;
  return countRecordOf(a.id, a.key, minutes, rateLimit, a.base) ?? a;
}

/** One key's requests per minute, summed over every run, and the latest rate-limit facts. */
function keyState(records: CountRecord[], id: string, base?: string): KeyState {
  const state: KeyState = { minutes: {}, runs: {} };
  for (const record of records) {
    if (record.key !== id || (base !== undefined && record.base !== undefined && record.base !== base)) continue;
    for (const [minute, n] of Object.entries(record.minutes ?? {})) {
      state.minutes[minute] = (state.minutes[minute] ?? 0) + n;
      (state.runs[minute] ??= new Set()).add(record.id);
    }
    if (record.rateLimit && (!state.rateLimit || state.rateLimit.seenAt <= record.rateLimit.seenAt)) state.rateLimit = record.rateLimit;
  }
  return state;
}

/** Buckets whose minute ends after sinceMs, oldest first, as [minute index, count]. */
function bucketsSince(minutes: Record<string, number>, sinceMs: number): [number, number][] {
  const firstMinute = Math.floor(sinceMs / MINUTE_MS);
  return Object.entries(minutes)
    .map(([minute, n]): [number, number] => [Number(minute), n])
    .filter(([minute, n]) => minute >= firstMinute && n > 0)
    .sort((a, b) => a[0] - b[0]);
}

/** Requests since sinceMs, the oldest one's minute start (never before sinceMs), and how many runs sent them. */
function countOf(state: KeyState, sinceMs: number): { requests: number; oldestAt?: number; contributors: number } {
  const buckets = bucketsSince(state.minutes, sinceMs);
  const runs = new Set(buckets.flatMap(([minute]) => [...(state.runs[String(minute)] ?? [])]));
  const first = buckets[0];
  return {
    requests: buckets.reduce((sum, [, n]) => sum + n, 0),
    ...(first === undefined ? {} : { oldestAt: Math.max(first[0] * MINUTE_MS, sinceMs) }),
    contributors: runs.size,
  };
}

function requestsSince(minutes: Record<string, number>, sinceMs: number): number {
  return bucketsSince(minutes, sinceMs).reduce((sum, [, n]) => sum + n, 0);
}

/** A well-formed record, or undefined: anything else is skipped. */
function countRecord(data: unknown): CountRecord | undefined {
  if (!isRecord(data) || typeof data.id !== 'string' || !/^[0-9a-f]{1,64}$/.test(data.id) || typeof data.key !== 'string' || !/^[0-9a-f]{1,64}$/.test(data.key))
    return undefined;
  const record: CountRecord = { id: data.id, key: data.key };
  if (typeof data.base === 'string' && data.base.length <= 2048) record.base = data.base;
  if (isRecord(data.minutes)) {
    const minutes: Record<string, number> = {};
    for (const [minute, n] of Object.entries(data.minutes)) {
      if (/^\d+$/.test(minute) && typeof n === 'number' && Number.isSafeInteger(n) && n > 0) minutes[minute] = n;
    }
    record.minutes = minutes;
  }
  const rateLimit = isRecord(data.rateLimit) ? cleanSnapshot(data.rateLimit) : undefined;
  if (rateLimit) record.rateLimit = rateLimit;
  return record;
}

function cleanSnapshot(data: Record<string, unknown>): RateLimitSnapshot | undefined {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  const seenAt = number(data.seenAt);
  if (seenAt === undefined) return undefined;
  const snapshot: RateLimitSnapshot = { seenAt };
  for (const field of ['limit', 'remaining', 'resetAt', 'windowSeconds'] as const) {
    const value = number(data[field]);
    if (value !== undefined) snapshot[field] = value;
  }
  return snapshot;
}

/** What a merge keeps: minutes of the last hour, and per key only the latest rate-limit facts of the last day. */
function prune(records: CountRecord[], nowMs: number): CountRecord[] {
  const latest = new Map<string, CountRecord>();
  for (const record of records) {
    const seenAt = record.rateLimit?.seenAt;
    if (seenAt === undefined || nowMs - seenAt > RATE_LIMIT_TTL_MS) continue;
    const best = latest.get(scopeOf(record))?.rateLimit?.seenAt;
    if (best === undefined || best <= seenAt) latest.set(scopeOf(record), record);
  }
  return records.flatMap((record) => {
    const kept = countRecordOf(
      record.id,
      record.key,
      recentMinutes(record.minutes ?? {}, nowMs),
      latest.get(scopeOf(record)) === record ? record.rateLimit : undefined,
      record.base,
    );
    return kept ? [kept] : [];
  });
}

function scopeOf(record: CountRecord): string {
  return `${record.key}\n${record.base ?? ''}`;
}

/** A record of what is given, or undefined when that is nothing. */
function countRecordOf(
  id: string,
  key: string,
  minutes: Record<string, number>,
  rateLimit: RateLimitSnapshot | undefined,
  base?: string,
): CountRecord | undefined {
  const record: CountRecord = { id, key, ...(base === undefined ? {} : { base }) };
  if (Object.keys(minutes).length > 0) record.minutes = minutes;
  if (rateLimit) record.rateLimit = rateLimit;
  return record.minutes || record.rateLimit ? record : undefined;
}

/** The buckets of the hour before nowMs. */
function recentMinutes(minutes: Record<string, number>, nowMs: number): Record<string, number> {
  const firstMinute = Math.floor((nowMs - HOUR_MS) / MINUTE_MS);
  return Object.fromEntries(Object.entries(minutes).filter(([minute]) => Number(minute) >= firstMinute));
}
