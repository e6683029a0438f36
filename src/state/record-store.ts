// Records that many processes add to at once without losing one. Each add is a new file, written
// whole under a temporary name and renamed into place, never changed after. Now and then one process
// merges the files into one and removes the files it read. Every record has an id, so merges that
// race each other at worst hold the same record twice, and a reader takes each id once. Nothing
// waits on a lock: the lock below only keeps processes from merging the same files at once.
// A live record (a run's count as it goes) is the exception: its process appends its latest state to
// a file of its own, which merges read but leave in place until the process is done with it.
import { closeSync, constants, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fdId, folderForeignness, pathId } from '../local-file.js';
import { readPrivateFile, removeStaleFiles, STALE_MS, writePrivateFile } from './files.js';
import { randomHex } from './ids.js';
import { parseJson } from '../text.js';

export interface StoredRecord {
  id: string;
}

export interface RecordStoreOptions<T extends StoredRecord> {
  /** A parsed line as a record, or undefined to skip it (a line from an older or broken writer). */
  parse(value: unknown): T | undefined;
  /** What a merge keeps of all records (ids unchanged: another merge may hold the same records). */
  prune(records: T[]): T[];
  /** Merge once this many files are there. */
  mergeAt: number;
  /** Two versions of one record (a live record's, and a merge's copy of it) as one; default: either. */
  combine?(a: T, b: T): T;
}

export interface RecordStore<T extends StoredRecord> {
  /** Every record, each id once. Throws when the directory exists but cannot be read. */
  read(): T[];
  /** Adds the records as one new file, merging when files pile up. Throws when it cannot be written. */
  add(records: T[]): void;
  /**
   * A record this process keeps up to date, in a file of its own that a kill leaves readable: each
   * change is appended (the `combine` option makes one record of them); once the file has grown, it is
   * started again from `whole()`, the record so far.
   */
  live(whole: () => T): LiveRecord<T>;
}

export interface LiveRecord<T extends StoredRecord> {
  /** Appends a change to the record (one write). Throws when it cannot be written. */
  put(change: T): void;
  /** Hands the file to merges; put() after it starts a new file. Throws when it cannot. */
  done(): void;
}

const EXTENSION = '.jsonl';
/** A file this big is no file of ours: skipped, and removed by the next merge. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const LOCK = '.merging';
/** How live files' names end (before EXTENSION); a merge removes one only once it is stale. */
const LIVE = '.live';
/** A live file past this size is started again from the whole record. */
const LIVE_RESTART_BYTES = 64 * 1024;
/** Reads retried when a merge removed a listed file meanwhile (its records are in the merge's new file). */
const READ_ATTEMPTS = 4;

export function openRecordStore<T extends StoredRecord>(dir: string, options: RecordStoreOptions<T>): RecordStore<T> {
  function readAll(): { records: Map<string, T>; files: string[] } {
    for (let attempt = 1; ; attempt++) {
      const records = new Map<string, T>();
      const files: string[] = [];
      let vanished = false;
      for (const name of recordFiles(dir)) {
        const file = readRecordFile(join(dir, name));
        if (file === 'gone') vanished = true;
        if (typeof file !== 'object') continue;
        files.push(name);
        for (const line of file.text.split('\n')) {
          const record = line ? options.parse(parseLine(line)) : undefined;
          if (!record) continue;
          const known = records.get(record.id);
          records.set(record.id, known && options.combine ? options.combine(known, record) : (known ?? record));
        }
      }
      if (!vanished || attempt >= READ_ATTEMPTS) return { records, files };
    }
  }

  function merge(): void {
    const lock = join(dir, LOCK);
    let fd: number;
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch {
      // Another process is merging; a lock left by a dead one is cleared for the next flush.
      if (ageMs(lock) > STALE_MS) rmSync(lock, { force: true });
      return;
    }
    try {
      const { records, files } = readAll();
      const kept = options.prune([...records.values()]);
      if (kept.length > 0) writeRecordFile(dir, kept);
      for (const name of files) if (!isLive(name) || ageMs(join(dir, name)) > STALE_MS) rmSync(join(dir, name), { force: true });
      removeStaleFiles(dir);
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }

  const mergeIfMany = () => {
    try {
      if (recordFiles(dir).filter((name) => !isLive(name)).length >= options.mergeAt) merge();
    } catch {
      // The records are saved; the files a failed merge left are merged by a later one.
    }
  };

  return {
    read: () => {
      trustFolder(dir);
      return [...readAll().records.values()];
    },
    add(records) {
      if (records.length === 0) return;
      trustFolder(dir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeRecordFile(dir, records);
      mergeIfMany();
    },
    live: (whole) => liveRecord(dir, whole, mergeIfMany),
  };
}

function liveRecord<T extends StoredRecord>(dir: string, whole: () => T, mergeIfMany: () => void): LiveRecord<T> {
  /** The open file, and which file it is (its fdId: the same for as long as it is open). */
  let file: { fd: number; path: string; bytes: number; id: string } | undefined;
  const close = () => {
    if (file) closeSync(file.fd);
    file = undefined;
  };
  const lineOf = (record: T) => Buffer.from(`${JSON.stringify(record)}\n`);
  /** Appends the line to the file, or writes the whole record to a new one; false when a merge took the file meanwhile. */
  const write = (line: Buffer): boolean => {
    if (!file) {
      trustFolder(dir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${recordFileStem()}${LIVE}${EXTENSION}`);
      const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
      file = { fd, path, bytes: 0, id: fdId(fd) };
      line = lineOf(whole()); // a new file holds everything so far
    }
    file.bytes += writeSync(file.fd, line);
    return pathId(file.path) === file.id; // a merge took the file when the path names another, or none
  };
  return {
    put(change) {
      // A merge took the file as stale (its process idle for long): the record goes to a new one.
      if (!write(lineOf(change))) {
        close();
        write(lineOf(change));
      }
      if (file && file.bytes > LIVE_RESTART_BYTES) {
        const old = file.path;
        close();
        write(lineOf(whole())); // a reader meanwhile sees both files: one record, combined
        rmSync(old, { force: true });
      }
    },
    done() {
      if (!file) return;
      const { path } = file;
      close();
      renameSync(path, join(dir, `${recordFileStem()}${EXTENSION}`));
      mergeIfMany();
    },
  };
}

/** Throws when dir is another user's or others can write to it: its records are not ours to read or add to. */
function trustFolder(dir: string): void {
  const foreign = folderForeignness(dir);
  if (foreign) throw new Error(`the folder ${foreign}`);
}

function isLive(name: string): boolean {
  return name.endsWith(`${LIVE}${EXTENSION}`);
}

/** The names of the record files in dir, none while it does not exist. */
function recordFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(EXTENSION) && !name.startsWith('.'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** One line a record, written whole under a temporary name and renamed into place (0600). */
function writeRecordFile(dir: string, records: StoredRecord[]): void {
  writePrivateFile(join(dir, `${recordFileStem()}${EXTENSION}`), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** A record file's name before its extension, which no other process or call picks. */
function recordFileStem(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${randomHex(4)}`;
}

/**
 * A record file's text; none from what is not a regular file of this user's of a sane size (a FIFO does not
 * block: it is never read), so a merge removes it. 'gone' when a merge removed it since the listing,
 * 'unreadable' when it cannot be opened now (it stays for later).
 */
function readRecordFile(path: string): { text: string } | 'gone' | 'unreadable' {
  const file = readPrivateFile(path, MAX_FILE_BYTES);
  return file === 'not-a-file' || file === 'too-large' || (typeof file === 'object' && 'foreign' in file) ? { text: '' } : file;
}

function parseLine(line: string): unknown {
  try {
    return parseJson(line);
  } catch {
    return undefined; // a torn or foreign line is skipped; the others still count
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
