// The local count of requests sent, per key, in per-minute buckets over the last hour: it estimates
// when a rate limit resets when the server does not say, and feeds `rep status`. It is a cache, not
// config: a broken file is ignored and replaced. Keys are stored only as a hash (keyId).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalFileError, readLocalFile } from '../local-file.js';

export const REQUESTS_FILE = 'requests.json';
/** The window the log counts over: the service's rate limit is per hour. */
export const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
/** Last rate-limit facts older than this are dropped from the file. */
const RATE_LIMIT_TTL_MS = 24 * HOUR_MS;
/** An hour of counts for many keys is far smaller: a larger file is read as empty. */
const MAX_STATE_BYTES = 8 * 1024 * 1024;

/** How a state file that cannot be read as one (a FIFO, a directory, too large) is reported. */
export type Warn = (text: string) => void;

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
  /** One request was sent at nowMs. */
  record(nowMs: number): void;
  /** Requests sent at or after sinceMs (to the minute: the minute holding sinceMs counts whole). */
  countSince(sinceMs: number): number;
  /** The start of the minute of the oldest request at or after sinceMs (never before sinceMs). */
  oldestSince(sinceMs: number): number | undefined;
  noteRateLimit(info: Omit<RateLimitSnapshot, 'seenAt'> & { seenAt?: number }): void;
  lastRateLimit(): RateLimitSnapshot | undefined;
  /** Writes pending changes (synchronous: safe in a process 'exit' handler; never throws). */
  flush(): void;
}

export interface RequestStatus {
  /** Requests counted in the hour before nowMs. */
  lastHour: number;
  rateLimit?: RateLimitSnapshot;
}

interface KeyState {
  /** Minute index (epoch ms / 60000) → requests sent in that minute. */
  minutes: Record<string, number>;
  rateLimit?: RateLimitSnapshot;
}

interface StateFile {
  version: 1;
  keys: Record<string, KeyState>;
}

/** A stable, non-reversible name for a key: the first 16 hex digits of its SHA-256. */
export function keyId(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 16);
}

/** Opens the log of one key in stateDir. Nothing is written until flush(); `now` dates pruning. */
export function openRequestLog(stateDir: string, id: string, now: () => number = Date.now, warn?: Warn): RequestLog {
  const path = join(stateDir, REQUESTS_FILE);
  const initial = readState(path, warn).keys[id];
  const view: KeyState = { minutes: { ...(initial?.minutes ?? {}) }, ...(initial?.rateLimit ? { rateLimit: initial.rateLimit } : {}) };
  // Only what this process added is merged at flush, so concurrent rep processes do not lose counts.
  let pending: Record<string, number> = {};
  let pendingRateLimit: RateLimitSnapshot | undefined;

  return {
    record(nowMs) {
      const minute = String(Math.floor(nowMs / MINUTE_MS));
      view.minutes[minute] = (view.minutes[minute] ?? 0) + 1;
      pending[minute] = (pending[minute] ?? 0) + 1;
    },
    countSince(sinceMs) {
      return requestsSince(view.minutes, sinceMs);
    },
    oldestSince(sinceMs) {
      const first = bucketsSince(view.minutes, sinceMs)[0];
      return first === undefined ? undefined : Math.max(first[0] * MINUTE_MS, sinceMs);
    },
    noteRateLimit(info) {
      const snapshot = cleanSnapshot({ ...info, seenAt: info.seenAt ?? now() });
      if (!snapshot) return;
      view.rateLimit = snapshot;
      pendingRateLimit = snapshot;
    },
    lastRateLimit() {
      return view.rateLimit;
    },
    flush() {
      if (Object.keys(pending).length === 0 && !pendingRateLimit) return;
      try {
        const state = readState(path, warn);
        const entry = (state.keys[id] ??= { minutes: {} });
        for (const [minute, n] of Object.entries(pending)) entry.minutes[minute] = (entry.minutes[minute] ?? 0) + n;
        if (pendingRateLimit && (!entry.rateLimit || entry.rateLimit.seenAt <= pendingRateLimit.seenAt)) entry.rateLimit = pendingRateLimit;
        writeState(stateDir, path, prune(state, now()));
        pending = {};
        pendingRateLimit = undefined;
      } catch {
        // A cache that cannot be written (read-only home, full disk) must not fail the command.
      }
    },
  };
}

/** What `rep status` shows: requests in the last hour and the last rate-limit facts, for one key. */
export function readRequestStatus(stateDir: string, id: string, nowMs: number, warn?: Warn): RequestStatus {
  const entry = readState(join(stateDir, REQUESTS_FILE), warn).keys[id];
  const status: RequestStatus = {
    lastHour: entry ? requestsSince(entry.minutes, nowMs - HOUR_MS) : 0,
  };
  if (entry?.rateLimit) status.rateLimit = entry.rateLimit;
  return status;
}

/** Buckets whose minute ends after sinceMs, oldest first, as [minute index, count]. */
function bucketsSince(minutes: Record<string, number>, sinceMs: number): [number, number][] {
  const firstMinute = Math.floor(sinceMs / MINUTE_MS);
  return Object.entries(minutes)
    .map(([minute, n]): [number, number] => [Number(minute), n])
    .filter(([minute, n]) => minute >= firstMinute && n > 0)
    .sort((a, b) => a[0] - b[0]);
}

function requestsSince(minutes: Record<string, number>, sinceMs: number): number {
  return bucketsSince(minutes, sinceMs).reduce((sum, [, n]) => sum + n, 0);
}

function readState(path: string, warn: Warn | undefined): StateFile {
  let text: string;
  try {
    text = readLocalFile(path, MAX_STATE_BYTES);
  } catch (error) {
    if (error instanceof LocalFileError) warn?.(`the state file ${path} ${error.message}; it is read as empty`);
    return emptyState();
  }
  try {
    return validState(JSON.parse(text) as unknown) ?? emptyState();
  } catch {
    return emptyState();
  }
}

function emptyState(): StateFile {
  return { version: 1, keys: {} };
}

/** Keeps only well-formed entries of a parsed file; anything else means the file is replaced. */
function validState(data: unknown): StateFile | undefined {
  if (!isRecord(data) || data.version !== 1 || !isRecord(data.keys)) return undefined;
  const state = emptyState();
  for (const [id, value] of Object.entries(data.keys)) {
    if (!/^[0-9a-f]{1,64}$/.test(id) || !isRecord(value) || !isRecord(value.minutes)) continue;
    const minutes: Record<string, number> = {};
    for (const [minute, n] of Object.entries(value.minutes)) {
      if (/^\d+$/.test(minute) && typeof n === 'number' && Number.isSafeInteger(n) && n > 0) minutes[minute] = n;
    }
    const entry: KeyState = { minutes };
    const rateLimit = isRecord(value.rateLimit) ? cleanSnapshot(value.rateLimit) : undefined;
    if (rateLimit) entry.rateLimit = rateLimit;
    state.keys[id] = entry;
  }
  return state;
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

function prune(state: StateFile, nowMs: number): StateFile {
  const firstMinute = Math.floor((nowMs - HOUR_MS) / MINUTE_MS);
  for (const [id, entry] of Object.entries(state.keys)) {
    for (const minute of Object.keys(entry.minutes)) if (Number(minute) < firstMinute) delete entry.minutes[minute];
    if (entry.rateLimit && nowMs - entry.rateLimit.seenAt > RATE_LIMIT_TTL_MS) delete entry.rateLimit;
    if (Object.keys(entry.minutes).length === 0 && !entry.rateLimit) delete state.keys[id];
  }
  return state;
}

function writeState(dir: string, path: string, state: StateFile): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600); // the umask may have narrowed it already; never widened
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
