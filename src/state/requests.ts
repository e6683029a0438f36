// The local count of requests sent, per key, over the last hour: it estimates when a rate limit resets
// when the server does not say, and feeds `rep status`. One append log (append-log.ts) per key hash and
// base URL, in the requests folder: each request is one line with its id, written as it is sent, so
// parallel rep processes lose no count, and neither does a run that is killed; the last rate-limit
// facts are lines too. Past a size the log is rewritten: each run's requests folded into one line of
// per-minute counts, what is older than an hour (facts: a day) dropped.
// The record files of rep before it (requests/*.jsonl) are read, never written, until they are a day old.
// It is a cache, not config: a broken line is skipped. Keys are stored only as a hash (keyId).
import { lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { folderForeignness } from '../local-file.js';
// The window the log counts over is the service's rate-limit window.
import { HOUR_MS } from '../time.js';
import { linesMissing, openLogWriter, readAsides, readLog, recoverRewrites, rewriteLog, type LogWriter } from './append-log.js';
import { cleanSnapshot, LedgerLines, type LedgerEntry, type RateLimitSnapshot } from './ledger-lines.js';
import { readLegacyRecords, removeLegacyLeftovers } from './ledger-legacy.js';
import { removeStaleFiles } from './files.js';
import { randomHex, sha256Hex } from './ids.js';
import { PAGE_BITS, PAGE_MASK, PAGE_SLOTS } from './typed-pages.js';

export type { RateLimitSnapshot } from './ledger-lines.js';

/** The directory of the request logs, in the state dir. */
export const REQUESTS_DIR = 'requests';
/** A log past this size is rewritten (its runs' requests folded into per-minute counts). */
export const REWRITE_AT_BYTES = 64 * 1024;
/** How a log's name ends: not `.jsonl`, which an earlier rep's merge would take for its own file and remove. */
export const LOG_EXTENSION = '.log';
/** Where a rewrite links the old log until its tail is copied (append-log.ts). */
const ASIDE_DIR = 'pruning';
const MAX_LOG_BYTES = 64 * 1024 * 1024;
const MINUTE_MS = 60 * 1000;

export interface RequestLog {
  /** One request reached the server at nowMs: its line written before record() returns. */
  record(nowMs: number): void;
  /**
   * One request is about to go at nowMs: its line is written with the other lines of this turn of the
   * event loop, in one write at its end (or by flush, whichever comes first); settles once it is (a
   * failed write is flush's to tell). Never rejects. The request waits for it: a run killed once the
   * request went has its line.
   */
  recordInTurn(nowMs: number): Promise<void>;
  /** The start of the minute of the oldest request at or after sinceMs (never before sinceMs). */
  oldestSince(sinceMs: number): number | undefined;
  /** Requests (every run's) since sinceMs, the oldest one's minute, and how many runs sent them. */
  countSince(sinceMs: number): { requests: number; oldestAt?: number; contributors: number };
  /**
   * The rate-limit facts an answer carried (dated now without seenAt), this run's newest at once; their
   * line is written with this turn's lines of recordInTurn (at the turn's end, or by flush), and only
   * the turn's newest facts: a batch's answers each carry them, and only the newest is read.
   */
  noteRateLimitInTurn(info: Omit<RateLimitSnapshot, 'seenAt'> & { seenAt?: number }): void;
  lastRateLimit(): RateLimitSnapshot | undefined;
  /** Closes the run's log (each request is saved as it is sent); why a save failed, if one did. Never throws. */
  flush(): Error | undefined;
}

export interface RequestStatus {
  /** Requests counted in the hour before nowMs. */
  lastHour: number;
  rateLimit?: RateLimitSnapshot;
}

/** A stable, non-reversible name for a key: the first 16 hex digits of its SHA-256. */
export function keyId(key: string): string {
  // Stryker disable next-line ConditionalExpression: only speed: the key's id worked out again is the same
  if (lastKeyId?.key !== key) lastKeyId = { key, id: sha256Hex(key).slice(0, 16) };
  return lastKeyId.id;
}
/** The last key named: a run has one, and a batch asks for its name once an answer. */
let lastKeyId: { key: string; id: string } | undefined;

/** Opens the log of one key (at one base URL, when given) in stateDir; `now` dates rewrites and the facts. */
export function openRequestLog(stateDir: string, id: string, now: () => number = Date.now, base?: string): RequestLog {
  const dir = requestsDir(stateDir);
  const path = join(dir, logName(id, base));
  // Every line this run writes has an id of its own: the run's and a sequence number.
  const runId = randomHex(8);
  let seq = 0;
  /** This run's requests, as sent (epoch ms; in typed pages: a batch sends 100,000), and its newest rate-limit facts. */
  const own: Float64Array[] = [];
  let sent = 0;
  function* sentTimes(): Generator<number> {
    for (let index = 0; index < sent; index++) yield own[index >>> PAGE_BITS]![index & PAGE_MASK]!;
  }
  let ownRateLimit: RateLimitSnapshot | undefined;
  // The log stays open for the run: a request costs one write and one lstat (the check that no rewrite
  // replaced the file). Each line is written before record() returns, so a kill loses none.
  let writer: LogWriter | undefined;
  let rewriteAt = REWRITE_AT_BYTES;
  let failure: Error | undefined;
  const save = (line: string) => {
    if (failure) return; // said once, at the end
    let size: number;
    try {
      if (!writer) {
        trustFolder(dir);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writer = openLogWriter(path);
      }
      size = writer.append(line);
    } catch (error) {
      // A cache that cannot be written (read-only home, full disk) must not fail the command.
      failure = error instanceof Error ? error : new Error(String(error));
      return;
    }
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: only speed: when the log is rewritten, not what it keeps
    if (size > rewriteAt) rewriteAt = Math.max(REWRITE_AT_BYTES, 2 * rewrite(dir, path, now()));
  };
  // The logs are read when a question needs them (a rate limit's reset, the hour's oldest request), not
  // to count a request: a run that only sends and answers reads nothing. This run's own are added on top.
  let known: { entries: LedgerEntry[]; rateLimit?: RateLimitSnapshot } | undefined;
  const view = () => {
    if (known) return known;
    let read: LedgerLines | undefined;
    try {
      read = readScope(stateDir, id, base, now(), runId);
    } catch {
      // Unreadable: counted from zero; flush says why when it cannot write either.
    }
    const rateLimit = ownRateLimit ?? read?.rateLimit;
    return (known = { entries: read?.entries() ?? [], ...(rateLimit ? { rateLimit } : {}) });
  };

  /** The request's line, and the request counted among this run's own; undefined for a time that is none. */
  const requestLine = (nowMs: number) => {
    if (!Number.isFinite(nowMs)) return undefined;
    const at = Math.floor(nowMs);
    // Stryker disable next-line ConditionalExpression: only memory: a page a request holds the same times
    if (sent >>> PAGE_BITS === own.length) own.push(new Float64Array(PAGE_SLOTS));
    own[sent >>> PAGE_BITS]![sent & PAGE_MASK] = at;
    sent += 1;
    return `{"id":"${runId}-${++seq}","at":${at}}\n`;
  };
  /** This turn's request lines (recordInTurn's), its newest facts' line (only the newest counts), and the one promise its requests wait for. */
  let soon: { text: string; facts: string; saved: Promise<void>; resolve: () => void } | undefined;
  const saveSoon = () => {
    const group = soon;
    soon = undefined;
    if (!group) return;
    save(group.text + group.facts);
    group.resolve();
  };
  const turn = () => {
    if (!soon) {
      let resolve: () => void = () => {};
      const saved = new Promise<void>((settle) => {
        resolve = settle;
      });
      soon = { text: '', facts: '', saved, resolve };
      setImmediate(saveSoon);
    }
    return soon;
  };
  /** The facts' line, and the facts this run's own; undefined for facts without a sound time. */
  const factsLine = (info: Omit<RateLimitSnapshot, 'seenAt'> & { seenAt?: number }) => {
    const snapshot = cleanSnapshot({ ...info, seenAt: info.seenAt ?? now() });
    if (!snapshot) return undefined;
    ownRateLimit = snapshot;
    if (known) known.rateLimit = snapshot;
    return `${JSON.stringify({ id: `${runId}-${++seq}`, rateLimit: snapshot })}\n`;
  };

  return {
    record(nowMs) {
      const line = requestLine(nowMs);
      if (line) save(line);
    },
    recordInTurn(nowMs) {
      const line = requestLine(nowMs);
      if (!line) return Promise.resolve();
      const group = turn();
      group.text += line;
      return group.saved;
    },
    oldestSince(sinceMs) {
      return countOf(view().entries, sentTimes(), runId, sinceMs).oldestAt;
    },
    countSince(sinceMs) {
      return countOf(view().entries, sentTimes(), runId, sinceMs);
    },
    noteRateLimitInTurn(info) {
      const line = factsLine(info);
      if (line) turn().facts = line;
    },
    lastRateLimit() {
      return view().rateLimit;
    },
    flush() {
      saveSoon(); // synchronously: a second signal's exit saves what is held
      try {
        writer?.close();
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
      writer = undefined;
      return failure;
    },
  };
}

/** What `rep status` shows: requests in the last hour and the last rate-limit facts, for one key. Throws when unreadable. */
export function readRequestStatus(stateDir: string, id: string, nowMs: number, base?: string): RequestStatus {
  const lines = readScope(stateDir, id, base, nowMs);
  // Stryker disable next-line StringLiteral: no run's own requests are given, so its id counts none
  const status: RequestStatus = { lastHour: countOf(lines.entries(), [], '', nowMs - HOUR_MS).requests };
  if (lines.rateLimit) status.rateLimit = lines.rateLimit;
  return status;
}

/** Requests of one key (at one base URL, when given) since sinceMs, as LedgerPort.count gives them. Throws when unreadable. */
export function readRequestCount(stateDir: string, id: string, nowMs: number, base: string | undefined, sinceMs: number) {
  // Stryker disable next-line StringLiteral: no run's own requests are given, so its id counts none
  return countOf(readScope(stateDir, id, base, nowMs).entries(), [], '', sinceMs);
}

/** The directory of the request logs, for messages. */
export function requestsDir(stateDir: string): string {
  return join(stateDir, REQUESTS_DIR);
}

/** The log of a key at a base URL: the key's hash and a hash of the base URL; a log without one counts for every base URL. */
function logName(id: string, base: string | undefined): string {
  return `${id}${base === undefined ? '' : `-${sha256Hex(base).slice(0, 16)}`}${LOG_EXTENSION}`;
}

/**
 * Every line of one key's logs that counts for `base` (all its logs when undefined), the asides of
 * rewrites under way, and the earlier rep's record files; `exceptRun`'s own lines left out. Throws
 * when the folder is another user's, or cannot be read.
 */
function readScope(stateDir: string, id: string, base: string | undefined, nowMs: number, exceptRun?: string): LedgerLines {
  const dir = requestsDir(stateDir);
  trustFolder(dir);
  const names = listFolder(dir);
  const lines = new LedgerLines(nowMs, exceptRun);
  // Stryker disable next-line ConditionalExpression: only speed: an empty folder reads as nothing either way
  if (names.length === 0) return lines;
  const mine =
    base === undefined
      ? (name: string) => name.startsWith(id) && name.endsWith(LOG_EXTENSION) && /^-[0-9a-f]{16}\.log$|^\.log$/.test(name.slice(id.length))
      : undefined;
  // Stryker disable next-line MethodExpression: only speed: a log that is not there reads as empty
  const logs = mine ? names.filter(mine) : [logName(id, base), logName(id, undefined)].filter((name) => names.includes(name));
  const asideDir = join(dir, ASIDE_DIR);
  if (names.includes(ASIDE_DIR)) recoverRewrites(asideDir, logOf(dir), { maxBytes: MAX_LOG_BYTES, recover: linesMissing });
  for (const name of logs) {
    lines.add(readLog(join(dir, name), MAX_LOG_BYTES));
    // A rewrite under way: its old file holds the lines appended since it read, until it copies them.
    if (names.includes(ASIDE_DIR)) for (const text of readAsides(asideDir, join(dir, name), MAX_LOG_BYTES)) lines.add(text);
  }
  // Stryker disable next-line ConditionalExpression,StringLiteral: only speed: with no file of the old layout its reader finds nothing
  if (names.some((name) => name.endsWith('.jsonl') || name.startsWith('.'))) {
    for (const record of readLegacyRecords(dir, names, id, base)) lines.addLegacy(record);
    removeLegacyLeftovers(dir, names); // by the files' own times
  }
  return lines;
}

/** The log an aside of the requests folder belongs to. */
function logOf(dir: string) {
  return (stem: string, extension: string) =>
    /^[0-9a-f]{1,64}(-[0-9a-f]{16})?$/.test(stem) && extension === LOG_EXTENSION ? join(dir, `${stem}${extension}`) : undefined;
}

/** Rewrites the log at path (folds, drops the old); its size after. Never throws: the lines are saved, a later append rewrites. */
function rewrite(dir: string, path: string, nowMs: number): number {
  try {
    rewriteLog(path, {
      asideDir: join(dir, ASIDE_DIR),
      tag: String(nowMs),
      maxBytes: MAX_LOG_BYTES,
      rewrite: (text) => LedgerLines.compact(text, nowMs),
      recover: linesMissing,
    });
    removeStaleFiles(dir); // what a rewrite killed before its rename left
    return lstatSync(path).size;
  } catch {
    return REWRITE_AT_BYTES;
  }
}

/** Requests since sinceMs (read ones and this run's own), the oldest one's minute start (never before sinceMs), and how many runs sent them. */
function countOf(entries: readonly LedgerEntry[], own: Iterable<number>, runId: string, sinceMs: number) {
  let requests = 0;
  let oldest = Number.POSITIVE_INFINITY;
  const runs = new Set<string>();
  for (const entry of entries) {
    if (entry.to <= sinceMs) continue;
    requests += entry.n;
    oldest = Math.min(oldest, entry.from);
    runs.add(entry.run);
  }
  for (const at of own) {
    if (at < sinceMs) continue;
    requests += 1;
    oldest = Math.min(oldest, Math.floor(at / MINUTE_MS) * MINUTE_MS);
    runs.add(runId);
  }
  return { requests, ...(requests === 0 ? {} : { oldestAt: Math.max(oldest, sinceMs) }), contributors: runs.size };
}

/** Throws when dir is another user's or others can write to it: its logs are not ours to read or add to. */
function trustFolder(dir: string): void {
  const foreign = folderForeignness(dir);
  if (foreign) throw new Error(`the folder ${foreign}`);
}

/** The names in dir, none while it does not exist. */
function listFolder(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    // Stryker disable next-line ArrayDeclaration: a name that is no log, aside or old record file is read as nothing
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
