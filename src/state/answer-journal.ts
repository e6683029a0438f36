// The answer cache's journal (issue 31, point 4): the answers a batch stores go to a few shard files,
// one write a shard a turn of writes (state/write-turns.ts), where a file an answer made a 10,000-name batch create
// 10,000 files (much of its time went to the kernel). A shard past its bound is folded into entry files
// (answer-cache.ts's format: eviction, stats and clear work on those as before) by append-log.ts's
// rewrite, which loses no line appended meanwhile and leaves an aside that a killed fold's recovery
// merges back. A record is `HASH PAYLOAD\n`: HASH the entry's file name without its extension, PAYLOAD
// the entry as it is, its facts' line and its body apart by a tab (recordLine), or the entry's text as
// a JSON string, or `-AT` for an answer forgotten at AT (epoch ms). A question may
// have several records (a recovery appends old ones again): readers take the newest by its time, and
// an entry file counts as one more. Shards are read as they grow: an index of where each hash's
// records are, extended by the bytes appended since, so a batch's lookups read each byte once. The
// shards, the folder's check, that reader and the writers are journal-shards.ts's, as for the history.
import { closeSync, lstatSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readFrom } from '../local-file.js';
import { type EntryParts, entryText, partsOf } from './answer-entry.js';
import { linesMissing, openLogForReading, recoverRewrites, rewriteLog } from './append-log.js';
import {
  checkJournalDir,
  ensureJournalDir,
  type JournalShards,
  openShardReader,
  openShardWriters,
  SHARDS,
  type ShardLines,
  type ShardReader,
  type ShardWriters,
  shardFiles,
  shardPath,
} from './journal-shards.js';

export const JOURNAL_DIR = 'journal';
/** Where a fold links the shard it replaces until the shard's tail is copied (append-log.ts's asides). */
const FOLDING_DIR = 'folding';
const HASH_LENGTH = 64;
/** A shard past this many bytes is folded: the journal stays within 64 of them (16 MiB), and a single lookup reads one. */
export const FOLD_BYTES = 256 * 1024;
/** An answer larger than this is written to its entry file at once: a shard holds many small ones. */
export const JOURNAL_RECORD_MAX = 64 * 1024;
/** A shard is never read past this (one grown by something else is no journal of ours). */
const MAX_SHARD_BYTES = 64 * 1024 * 1024;
/** A fold's aside of a shard (append-log.ts names it: the shard's stem, the tag, a random word, its extension). */
const ASIDE_NAME = /^[0-9a-f]{2}\.[0-9a-z]+\.[0-9a-f]+\.log$/;

/** One record of a question: its entry's text, or when it was forgotten. */
export type JournalRecord = EntryParts | { goneAt: number };

/** The shard bound for a cache bound: a quarter of it at most over the 64 shards, so a small cache is kept small. */
export function foldBytesFor(maxBytes: number): number {
  return Math.max(1, Math.min(FOLD_BYTES, Math.floor(maxBytes / SHARDS / 4)));
}

/** A line is HASH, a space and a payload; anything else (a torn write's remains) is skipped. */
const HASH_LINES: ShardLines = {
  keyLength: HASH_LENGTH,
  keyAt: (bytes, start, end) => (end - start <= HASH_LENGTH + 1 || bytes[start + HASH_LENGTH] !== 32 ? -1 : start),
};

/**
 * A record's line. An entry whose body has no line end goes as it is, its facts' line (JSON, which
 * holds no tab) and its body apart by a tab: no escaping of the body to write, and no JSON string to
 * read back. One whose body has a line end goes as a JSON string, as every record did before (a rep
 * of then reads an entry as it is as a payload that is no JSON string: a miss).
 */
export function recordLine(hash: string, record: JournalRecord): string {
  if ('goneAt' in record) return `${hash} -${record.goneAt}\n`;
  if (!record.body.includes('\n')) return `${hash} ${record.facts}\t${record.body}\n`;
  return `${hash} ${JSON.stringify(entryText(record))}\n`;
}

function parsePayload(payload: string): JournalRecord | undefined {
  if (payload.startsWith('-')) {
    const goneAt = Number(payload.slice(1));
    return Number.isSafeInteger(goneAt) ? { goneAt } : undefined;
  }
  if (payload.startsWith('{')) {
    // An entry as it is (one torn by a killed writer has a body its checksum does not match: parseEntry and storedAtOf refuse it).
    const factsEnd = payload.indexOf('\t');
    return factsEnd === -1 ? undefined : { facts: payload.slice(0, factsEnd), body: payload.slice(factsEnd + 1) };
  }
  try {
    const text: unknown = JSON.parse(payload);
    return typeof text === 'string' ? partsOf(text) : undefined;
  } catch {
    return undefined; // torn by a killed writer: as if never written
  }
}

/** Each hash's records in a shard's text, in the order written. */
function recordsIn(text: string): Map<string, JournalRecord[]> {
  const records = new Map<string, JournalRecord[]>();
  for (const line of text.split('\n')) {
    if (line.length <= HASH_LENGTH + 1 || line[HASH_LENGTH] !== ' ') continue;
    const record = parsePayload(line.slice(HASH_LENGTH + 1));
    if (!record) continue;
    const hash = line.slice(0, HASH_LENGTH);
    const list = records.get(hash);
    if (list) list.push(record);
    else records.set(hash, [record]);
  }
  return records;
}

/** The records of one hash's lines (each `HASH PAYLOAD\n`), in order; undefined for none. */
function recordsOfLines(lines: string): JournalRecord[] | undefined {
  const records: JournalRecord[] = [];
  for (let start = 0, end = lines.indexOf('\n'); end !== -1; start = end + 1, end = lines.indexOf('\n', start)) {
    const record = parsePayload(lines.slice(start + HASH_LENGTH + 1, end));
    if (record) records.push(record);
  }
  return records.length > 0 ? records : undefined;
}

/** The journal of the cache in one folder: its shards, their writers and their reader. */
class AnswerJournal {
  readonly #journal: JournalShards;
  readonly #writers: ShardWriters;
  readonly #reader: ShardReader;
  #usable: boolean | undefined;
  #recovered = false;

  constructor(dir: string) {
    const journalDir = join(dir, JOURNAL_DIR);
    this.#journal = { dir: journalDir, extension: '.log', asideDir: join(journalDir, FOLDING_DIR), maxBytes: MAX_SHARD_BYTES };
    // The folder went meanwhile (a `rep cache clear`, a cleaner): made again, once.
    this.#writers = openShardWriters(
      () => ensureJournalDir(journalDir),
      () => this.#recoverOnce(),
    );
    this.#reader = openShardReader(this.#journal, HASH_LINES);
  }

  /**
   * Whether the journal may be used: its folder, made 0700 if missing, is a folder of this user's that
   * no one else can write (never a link). Asked once a process; false sends answers to entry files.
   */
  usable(): boolean {
    if (this.#usable !== undefined) return this.#usable;
    try {
      ensureJournalDir(this.#journal.dir);
      this.#usable = true;
    } catch {
      this.#usable = false;
    }
    return this.#usable;
  }

  /** The shard a hash's records go to. */
  shardOf(hash: string): string {
    return shardPath(this.#journal, hash);
  }

  /** Appends a record with the others of this turn (one write a shard); resolves to the shard's size after. Rejects when it cannot. */
  append(hash: string, record: JournalRecord): Promise<number> {
    return this.#writers.appendThisTurn(this.shardOf(hash), recordLine(hash, record));
  }

  /** What killed folds left is merged back once a process, before its first write (a fold merges its shard's first). */
  #recoverOnce(): void {
    if (this.#recovered) return;
    this.#recovered = true;
    if (lstatSync(this.#journal.asideDir, { throwIfNoEntry: false })) this.#recover();
  }

  /** Closes the shards kept open for appends (the next append opens its shard again). Never throws. */
  closeWriters(): void {
    try {
      this.#writers.close();
    } catch {
      // Its lines were written as they came.
    }
  }

  /** Merges back what killed folds left (their asides; a live fold's are left to it). Never throws. */
  #recover(): void {
    const journalDir = this.#journal.dir;
    recoverRewrites(
      this.#journal.asideDir,
      (stem, extension) => (/^[0-9a-f]{2}$/.test(stem) && extension === '.log' ? join(journalDir, `${stem}.log`) : undefined),
      { maxBytes: MAX_SHARD_BYTES, recover: linesMissing },
    );
  }

  /**
   * Folds a shard into entry files: `apply` gets each hash's records (it keeps the newest), and the
   * shard is left with only what was appended meanwhile. 'busy' when another process folds it now. Throws when it cannot (the shard is then whole).
   */
  fold(path: string, apply: (hash: string, records: JournalRecord[]) => void): string {
    return rewriteLog(path, {
      asideDir: this.#journal.asideDir,
      tag: 'fold',
      maxBytes: MAX_SHARD_BYTES,
      rewrite: (text) => {
        for (const [hash, records] of recordsIn(text)) apply(hash, records);
        return '';
      },
      recover: linesMissing,
    });
  }

  /**
   * The records of each hash, in order (none: undefined), from the shards as they are now (a fold's
   * aside's first: it holds the older). Throws when a shard cannot be read.
   */
  lookUp(hashes: readonly string[]): Array<JournalRecord[] | undefined> {
    // Looked at each time, as the history's readers do: a folder put there as a link since is not read through.
    if (!checkJournalDir(this.#journal.dir)) return hashes.map(() => undefined);
    return this.#reader.linesOf(hashes).map(recordsOfLines);
  }

  /** Whether the journal folder is there and ours (checkJournalDir): a link, or another user's, is no journal of this cache's. */
  #trusted(): boolean {
    try {
      return checkJournalDir(this.#journal.dir);
    } catch {
      return false;
    }
  }

  /**
   * The records of every hash in the journal now (a killed or live fold's asides' first, as lookUp reads
   * them), and their files' bytes. Throws when a shard cannot be read.
   */
  everything(): { records: Map<string, JournalRecord[]>; bytes: number } {
    const records = new Map<string, JournalRecord[]>();
    let bytes = 0;
    if (!this.#trusted()) return { records, bytes };
    const read = new Set<string>(); // an aside linked before its fold's rename is the shard itself
    for (const path of [...this.#asides(), ...this.shards()]) {
      const shard = openLogForReading(path);
      if (shard === undefined) continue;
      try {
        if (shard.size > MAX_SHARD_BYTES || read.has(shard.id)) continue;
        read.add(shard.id);
        bytes += shard.size;
        for (const [hash, list] of recordsIn(readFrom(shard.fd, 0, shard.size).toString('utf8'))) records.set(hash, [...(records.get(hash) ?? []), ...list]);
      } finally {
        closeSync(shard.fd);
      }
    }
    return { records, bytes };
  }

  /** The shard files there are. */
  shards(): string[] {
    return shardFiles(this.#journal);
  }

  /** The asides of shards that folds (killed, or under way) left: their records are read as the shard's. */
  #asides(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.#journal.asideDir);
    } catch {
      return []; // none (the common case)
    }
    return names.filter((name) => ASIDE_NAME.test(name)).map((name) => join(this.#journal.asideDir, name));
  }

  /**
   * Removes every shard and every fold's aside (a killed fold's would be merged back, its answers with
   * it), and the folders when nothing else is in them (a live fold's lock stays). Throws when a shard cannot be removed.
   */
  clear(): void {
    if (!this.#trusted()) {
      // A link in its place goes, never what it leads to; another user's folder stays.
      if (lstatSync(this.#journal.dir, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(this.#journal.dir);
      return;
    }
    for (const path of [...this.shards(), ...this.#asides()]) {
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    // A shard made later may be given a removed one's inode: read from its start.
    this.#reader.forget();
    this.closeWriters();
    for (const folder of [this.#journal.asideDir, this.#journal.dir]) {
      try {
        rmdirSync(folder);
      } catch {
        // Not empty, or gone.
      }
    }
  }
}

const journals = new Map<string, AnswerJournal>();

/** The journal of the cache in dir (one a folder for the process). */
export function answerJournal(dir: string): AnswerJournal {
  let journal = journals.get(dir);
  if (!journal) journals.set(dir, (journal = new AnswerJournal(dir)));
  return journal;
}

export type { AnswerJournal };
