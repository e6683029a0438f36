// The answer cache: successful JSON answers of audit, search and pulse kept on disk, so a repeated
// question within the max age costs no request. An entry (answer-entry.ts: a line of JSON facts, then
// the body exactly as the server sent it) goes first to the journal (answer-journal.ts: a few shard
// files, one write a shard a turn), which is folded past its bound into a file an entry, named by a hash
// of its question, made whole and renamed into place (0600, in a 0700 directory); the newest of the
// journal's records and the file answers. A reader that meets an entry cut off (being made, or by a
// crash) finds its checksum wrong, so parallel rep processes never use half an entry; anything
// unreadable, foreign or damaged is a miss. A hit loads only Node built-ins and rep's own small state
// modules: the HTTP stack, and even the Cache-Control parser, stay unloaded.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { baseUrlKey } from '../api/base-url.js';
import { ensurePrivateDir, folderForeignness, foreignnessOnce } from '../local-file.js';
import { countPut, listEntries, removeEntries, removeFile, touchEntry } from './answer-cache-dir.js';
import { answerJournal, foldBytesFor, JOURNAL_DIR, JOURNAL_RECORD_MAX, type AnswerJournal, type JournalRecord } from './answer-journal.js';
import { CACHE_LIMITS, type CacheLimits } from './cache-limits.js';
import type { AnswerHeaders } from '../store/answer-freshness.js';
import { createPrivateFile, readPrivateFile, writePrivateFile, writePrivateFileAsync } from './files.js';
import { keyId } from './requests.js';
import {
  type Entry,
  ENTRY_EXTENSION,
  entryParts,
  entryText,
  fileName,
  type Identity,
  MAX_ENTRY_BYTES,
  parseEntry,
  partsOf,
  storedAtOf,
} from './answer-entry.js';
import { isFresh, isJsonDocument } from '../store/policy.js';
import type { CachedAnswer, Freshness, PutOutcome, StoredAnswer } from '../store/port.js';

export type { CachedAnswer, PutOutcome } from '../store/port.js';
export type { Identity } from './answer-entry.js';
export { CACHE_LIMITS, type CacheLimits } from './cache-limits.js';

/** Which question an answer is to; `apiKey` is hashed at once and never kept. */
export interface AnswerKey {
  /** The base URL the request went to (userinfo, query, fragment and trailing slashes do not count). */
  baseUrl: string | URL;
  endpoint: 'audit' | 'search' | 'pulse';
  /** The exact `q` sent (case and spacing count); '' for pulse. */
  query: string;
  /** The key the request carried, or undefined when it carried none. */
  apiKey: string | undefined;
}

/** An answer just received, as put() takes it. */
export interface FreshAnswer {
  status: number;
  headers: AnswerHeaders;
  /** The body exactly as the server sent it. */
  bodyText: string;
  /** When it arrived (epoch ms). */
  receivedAt: number;
}

export interface CacheStats {
  dir: string;
  entries: number;
  bytes: number;
  /** The bound eviction keeps it within (bytes on disk), when there is one; snake_case as `rep status --json` shows it. */
  max_bytes?: number;
}

export interface AnswerCache {
  readonly dir: string;
  /** The answer, if one is kept younger than maxAgeMs (0: never) and within the server's own limit. Never throws. */
  get(key: AnswerKey, options: { maxAgeMs: number; now?: number }): CachedAnswer | undefined;
  /** Keeps a 2xx JSON object or array unless the server forbids it. Never throws. */
  put(key: AnswerKey, answer: FreshAnswer): Promise<PutOutcome>;
  /** How many entries there are and their size. Throws when the directory cannot be read. */
  stats(): CacheStats;
  /** Removes every entry; returns how many. Throws when the directory cannot be read or an entry removed. */
  clear(): number;
}

/** What a run stored or read is not evicted by that run for this long after it opened the cache (a long-lived library client's, not for ever). */
const PROTECT_MAX_MS = 24 * 60 * 60 * 1000;

/** File times lag the clock a little (the kernel's coarse clock, a float of seconds): a use this close before the open still counts. */
const MTIME_SLACK_MS = 2000;

/** Entries used at or after this stay through this run's evictions: its start, or a day ago for a long-lived one. */
export function protectedSinceFor(openedAt: number): () => number {
  return () => Math.max(openedAt - MTIME_SLACK_MS, Date.now() - PROTECT_MAX_MS);
}

/**
 * The cache in dir. A folder or entry of another user's, or one others can write, is neither read nor
 * written: `warn` says so once, and the question goes to the API.
 */
export function openAnswerCache(dir: string, limits: CacheLimits = CACHE_LIMITS, warn?: (text: string) => void): AnswerCache {
  const foreign = foreignnessOnce(
    () => folderForeignness(dir),
    (reason) => warn?.(`not using the answer cache: the folder ${dir} ${reason}`),
  );
  const protectedSince = protectedSinceFor(Date.now());
  return {
    dir,
    get(key, { maxAgeMs, now = Date.now() }) {
      if (!(maxAgeMs > 0) || foreign()) return undefined;
      const identity = identify(key);
      return identity && readEntry(dir, identity, { maxAgeMs, now }, warn);
    },

    async put(key, answer) {
      try {
        const identity = identify(key);
        if (!identity) return { stored: false, reason: 'the base URL is not a URL' };
        const refusal = foreign();
        if (refusal) return { stored: false, reason: `the folder ${dir} ${refusal}` };
        if (!(answer.status >= 200 && answer.status <= 299)) return { stored: false, reason: `status ${answer.status} is not a success` };
        if (!isJsonDocument(answer.bodyText)) return { stored: false, reason: 'the body is not a JSON object or array' };
        // A server that echoes the key (or a query that holds it) would put the secret on disk.
        if (key.apiKey && (answer.bodyText.includes(key.apiKey) || key.query.includes(key.apiKey)))
          return { stored: false, reason: 'the answer holds the API key' };
        const { freshnessOf } = await import('../store/answer-freshness.js');
        const freshness = freshnessOf(answer.headers, answer.receivedAt);
        if (!freshness.keep) {
          // An older answer the server would not let us keep now goes too (seldom one: pulse is never kept).
          const failed = await forgetEntry(dir, identity);
          return failed ? { stored: false, error: failed } : { stored: false, reason: freshness.reason };
        }
        const contentType = answer.headers['content-type'];
        const stored: StoredAnswer = {
          status: answer.status,
          bodyText: answer.bodyText,
          ...(typeof contentType === 'string' ? { contentType } : {}),
          storedAt: answer.receivedAt,
          ...(freshness.freshUntil === undefined ? {} : { freshUntil: freshness.freshUntil }),
        };
        return await writeEntry(dir, identity, stored, limits, protectedSince);
      } catch (error) {
        return { stored: false, error: error instanceof Error ? error : new Error(String(error)) };
      }
    },

    stats() {
      const entries = listEntries(dir);
      const journal = journalOnly(dir, new Set(entries.map((entry) => entry.name)));
      const bytes = entries.reduce((sum, entry) => sum + entry.size, 0) + journal.bytes;
      return { dir, entries: entries.length + journal.answers, bytes, max_bytes: limits.maxBytes };
    },

    clear: () => clearCache(dir),
  };
}

/** The four things an answer is keyed by, the base URL normalised; undefined for a base URL that is no URL. */
function identify(key: AnswerKey): Identity | undefined {
  const baseUrl = cacheBaseUrl(typeof key.baseUrl === 'string' ? key.baseUrl : key.baseUrl.href);
  if (baseUrl === undefined) return undefined;
  return { baseUrl, endpoint: key.endpoint, query: key.query, key: key.apiKey ? keyId(key.apiKey) : 'none' };
}

/** The base URL as entries are keyed by it (baseUrlKey, which keeps the one it keyed last); undefined for no URL. */
function cacheBaseUrl(text: string): string | undefined {
  try {
    return baseUrlKey(text);
  } catch {
    return undefined;
  }
}

/**
 * The entry for a question, if it is whole, ours and fresh (isFresh); a hit marks it used. Never throws.
 * `dirIsFolder`: the caller has just seen dir to be a folder (a batch's lookups look once for them all).
 */
export function readEntry(dir: string, identity: Identity, freshness: Freshness, warn?: (text: string) => void, dirIsFolder = false): CachedAnswer | undefined {
  return readEntries(dir, [identity], freshness, warn, dirIsFolder)[0];
}

/** readEntry for many questions, the journal's shards read once for them all. Never throws. */
export function readEntries(
  dir: string,
  identities: readonly Identity[],
  freshness: Freshness,
  warn?: (text: string) => void,
  dirIsFolder = false,
): Array<CachedAnswer | undefined> {
  const names = identities.map(fileName);
  let journaled: Array<JournalRecord[] | undefined>;
  try {
    journaled = answerJournal(dir).lookUp(names.map((name) => name.slice(0, -ENTRY_EXTENSION.length)));
  } catch (error) {
    const text = `not using the answer journal in ${dir}: ${error instanceof Error ? error.message : String(error)}`;
    if (!journalWarnings.has(text)) warn?.(text); // once a process, not once a batch's chunk of lookups
    journalWarnings.add(text);
    journaled = identities.map(() => undefined);
  }
  return identities.map((identity, at) => {
    const path = join(dir, names[at]!);
    const file = readPrivateFile(path, MAX_ENTRY_BYTES, dirIsFolder);
    if (typeof file === 'object' && 'foreign' in file) warn?.(`not using the cached answer ${path}: it ${file.foreign}`);
    const parts = typeof file === 'object' && 'text' in file ? partsOf(file.text) : undefined;
    const fromFile = parts && parseEntry(parts, identity);
    const entry = newestOf(fromFile, journaled[at], identity);
    if (!entry || !isFresh(entry.facts, freshness)) return undefined;
    if (entry === fromFile) touchEntry(path);
    const headers: Record<string, string> = entry.facts.contentType === undefined ? {} : { 'content-type': entry.facts.contentType };
    return {
      bodyText: entry.bodyText,
      status: entry.facts.status,
      headers,
      storedAt: entry.facts.storedAt,
      ageMs: Math.max(0, freshness.now - entry.facts.storedAt),
    };
  });
}

/** What was said of journals that could not be read: each once. */
const journalWarnings = new Set<string>();

/**
 * The newest of an entry file's answer and the journal's records for the question (a record forgotten
 * later than the rest: none). Times tie in favour of the later record: the journal's, in its order.
 */
function newestOf(fromFile: Entry | undefined, records: readonly JournalRecord[] | undefined, identity: Identity): Entry | undefined {
  let best = fromFile;
  let bestAt = fromFile?.facts.storedAt ?? Number.NEGATIVE_INFINITY;
  for (const record of records ?? []) {
    if ('goneAt' in record) {
      if (record.goneAt >= bestAt) [best, bestAt] = [undefined, record.goneAt];
      continue;
    }
    const entry = parseEntry(record, identity);
    if (entry && entry.facts.storedAt >= bestAt) [best, bestAt] = [entry, entry.facts.storedAt];
  }
  return best;
}

/** Folders this process has made private already: once is enough, not once an answer. */
const readyDirs = new Set<string>();

/**
 * Keeps the entry (0600, in a 0700 folder): a small one in the journal with the others of this turn,
 * folded into entry files when its shard is past its bound; a large one, or any where the journal
 * cannot be used, in its entry file at once. Keeps the folder within its bound, sparing what was used
 * since protectedSince().
 */
export async function writeEntry(
  dir: string,
  identity: Identity,
  answer: StoredAnswer,
  limits: CacheLimits,
  protectedSince: () => number,
): Promise<PutOutcome> {
  try {
    const entry = entryParts(identity, answer);
    // A UTF-16 unit is at most 3 bytes of UTF-8: a small entry's bytes need no count.
    const atMost = 3 * (entry.facts.length + 1 + entry.body.length);
    const bytes = atMost <= JOURNAL_RECORD_MAX ? atMost : Buffer.byteLength(entry.facts) + 1 + Buffer.byteLength(entry.body);
    if (bytes > MAX_ENTRY_BYTES) return { stored: false, reason: 'the answer is too large to keep' };
    if (!readyDirs.has(dir)) ensurePrivateDir(dir);
    readyDirs.add(dir);
    const name = fileName(identity);
    const journal = answerJournal(dir);
    if (bytes <= JOURNAL_RECORD_MAX && journal.usable()) {
      const hash = name.slice(0, -ENTRY_EXTENSION.length);
      const size = await journal.append(hash, entry);
      if (size > foldBytesFor(limits.maxBytes)) await foldShards(dir, journal, [journal.shardOf(hash)], limits, protectedSince);
      return { stored: true };
    }
    const path = join(dir, name);
    const text = entryText(entry);
    // A new entry is made in place (a reader that meets it cut off finds a bad checksum: a miss); one
    // already there is replaced whole, so a reader of that one never misses.
    let made: boolean;
    try {
      made = createPrivateFile(path, text);
    } catch (error) {
      // The folder went meanwhile (a `rep cache clear` elsewhere, a cleaner): made again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensurePrivateDir(dir);
      made = createPrivateFile(path, text);
    }
    if (!made) await writePrivateFileAsync(path, text);
    await countPut(dir, limits, protectedSince);
    return { stored: true };
  } catch (error) {
    return { stored: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Folds journal shards into entry files (the newest record of each question: its entry written whole,
 * or removed if it was forgotten), then counts each entry written as a put, all in one turn, so
 * eviction keeps the bound. A shard another process folds now, or one that cannot be folded, is left
 * to a later put. Never rejects.
 */
async function foldShards(dir: string, journal: AnswerJournal, paths: readonly string[], limits: CacheLimits, protectedSince: () => number): Promise<void> {
  let written = 0;
  for (const path of paths) {
    try {
      journal.fold(path, (hash, records) => {
        const entryPath = join(dir, `${hash}${ENTRY_EXTENSION}`);
        const newest = newestRecord(records);
        if (!newest) return;
        // An entry file newer than every record (a large answer goes there at once; a record may come late) stays.
        const fileAt = entryStoredAt(entryPath);
        if (fileAt !== undefined && fileAt > ('goneAt' in newest ? newest.goneAt : storedAtOf(newest)!)) return;
        if ('goneAt' in newest) removeFile(entryPath);
        else if (writePrivateFile(entryPath, entryText(newest))) written += 1;
      });
    } catch {
      // The shard is whole: a later put folds it.
    }
  }
  await Promise.all(Array.from({ length: written }, () => countPut(dir, limits, protectedSince)));
}

/**
 * Folds every shard of the journal into entry files now, as a shard past its bound is: what the entry
 * files' own rules (eviction, damage, foreign files) apply to. Never rejects; a shard that cannot be folded stays.
 */
export async function foldJournal(dir: string, limits: CacheLimits = CACHE_LIMITS, protectedSince: () => number = Date.now): Promise<void> {
  const journal = answerJournal(dir);
  let shards: string[];
  try {
    shards = journal.shards();
  } catch {
    return;
  }
  await foldShards(dir, journal, shards, limits, protectedSince);
}

/** The newest of one question's records (by the time in each; a tie goes to the later). */
function newestRecord(records: readonly JournalRecord[]): JournalRecord | undefined {
  let best: JournalRecord | undefined;
  let bestAt = Number.NEGATIVE_INFINITY;
  for (const record of records) {
    const at = 'goneAt' in record ? record.goneAt : storedAtOf(record);
    if (at !== undefined && at >= bestAt) [best, bestAt] = [record, at];
  }
  return best;
}

/** The stored time of the entry file at path, if there is one of this user's that has one. */
function entryStoredAt(path: string): number | undefined {
  if (!lstatSync(path, { throwIfNoEntry: false })) return undefined; // the common case: a look, not a throw
  const file = readPrivateFile(path, MAX_ENTRY_BYTES, true);
  const parts = typeof file === 'object' && 'text' in file ? partsOf(file.text) : undefined;
  return parts && storedAtOf(parts);
}

/**
 * Forgets the answer to a question: its entry removed, and a record in the journal that outdates any
 * there. Never rejects: resolves to why it could not, when the answer may still be served.
 */
export async function forgetEntry(dir: string, identity: Identity): Promise<Error | undefined> {
  const name = fileName(identity);
  const path = join(dir, name);
  try {
    // Looked for first: unlink would throw ENOENT (see readLocalFile).
    if (lstatSync(path, { throwIfNoEntry: false })) removeFile(path);
    const journal = answerJournal(dir);
    if (lstatSync(join(dir, JOURNAL_DIR), { throwIfNoEntry: false }) && journal.usable())
      await journal.append(name.slice(0, -ENTRY_EXTENSION.length), { goneAt: Date.now() });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The journal's answers that have no entry file (`entryNames`, the entries' file names), and its bytes. Throws when it cannot be read. */
function journalOnly(dir: string, entryNames: ReadonlySet<string>): { answers: number; bytes: number } {
  const { records, bytes } = answerJournal(dir).everything();
  let answers = 0;
  for (const [hash, list] of records) {
    const newest = newestRecord(list);
    if (newest && !('goneAt' in newest) && !entryNames.has(`${hash}${ENTRY_EXTENSION}`)) answers += 1;
  }
  return { answers, bytes };
}

/** Removes every entry and the journal; returns how many answers went. Throws when it cannot. */
function clearCache(dir: string): number {
  const entries = new Set(listEntries(dir).map((entry) => entry.name));
  const { answers } = journalOnly(dir, entries);
  const removed = removeEntries(dir);
  answerJournal(dir).clear();
  return removed + answers;
}
