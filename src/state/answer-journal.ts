// The answer cache's journal (issue 31, point 4): the answers a batch stores go to a few shard files,
// one write a shard a turn of the event loop, where a file an answer made a 10,000-name batch create
// 10,000 files (much of its time went to the kernel). A shard past its bound is folded into entry files
// (answer-cache.ts's format: eviction, stats and clear work on those as before) by append-log.ts's
// rewrite, which loses no line appended meanwhile and leaves an aside that a killed fold's recovery
// merges back. A record is `HASH PAYLOAD\n`: HASH the entry's file name without its extension, PAYLOAD
// the entry's text as a JSON string, or `-AT` for an answer forgotten at AT (epoch ms). A question may
// have several records (a recovery appends old ones again): readers take the newest by its time, and
// an entry file counts as one more. Shards are read as they grow: an index of where each hash's
// records are, extended by the bytes appended since, so a batch's lookups read each byte once.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, fileId, foreignness, readFrom } from '../local-file.js';
import { type LogWriter, openLogWriter, readAsides, recoverRewrites, rewriteLog } from './append-log.js';

export const JOURNAL_DIR = 'journal';
/** Where a fold links the shard it replaces until the shard's tail is copied (append-log.ts's asides). */
const FOLDING_DIR = 'folding';
const SHARDS = 64;
const SHARD_NAME = /^[0-9a-f]{2}\.log$/;
const HASH_LENGTH = 64;
/** A shard past this many bytes is folded: the journal stays within 64 of them (16 MiB), and a single lookup reads one. */
export const FOLD_BYTES = 256 * 1024;
/** An answer larger than this is written to its entry file at once: a shard holds many small ones. */
export const JOURNAL_RECORD_MAX = 64 * 1024;
/** A shard is never read past this (one grown by something else is no journal of ours). */
const MAX_SHARD_BYTES = 64 * 1024 * 1024;

/** One record of a question: its entry's text, or when it was forgotten. */
export type JournalRecord = { text: string } | { goneAt: number };

/** Where the records of each hash of a shard are (byte offsets, start and end of each payload), as far as it was read. */
interface ShardIndex {
  id: string;
  parsed: number;
  records: Map<string, number[]>;
}

/** The shard bound for a cache bound: a quarter of it at most over the 64 shards, so a small cache is kept small. */
export function foldBytesFor(maxBytes: number): number {
  return Math.max(1, Math.min(FOLD_BYTES, Math.floor(maxBytes / SHARDS / 4)));
}

function shardPath(dir: string, hash: string): string {
  const shard = (Number.parseInt(hash.slice(0, 2), 16) % SHARDS).toString(16).padStart(2, '0');
  return join(dir, JOURNAL_DIR, `${shard}.log`);
}

export function recordLine(hash: string, record: JournalRecord): string {
  return `${hash} ${'text' in record ? JSON.stringify(record.text) : `-${record.goneAt}`}\n`;
}

function parsePayload(payload: string): JournalRecord | undefined {
  if (payload.startsWith('-')) {
    const goneAt = Number(payload.slice(1));
    return Number.isSafeInteger(goneAt) ? { goneAt } : undefined;
  }
  try {
    const text: unknown = JSON.parse(payload);
    return typeof text === 'string' ? { text } : undefined;
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

/** The journal of the cache in one folder: its writers, what waits for this turn's write, and the shards' indexes. */
class AnswerJournal {
  readonly #dir: string;
  readonly #writers = new Map<string, LogWriter>();
  #pending = new Map<string, { text: string[]; settle: Array<(outcome: number | Error) => void> }>();
  readonly #indexes = new Map<string, ShardIndex>();
  #usable: boolean | undefined;
  #recovered = false;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Whether the journal may be used: its folder, made 0700 if missing, is a folder of this user's that
   * no one else can write (never a link). Asked once a process; false sends answers to entry files.
   */
  usable(): boolean {
    if (this.#usable !== undefined) return this.#usable;
    const folder = join(this.#dir, JOURNAL_DIR);
    try {
      ensurePrivateDir(folder);
      const stat = lstatSync(folder);
      this.#usable = stat.isDirectory() && foreignness(stat) === undefined;
    } catch {
      this.#usable = false;
    }
    return this.#usable;
  }

  /** Appends a record with the others of this turn (one write a shard); resolves to the shard's path and size after. Rejects when it cannot. */
  append(hash: string, record: JournalRecord): Promise<{ path: string; size: number }> {
    const path = shardPath(this.#dir, hash);
    if (this.#pending.size === 0) setImmediate(() => this.#flush());
    let turn = this.#pending.get(path);
    if (!turn) this.#pending.set(path, (turn = { text: [], settle: [] }));
    turn.text.push(recordLine(hash, record));
    return new Promise((resolve, reject) => {
      turn.settle.push((outcome) => (outcome instanceof Error ? reject(outcome) : resolve({ path, size: outcome })));
    });
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    // What killed folds left is merged back once a process, at its first write (a fold merges its shard's first).
    if (!this.#recovered) {
      this.#recovered = true;
      if (lstatSync(join(this.#dir, JOURNAL_DIR, FOLDING_DIR), { throwIfNoEntry: false })) this.#recover();
    }
    for (const [path, turn] of pending) {
      let outcome: number | Error;
      try {
        const text = Buffer.from(turn.text.join(''));
        try {
          outcome = this.#writer(path).append(text);
        } catch (error) {
          // The folder went meanwhile (a `rep cache clear`, a cleaner): made again, once.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          ensurePrivateDir(join(this.#dir, JOURNAL_DIR));
          outcome = this.#writer(path).append(text);
        }
      } catch (error) {
        outcome = error instanceof Error ? error : new Error(String(error));
      }
      for (const settle of turn.settle) settle(outcome);
    }
    // Windows cannot rename a file that is open (a fold's): there a shard is opened a turn at a time.
    if (process.platform === 'win32') this.closeWriters();
  }

  /** Closes the shards kept open for appends (the next append opens its shard again). Never throws. */
  closeWriters(): void {
    for (const writer of this.#writers.values()) {
      try {
        writer.close();
      } catch {
        // Its lines were written as they came.
      }
    }
    this.#writers.clear();
  }

  #writer(path: string): LogWriter {
    let writer = this.#writers.get(path);
    if (!writer) this.#writers.set(path, (writer = openLogWriter(path)));
    return writer;
  }

  /** Merges back what killed folds left (their asides; a live fold's are left to it). Never throws. */
  #recover(): void {
    recoverRewrites(
      join(this.#dir, JOURNAL_DIR, FOLDING_DIR),
      (stem, extension) => (/^[0-9a-f]{2}$/.test(stem) && extension === '.log' ? join(this.#dir, JOURNAL_DIR, `${stem}.log`) : undefined),
      { maxBytes: MAX_SHARD_BYTES, recover: linesMissing },
    );
  }

  /**
   * Folds a shard into entry files: `apply` gets each hash's records (it keeps the newest), and the
   * shard is left with only what was appended meanwhile. 'busy' when another process folds it now. Throws when it cannot (the shard is then whole).
   */
  fold(path: string, apply: (hash: string, records: JournalRecord[]) => void): string {
    return rewriteLog(path, {
      asideDir: join(this.#dir, JOURNAL_DIR, FOLDING_DIR),
      tag: 'fold',
      maxBytes: MAX_SHARD_BYTES,
      rewrite: (text) => {
        for (const [hash, records] of recordsIn(text)) apply(hash, records);
        return '';
      },
      recover: linesMissing,
    });
  }

  /** The records of each hash, in order (none: undefined), from the shards as they are now. Throws when a shard cannot be read. */
  lookUp(hashes: readonly string[]): Array<JournalRecord[] | undefined> {
    const byShard = new Map<string, number[]>();
    hashes.forEach((hash, at) => {
      const path = shardPath(this.#dir, hash);
      const list = byShard.get(path);
      if (list) list.push(at);
      else byShard.set(path, [at]);
    });
    const found: Array<JournalRecord[] | undefined> = hashes.map(() => undefined);
    const foldingDir = join(this.#dir, JOURNAL_DIR, FOLDING_DIR);
    const folding = lstatSync(foldingDir, { throwIfNoEntry: false }) !== undefined;
    for (const [path, places] of byShard) {
      const fd = openShard(path);
      if (fd === undefined) {
        this.#indexes.delete(path);
        continue;
      }
      try {
        this.#indexOf(path, fd);
        // A fold under way: the shard it replaced (linked aside) holds what was appended since it read,
        // until it copies that into the new shard, and only then lets the aside go. So the asides, then
        // the shard again: whatever of it was copied meanwhile is read then.
        const aside = folding ? recordsIn(readAsides(foldingDir, path, MAX_SHARD_BYTES).join('\n')) : undefined;
        const index = this.#indexOf(path, fd);
        for (const at of places) {
          const hash = hashes[at]!;
          const offsets = index.records.get(hash);
          const records: JournalRecord[] = [...(aside?.get(hash) ?? [])];
          for (let i = 0; offsets && i < offsets.length; i += 2) {
            const record = parsePayload(readFrom(fd, offsets[i]!, offsets[i + 1]!).toString('utf8'));
            if (record) records.push(record);
          }
          if (records.length > 0) found[at] = records;
        }
      } finally {
        closeSync(fd);
      }
    }
    return found;
  }

  /** The shard's index, extended by what was appended since it was last read (read anew when the shard was replaced). */
  #indexOf(path: string, fd: number): ShardIndex {
    const stat = fstatSync(fd, { bigint: true });
    const id = fileId(stat);
    const size = Number(stat.size);
    let index = this.#indexes.get(path);
    if (!index || index.id !== id || index.parsed > size) this.#indexes.set(path, (index = { id, parsed: 0, records: new Map() }));
    if (size > MAX_SHARD_BYTES) throw Object.assign(new Error(`${path} is larger than ${MAX_SHARD_BYTES} bytes`), { code: 'EFBIG' });
    if (size === index.parsed) return index;
    const bytes = readFrom(fd, index.parsed, size);
    let start = 0;
    for (let end = bytes.indexOf(10); end >= 0; start = end + 1, end = bytes.indexOf(10, start)) {
      // A line is HASH, a space and a payload; anything else (a torn write's remains) is skipped.
      if (end - start <= HASH_LENGTH + 1 || bytes[start + HASH_LENGTH] !== 32) continue;
      const hash = bytes.toString('latin1', start, start + HASH_LENGTH);
      const offsets = index.records.get(hash);
      const place = [index.parsed + start + HASH_LENGTH + 1, index.parsed + end];
      if (offsets) offsets.push(...place);
      else index.records.set(hash, place);
    }
    // A last line without its newline is being written (or was cut off): read again next time.
    index.parsed += start;
    return index;
  }

  /** The records of every hash in the journal now, and the shards' bytes. Throws when a shard cannot be read. */
  everything(): { records: Map<string, JournalRecord[]>; bytes: number } {
    const records = new Map<string, JournalRecord[]>();
    let bytes = 0;
    for (const path of this.shards()) {
      const fd = openShard(path);
      if (fd === undefined) continue;
      try {
        const size = fstatSync(fd).size;
        if (size > MAX_SHARD_BYTES) continue;
        bytes += size;
        for (const [hash, list] of recordsIn(readFrom(fd, 0, size).toString('utf8'))) records.set(hash, [...(records.get(hash) ?? []), ...list]);
      } finally {
        closeSync(fd);
      }
    }
    return { records, bytes };
  }

  /** The shard files there are. */
  shards(): string[] {
    try {
      return readdirSync(join(this.#dir, JOURNAL_DIR))
        .filter((name) => SHARD_NAME.test(name))
        .map((name) => join(this.#dir, JOURNAL_DIR, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Removes every shard, and the folder when nothing else is in it (a live fold's lock stays). Throws when a shard cannot be removed. */
  clear(): void {
    for (const path of this.shards()) {
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      this.#indexes.delete(path);
    }
    this.closeWriters();
    for (const folder of [join(this.#dir, JOURNAL_DIR, FOLDING_DIR), join(this.#dir, JOURNAL_DIR)]) {
      try {
        rmdirSync(folder);
      } catch {
        // Not empty, or gone.
      }
    }
  }
}

/** The shard open for reading, or undefined when there is none; never through a link, never another user's or a file others can write. */
function openShard(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const wrong = stat.isFile() ? foreignness(stat) : 'is not a regular file';
    if (wrong) throw Object.assign(new Error(`the answer journal ${path} ${wrong}`), { code: 'EFOREIGN' });
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The lines of a killed fold's old shard that the shard lacks now: appended back (a record there twice is read once). */
function linesMissing(aside: string, log: string): string {
  const have = new Set(log.split('\n'));
  return aside
    .split('\n')
    .filter((line) => line !== '' && !have.has(line))
    .map((line) => `${line}\n`)
    .join('');
}

const journals = new Map<string, AnswerJournal>();

/** The journal of the cache in dir (one a folder for the process). */
export function answerJournal(dir: string): AnswerJournal {
  let journal = journals.get(dir);
  if (!journal) journals.set(dir, (journal = new AnswerJournal(dir)));
  return journal;
}

export type { AnswerJournal };
