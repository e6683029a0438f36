// Records that many processes add to at once without losing one. Each add is a new file, written
// whole under a temporary name and renamed into place, never changed after. Now and then one process
// merges the files into one and removes the files it read. Every record has an id, so merges that
// race each other at worst hold the same record twice, and a reader takes each id once. Nothing
// waits on a lock: the lock below only keeps processes from merging the same files at once.
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { folderForeignness } from '../local-file.js';
import { readPrivateFile, TEMP_SUFFIX, writePrivateFile } from './files.js';
import { randomHex } from './ids.js';

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
}

export interface RecordStore<T extends StoredRecord> {
  /** Every record, each id once. Throws when the directory exists but cannot be read. */
  read(): T[];
  /** Adds the records as one new file, merging when files pile up. Throws when it cannot be written. */
  add(records: T[]): void;
}

const EXTENSION = '.jsonl';
/** A file this big is no file of ours: skipped, and removed by the next merge. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** A merge lock or a temporary file older than this was left by a process that died. */
const STALE_MS = 60 * 60 * 1000;
const LOCK = '.merging';
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
          if (record && !records.has(record.id)) records.set(record.id, record);
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
      for (const name of files) rmSync(join(dir, name), { force: true });
      for (const name of readdirSync(dir)) if (name.endsWith(TEMP_SUFFIX) && ageMs(join(dir, name)) > STALE_MS) rmSync(join(dir, name), { force: true });
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }

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
      try {
        if (recordFiles(dir).length >= options.mergeAt) merge();
      } catch {
        // The records are saved; the files a failed merge left are merged by a later one.
      }
    },
  };
}

/** Throws when dir is another user's or others can write to it: its records are not ours to read or add to. */
function trustFolder(dir: string): void {
  const foreign = folderForeignness(dir);
  if (foreign) throw new Error(`the folder ${foreign}`);
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
  const name = `${Date.now().toString(36)}-${process.pid.toString(36)}-${randomHex(4)}${EXTENSION}`;
  writePrivateFile(join(dir, name), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
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
    return JSON.parse(line) as unknown;
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
