// The local-files store, rep's embedded default (zero set-up): answers in the cache folder (a journal
// folded into a file an answer, state/answer-cache.ts), the request ledger in the state folder
// (state/requests.ts), the history in its own folder (history.ts here). Each keeps its on-disk format and its safety: private
// modes, foreign files refused, whole-file writes or O_APPEND lines (state/append-log.ts), no link followed.
import { lstatSync } from 'node:fs';
import { holdsEntries } from '../../state/answer-cache-dir.js';
import { answerJournal } from '../../state/answer-journal.js';
import {
  forgetEntry,
  openAnswerCache,
  protectedSinceFor,
  readEntries,
  readEntry,
  writeEntry,
  CACHE_LIMITS,
  type CacheLimits,
} from '../../state/answer-cache.js';
import { openRequestLog, readRequestCount, readRequestStatus, requestsDir, type RequestLog } from '../../state/requests.js';
import { folderForeignness, foreignnessOnce } from '../../local-file.js';
import { systemErrorText } from '../../errors.js';
import { cacheDirFrom, historyPlace, repPaths } from '../../config/paths.js';
import type { AnswerKey, AnswerStorePort, LedgerPort, LedgerScope, Store } from '../port.js';
import { openLocalHistory } from './history.js';
import { prepareHistoryDir } from './migrate.js';

export interface LocalStoreOptions {
  /** The answer cache's folder. */
  cacheDir: string;
  /** The state folder: the request ledger is its requests/ folder. */
  stateDir: string;
  /** The history's folder. */
  historyDir: string;
  /** A history.jsonl of an earlier rep to move over on first use (it may be historyDir itself). */
  legacyHistoryFile?: string;
  cacheLimits?: CacheLimits;
  warn?: (text: string) => void;
  now?: () => number;
}

/** Where rep itself keeps its memory, by this environment (pass process.env to share the CLI's; nothing else is read). */
export function localStoreOptions(env: Readonly<Record<string, string | undefined>>): LocalStoreOptions {
  const paths = repPaths(env);
  return { cacheDir: cacheDirFrom(env, paths), stateDir: paths.stateDir, ...historyPlace(env, paths.stateDir) };
}

export function openLocalStore(options: LocalStoreOptions): Store {
  const { cacheDir, stateDir, historyDir, warn, now = Date.now } = options;
  const answers = localAnswers(cacheDir, options.cacheLimits ?? CACHE_LIMITS, warn);
  const ledger = localLedger(stateDir, now);
  const history = openLocalHistory(historyDir, {
    ...(warn ? { warn } : {}),
    prepare: () => prepareHistoryDir(historyDir, options.legacyHistoryFile, warn),
  });
  return {
    answers,
    ledger,
    history,
    describe: () => ({
      kind: 'local',
      details: [
        { label: 'cache', value: cacheDir },
        { label: 'history', value: historyDir },
        { label: 'requests', value: requestsDir(stateDir) },
      ],
    }),
    async close() {
      await ledger.settle();
      answerJournal(cacheDir).closeWriters();
      try {
        history.close();
      } catch {
        // Its lines were written as they came; a close that fails loses none.
      }
    },
  };
}

function localAnswers(dir: string, limits: CacheLimits, warn?: (text: string) => void): AnswerStorePort {
  const foreign = foreignnessOnce(
    () => folderForeignness(dir),
    (reason) => warn?.(`not using the answer cache: the folder ${dir} ${reason}`),
  );
  const protectedSince = protectedSinceFor(Date.now());
  const identity = (key: AnswerKey) => ({ baseUrl: key.baseUrl, endpoint: key.endpoint, query: key.query, key: key.keyFingerprint });
  return {
    async get(key, freshness) {
      return foreign() ? undefined : readEntry(dir, identity(key), freshness, warn);
    },
    async getMany(keys, freshness) {
      if (foreign()) return keys.map(() => undefined);
      // Each read as get reads it, the journal's shards once for them all; the folder looked at once for
      // them all: none there, or (for many keys) no entry and no journal in it (a first batch), every key
      // misses at no cost of its own; else a missing entry costs one lstat.
      const folder = folderKind(dir);
      if (folder === 'none' || (folder === 'folder' && keys.length >= LIST_FROM_KEYS && !holdsEntries(dir))) return keys.map(() => undefined);
      return readEntries(dir, keys.map(identity), freshness, warn, folder === 'folder');
    },
    put(key, answer) {
      const refusal = foreign();
      // writeEntry's promise as it is (it never rejects), not wrapped in another: a batch puts an answer a name.
      return refusal
        ? Promise.resolve({ stored: false, reason: `the folder ${dir} ${refusal}` })
        : writeEntry(dir, identity(key), answer, limits, protectedSince);
    },
    async forget(key) {
      const failed = foreign() ? undefined : await forgetEntry(dir, identity(key));
      // Said, not swallowed: the answer the server no longer lets be kept may be reused until it ages out.
      if (failed) warn?.(`cannot forget a cached answer in ${dir} (${systemErrorText(failed)}): it may be reused until it is older than the max age`);
    },
    async stats() {
      const stats = openAnswerCache(dir, limits).stats();
      return { where: stats.dir, entries: stats.entries, bytes: stats.bytes, maxBytes: stats.max_bytes };
    },
    async clear() {
      return openAnswerCache(dir).clear();
    },
  };
}

/** Lookups from which a listing of the folder (stopped at its first entry) costs less than a look a key. */
const LIST_FROM_KEYS = 8;

/** What is at dir: nothing, a folder (not a link), or anything else (a link, or unreadable: each read finds out for itself). */
function folderKind(dir: string): 'none' | 'folder' | 'other' {
  try {
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    return stat === undefined ? 'none' : stat.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'other';
  }
}

/** One request log per (key, base URL) this run sends with: each an append log of its own (state/requests.ts). */
function localLedger(stateDir: string, now: () => number): LedgerPort {
  const logs = new Map<string, RequestLog>();
  const logOf = (scope: LedgerScope) => {
    const id = `${scope.keyFingerprint}\n${scope.baseUrl}`;
    let log = logs.get(id);
    if (!log) logs.set(id, (log = openRequestLog(stateDir, scope.keyFingerprint, now, scope.baseUrl)));
    return log;
  };
  return {
    async record(scope, at) {
      logOf(scope).record(at);
    },
    recordInTurn: (scope, at) => logOf(scope).recordInTurn(at),
    async noteRateLimit(scope, facts) {
      logOf(scope).noteRateLimitInTurn(facts); // with the turn's request lines: one write
    },
    async count(scope, since, at) {
      const log = logs.get(`${scope.keyFingerprint}\n${scope.baseUrl}`);
      if (log) return log.countSince(since);
      return readRequestCount(stateDir, scope.keyFingerprint, at, scope.baseUrl, since);
    },
    async lastRateLimit(scope) {
      const log = logs.get(`${scope.keyFingerprint}\n${scope.baseUrl}`);
      return log ? log.lastRateLimit() : readRequestStatus(stateDir, scope.keyFingerprint, now(), scope.baseUrl).rateLimit;
    },
    async settle() {
      let failure: Error | undefined;
      for (const log of logs.values()) failure ??= log.flush();
      return failure;
    },
  };
}
