// One JSON Lines file that many processes append to at once, kept bounded by compaction. It is one
// file (not a directory of record files like record-store.ts) so a CI cache can carry it between runs.
//
// Why no line is lost:
// - An append is one write() with O_APPEND: the kernel puts it whole at the end of the file.
// - A compaction (under an exclusive lock file) reads the file, writes the kept lines to a temporary
//   file, renames it over the file, then copies whatever was appended to the old file since it read it.
// - An appender checks after writing that the path still names the file it wrote to; if a compaction
//   renamed another file into place meanwhile, it writes its lines again into the new one. A line
//   written before the rename is copied by the compaction or rewritten by its writer, maybe both, so
//   lines carry ids and readers take each id once.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomHex } from './ids.js';

export interface AppendLogLimits {
  /** An append that leaves the file bigger than this compacts it. */
  compactAtBytes: number;
  /** The newest bytes a reader reads at most (older lines of an oversized file are ignored). */
  readCapBytes: number;
}

export interface AppendLog {
  readonly path: string;
  /** The file's lines, oldest first, without empty ones; none while the file does not exist. Throws when it cannot be read. */
  readLines(): string[];
  /** The same lines as one text (a line a newline; empty lines too, as in the file). */
  readText(): string;
  /**
   * Appends the lines (each one JSON text without a newline). Compacts with `compact` (which gets and
   * returns lines, oldest first) when the file has grown past the limit. Throws when it cannot be written.
   */
  append(lines: readonly string[], compact: (lines: string[]) => string[]): void;
}

/** A lock or temporary file older than this was left by a compaction that died (a live one takes a second or two). */
const STALE_LOCK_MS = 10 * 60 * 1000;
/** Rewrites after a compaction renamed the file under an appender; more means compactions never stop. */
const APPEND_ATTEMPTS = 8;

export function openAppendLog(path: string, limits: AppendLogLimits): AppendLog {
  const readText = () => {
    const fd = openExisting(path);
    if (fd === undefined) return '';
    try {
      return readTail(fd, fstatSync(fd).size, limits.readCapBytes);
    } finally {
      closeSync(fd);
    }
  };
  return {
    path,
    readLines: () => linesOf(readText()),
    readText,
    append(lines, compact) {
      if (lines.length === 0) return;
      const size = appendText(path, Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8'));
      if (size <= limits.compactAtBytes) return;
      try {
        compactFile(path, limits, compact);
      } catch {
        // The lines are saved; a later append compacts.
      }
    },
  };
}

/** Writes the text at the end of the file (made 0600 if new), again if a compaction replaced the file meanwhile. Returns the size after. */
function appendText(path: string, text: Buffer): number {
  for (let attempt = 1; ; attempt++) {
    const fd = openForAppend(path);
    try {
      const stat = regularFile(fd, path);
      if ((stat.mode & 0o077) !== 0) narrowMode(fd); // a file restored by a CI cache may come back 0644
      const written = writeSync(fd, text);
      if (written !== text.length) throw new Error(`only ${written} of ${text.length} bytes could be written to ${path}`);
      if (fdId(fd) === pathId(path) || attempt >= APPEND_ATTEMPTS) return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  }
}

function openForAppend(path: string): number {
  const open = () => openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o600);
  try {
    return open();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 }); // the first point: make the directory
    return open();
  }
}

/** Rewrites the file with what `compact` keeps; does nothing while another process compacts. */
function compactFile(path: string, limits: AppendLogLimits, compact: (lines: string[]) => string[]): void {
  const real = realpathSync(path); // a symlinked REP_HISTORY_FILE stays a symlink
  const lock = takeLock(`${real}.lock`);
  if (!lock) return;
  try {
    const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = regularFile(fd, real);
      const kept = compact(linesOf(readTail(fd, stat.size, limits.readCapBytes)));
      const temp = `${real}.${process.pid}.${randomHex(4)}.tmp`;
      try {
        writeFileSync(temp, kept.map((line) => `${line}\n`).join(''), { mode: 0o600, flag: 'wx' });
        // Only a stolen stale lock lets another compaction run: then leave the file to it.
        if (fdId(fd) !== pathId(real) || lock.id !== pathId(lock.path)) return;
        renameSync(temp, real);
      } finally {
        rmSync(temp, { force: true });
      }
      // What was appended to the old file since it was read; its writers may not have seen the rename.
      const tail = readFrom(fd, stat.size);
      if (tail.length > 0) appendText(real, tail);
      removeStaleTemps(real);
    } finally {
      closeSync(fd);
    }
  } finally {
    releaseLock(lock);
  }
}

/** Temporary files of compactions that died, next to the file (its directory may hold other files: only ours go). */
function removeStaleTemps(real: string): void {
  const dir = dirname(real);
  const prefix = `${basename(real)}.`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const stat = statSync(join(dir, name), { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) rmSync(join(dir, name), { force: true });
  }
}

/** 0600, when the file is ours to change; appending matters more than its mode. */
function narrowMode(fd: number): void {
  try {
    fchmodSync(fd, 0o600);
  } catch {
    // Not our file: left as it is.
  }
}

interface Lock {
  path: string;
  id: string;
}

/** The lock file, created exclusively; undefined while another process holds it. A stale one is cleared for a later append. */
function takeLock(path: string): Lock | undefined {
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${process.pid}\n`);
      return { path, id: fdId(fd) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (stat && Date.now() - Number(stat.mtimeMs) > STALE_LOCK_MS) clearStaleLock(path, `${stat.dev}:${stat.ino}`);
    return undefined;
  }
}

/** Moves the stale lock aside and removes it; a fresh lock taken meanwhile (moved by mistake) is put back. */
function clearStaleLock(path: string, staleId: string): void {
  const aside = `${path}.${randomHex(4)}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // another process cleared it first
  }
  try {
    if (pathId(aside) !== staleId) linkSync(aside, path);
  } catch {
    // A third lock exists already: its owner and the moved one's both check the lock before renaming.
  } finally {
    rmSync(aside, { force: true });
  }
}

function releaseLock(lock: Lock): void {
  if (pathId(lock.path) === lock.id) rmSync(lock.path, { force: true });
}

/** A read descriptor for the file, undefined when it does not exist; a FIFO does not block and is refused. */
function openExisting(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    regularFile(fd, path);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function regularFile(fd: number, path: string): Stats {
  const stat = fstatSync(fd);
  if (stat.isFile()) return stat;
  // Worded like Node's own errors, so messages say "is a directory" or "not a regular file".
  const [code, words] = stat.isDirectory() ? ['EISDIR', 'is a directory'] : ['ENOTREG', 'not a regular file'];
  throw Object.assign(new Error(`${code}: ${words}, open '${path}'`), { code });
}

/** The last `cap` bytes before `size`, starting at a line (a partial first line is dropped). */
function readTail(fd: number, size: number, cap: number): string {
  const start = Math.max(0, size - cap);
  const text = readRange(fd, start, size).toString('utf8');
  return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
}

/** Everything from `start` to the end of the file as it is now. */
export function readFrom(fd: number, start: number): Buffer {
  return readRange(fd, start, Math.max(start, fstatSync(fd).size));
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.alloc(end - start);
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** Which file a path names now (device and inode, as bigints: exact), undefined when none. */
function pathId(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat && `${stat.dev}:${stat.ino}`;
}

/** Which file a descriptor is open on. */
function fdId(fd: number): string {
  const stat = fstatSync(fd, { bigint: true });
  return `${stat.dev}:${stat.ino}`;
}
