// One log that many processes append to at once and one at a time rewrites, losing no line whatever
// is killed when: the history's series files and the request ledger's logs. JSON lines, each with an id
// (a line may come to be there twice: readers take each id once).
// - An append is one write() with O_APPEND (the kernel puts it whole at the end), never through a link
//   (O_NOFOLLOW) nor into a FIFO (O_NONBLOCK, then fstat), to a file made 0600. After writing, the
//   path is checked to still name the file written to; if a rewrite renamed another into place
//   meanwhile, the text is written again there.
// - A rewrite (under a lock per log) reads the file, links it aside, renames the kept text into place,
//   copies the tail appended to the old file since the read, and only then lets the aside go. A rewrite
//   killed at any moment leaves the aside, which the next rewrite of that log (or recoverRewrites)
//   merges back: nothing appended is lost.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, extname, join } from 'node:path';
import { ensurePrivateDir, exactFstat, exactLstat, fdId, fileId, foreignness, LocalFileError, pathId, readFrom, readLocalFile } from '../local-file.js';
import { STALE_MS, writePrivateFile } from './files.js';
import { randomHex } from './ids.js';

/** A log kept open for many appends (the ledger's, a line a request). */
export interface LogWriter {
  /**
   * Writes text (a string as UTF-8) at the end of the log (one write; again if a rewrite replaced the
   * file meanwhile); the log's size after. Throws when it cannot.
   */
  append(text: string | Buffer): number;
  /** The file the path named at the last append's check (pathId's form) and its size then; undefined before one. */
  lastChecked(): { id: string; size: number } | undefined;
  /** Closes the file; append() after it opens it again. */
  close(): void;
}

export interface RewriteOptions {
  /** The folder the old file is linked into until its tail is copied (made 0700); its lock is there too. */
  asideDir: string;
  /** A word of [0-9a-z] in the aside's name, given back to recover() (the history's cut-off). */
  tag: string;
  /** The most a log or aside read may hold. */
  maxBytes: number;
  /** The text to put in place of `text` (the log's whole lines as read), or undefined to leave the log as it is. */
  rewrite(text: string): string | undefined;
  /** What of an aside a killed rewrite left (the old file, tail included) the log lacks now: appended back ('' for nothing). */
  recover(aside: string, log: string, tag: string): string;
  /** Tests only: called after each step where a kill must lose nothing. */
  step?(at: 'linked' | 'renamed'): void;
}

/** What a rewrite did: 'busy' when another process's rewrite holds the log (or replaced it first). */
export type RewriteOutcome = 'rewritten' | 'unchanged' | 'busy' | 'missing';

const NEWLINE = 0x0a;
/** Rewrites after a rewrite renamed the file under an appender; more means something else keeps renaming it. */
const APPEND_ATTEMPTS = 8;
/** An aside's name: the log's name before its extension, the tag, a random word, the log's extension. */
const ASIDE_NAME = /^([^.]+)\.([0-9a-z]+)\.[0-9a-f]+(\.[0-9a-z]+)$/;

/** A writer for the log at path: the file stays open between appends, its identity read once. */
export function openLogWriter(path: string): LogWriter {
  let open: { fd: number; id: string } | undefined;
  let checked: { id: string; size: number } | undefined;
  const close = () => {
    const fd = open?.fd;
    open = undefined;
    if (fd !== undefined) closeSync(fd);
  };
  return {
    append(text) {
      // A string goes to the kernel as it is: made into a Buffer first, each write would allocate one.
      const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
      for (let attempt = 1; ; attempt++) {
        try {
          open ??= openForAppend(path);
          // The same call either way: writeSync's overloads take a string or a Buffer, not the union.
          const written = typeof text === 'string' ? writeSync(open.fd, text) : writeSync(open.fd, text);
          if (written !== bytes) throw new Error(`only ${written} of ${bytes} bytes could be written to ${path}`);
        } catch (error) {
          close();
          throw error;
        }
        // One lstat: the file the path names now (a rewrite renames another into place) and its size.
        const now = exactLstat(path);
        checked = now && { id: fileId(now), size: Number(now.size) };
        if (checked?.id === open.id || attempt >= APPEND_ATTEMPTS) return checked?.size ?? 0;
        close(); // written to a file no longer there: again, into the one that is
      }
    },
    lastChecked: () => checked,
    close,
  };
}

/** A log open for reading: its descriptor, which file it is (fileId) and its size when opened. */
export interface LogToRead {
  fd: number;
  id: string;
  size: number;
}

/**
 * The log at path open for reading, or undefined when there is none: never through a link (ELOOP), never
 * a FIFO (O_NONBLOCK, then the kind), never another user's or one others can write. The caller closes it.
 */
export function openLogForReading(path: string): LogToRead | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // One fstat for the kind, the owner and mode, which file it is and its size (a reader opens it for each read).
    const stat = exactFstat(fd);
    if (!stat.isFile()) throw new LocalFileError(`${path} is not a regular file`, 'ENOTREG');
    const foreign = foreignness(stat);
    if (foreign) throw new LocalFileError(`${path} ${foreign}`, 'EFOREIGN');
    return { fd, id: fileId(stat), size: Number(stat.size) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Where a reader of a log that others append to stands: which file, how far it has read whole lines, and the first bytes of the last of them. */
export interface LogPlace {
  id: string;
  read: number;
  mark?: { at: number; bytes: Buffer };
}

/** The first bytes of the last line read (a key, a series, an id), read again before the next tail. */
const MARK_BYTES = 160;

/**
 * The whole lines appended to the open log since `place` (updated), from the byte where they start;
 * all of it anew (`fresh`) when it is another file than the place's: another inode, a shorter one, or
 * other bytes where the last line read began (an inode number given again, a file written again in
 * place). A last line without its line end is being written: it is read next time. `tailBytes` is how
 * much was read.
 */
export function readNewLines(log: LogToRead, place: LogPlace): { bytes: Buffer; from: number; fresh: boolean; tailBytes: number } {
  const { fd, id, size } = log;
  const mark = place.mark;
  const same = place.id === id && size >= place.read && (!mark || readFrom(fd, mark.at, mark.at + mark.bytes.length).equals(mark.bytes));
  if (!same) Object.assign(place, { id, read: 0, mark: undefined });
  const from = place.read;
  if (size === from) return { bytes: Buffer.alloc(0), from, fresh: !same, tailBytes: 0 };
  const tail = readFrom(fd, from, size);
  const whole = tail.lastIndexOf(NEWLINE) + 1;
  if (whole > 0) {
    // Searched back from before the last line end, never from a negative offset (that counts from the end).
    const last = whole >= 2 ? tail.lastIndexOf(NEWLINE, whole - 2) + 1 : 0;
    place.mark = { at: from + last, bytes: Buffer.from(tail.subarray(last, Math.min(whole, last + MARK_BYTES))) };
  }
  place.read += whole;
  return { bytes: tail.subarray(0, whole), from, fresh: !same, tailBytes: tail.length };
}

/** Appends text at the end of the log (created 0600), again if a rewrite replaced the file meanwhile; the size after. Throws when it cannot. */
export function appendToLog(path: string, text: string | Buffer): number {
  const writer = openLogWriter(path);
  try {
    return writer.append(text);
  } finally {
    writer.close();
  }
}

/** The log's text ('' when there is none); only a regular file of this user's, never through a link. Throws when it cannot be read. */
export function readLog(path: string, maxBytes: number): string {
  return readLocalFile(path, maxBytes, { noFollow: true, ownOnly: true }) ?? '';
}

/**
 * Rewrites the log at path with what options.rewrite keeps, losing no line appended meanwhile, and
 * first merges back what a killed rewrite of it left. Throws when it cannot (the log is then whole).
 */
export function rewriteLog(path: string, options: RewriteOptions): RewriteOutcome {
  const stem = stemOf(path);
  const lock = takeLock(options.asideDir, stem);
  if (!lock) return 'busy';
  try {
    recoverStem(options.asideDir, stem, path, options);
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw error;
    }
    try {
      if (!fstatSync(fd).isFile()) throw Object.assign(new Error(`ENOTREG: not a regular file, open '${path}'`), { code: 'ENOTREG' });
      const text = readFrom(fd, 0);
      // A last line without its line end is a write another process is making (a read may see part of
      // one): rewrite() gets whole lines, and those bytes stay as they are after what it keeps, where the
      // rest of them, copied with the tail, ends the line. Left out, the rest would land there alone.
      const whole = text.lastIndexOf(NEWLINE) + 1;
      const kept = options.rewrite(text.toString('utf8', 0, whole));
      if (kept === undefined) return 'unchanged';
      // The old file stays linked aside until its tail is copied: a rewrite killed in between loses nothing.
      const aside = join(options.asideDir, `${stem}.${options.tag}.${randomHex(4)}${extname(path)}`);
      linkSync(path, aside);
      options.step?.('linked');
      // Only if the path still names the file read (a lock cleared by mistake let another rewrite in).
      if (!writePrivateFile(path, Buffer.concat([Buffer.from(kept), text.subarray(whole)]), { beforeRename: () => fdId(fd) === pathId(path) })) {
        rmSync(aside, { force: true });
        return 'busy';
      }
      options.step?.('renamed');
      // What was appended to the old file since it was read; its writers may not have seen the rename.
      const tail = readFrom(fd, text.length);
      if (tail.length > 0) appendToLog(path, tail);
      rmSync(aside, { force: true });
      return 'rewritten';
    } finally {
      closeSync(fd);
    }
  } finally {
    releaseLock(lock);
    removeIfEmpty(options.asideDir);
  }
}

/**
 * Merges back what killed rewrites left in asideDir, each log under its lock (a live rewrite's aside is
 * left to it). `logOf` names the log of an aside's stem (undefined: not ours, left). Never throws:
 * an aside that cannot be merged is kept, and `onFailure` hears its path.
 */
export function recoverRewrites(
  asideDir: string,
  logOf: (stem: string, extension: string) => string | undefined,
  options: Pick<RewriteOptions, 'maxBytes' | 'recover'> & { onFailure?: (aside: string) => void },
): void {
  const stems = new Map<string, string>();
  for (const name of listDir(asideDir)) {
    const match = ASIDE_NAME.exec(name);
    const log = match && logOf(match[1]!, match[3]!);
    if (log) stems.set(match[1]!, log);
  }
  for (const [stem, log] of stems) {
    const lock = takeLockQuietly(asideDir, stem);
    if (!lock) continue; // a live rewrite's: left to it
    try {
      recoverStem(asideDir, stem, log, options);
    } catch {
      for (const name of listDir(asideDir)) if (ASIDE_NAME.exec(name)?.[1] === stem) options.onFailure?.(join(asideDir, name));
    } finally {
      releaseLock(lock);
    }
  }
  removeIfEmpty(asideDir);
}

/** The texts of the asides of the log at path (a live or killed rewrite's old file): readers that must miss no line read them too. */
export function readAsides(asideDir: string, path: string, maxBytes: number): string[] {
  const stem = stemOf(path);
  return listDir(asideDir)
    .filter((name) => ASIDE_NAME.exec(name)?.[1] === stem)
    .flatMap((name) => {
      try {
        return [readLog(join(asideDir, name), maxBytes)];
      } catch {
        return []; // gone meanwhile: merged back
      }
    });
}

/** The lines of a killed rewrite's old file (`aside`) that the log lacks, for a `recover` that keeps every line: one there already would only be read twice. */
export function linesMissing(aside: string, log: string): string {
  const have = new Set(log.split('\n'));
  let out = '';
  for (const line of aside.split('\n')) if (line && !have.has(line)) out += `${line}\n`;
  return out;
}

/** Merges each aside of one log back into it, then removes it; the caller holds the log's lock. Throws when one cannot be. */
function recoverStem(asideDir: string, stem: string, path: string, options: Pick<RewriteOptions, 'maxBytes' | 'recover'>): void {
  for (const name of listDir(asideDir)) {
    const match = ASIDE_NAME.exec(name);
    if (match?.[1] !== stem) continue;
    const aside = join(asideDir, name);
    const log = readLog(path, options.maxBytes);
    const back = options.recover(readLog(aside, options.maxBytes), log, match[2]!);
    // After a line end: a last line a killed writer left unfinished would take the first line given back with it.
    if (back.length > 0) appendToLog(path, log === '' || log.endsWith('\n') ? back : `\n${back}`);
    unlinkSync(aside);
  }
}

function openForAppend(path: string): { fd: number; id: string } {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  try {
    // One fstat tells the kind, the mode and which file this is (for the check after each write).
    const stat = exactFstat(fd);
    if (!stat.isFile()) throw Object.assign(new Error(`ENOTREG: not a regular file, open '${path}'`), { code: 'ENOTREG' });
    if ((Number(stat.mode) & 0o077) !== 0) fchmodSync(fd, 0o600); // a file restored by a CI cache may come back 0644
    return { fd, id: fileId(stat) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

interface Lock {
  path: string;
  id: string;
}

/**
 * The log's rewrite lock (asideDir/STEM.lock, holding the pid), or undefined while a live process holds
 * it. A lock whose process is gone, or older than STALE_MS, was left by a killed rewrite: cleared, and
 * taken. (A pid is this machine's: a lock taken on another sharing the folder may be cleared early; the
 * identity check before the rename still keeps its rewrite from being undone.)
 */
function takeLock(asideDir: string, stem: string): Lock | undefined {
  const path = join(asideDir, `${stem}.lock`);
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      ensurePrivateDir(asideDir);
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
        return { path, id: fdId(fd) };
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue; // another process removed the empty folder meanwhile
      if (code !== 'EEXIST') throw error;
      const stale = staleLockId(path);
      if (!stale) return undefined;
      clearStaleLock(path, stale);
    }
  }
  return undefined;
}

function takeLockQuietly(asideDir: string, stem: string): Lock | undefined {
  try {
    return takeLock(asideDir, stem);
  } catch {
    return undefined;
  }
}

/** The lock's identity when it was left by a process that is gone (or long ago), else undefined. */
function staleLockId(path: string): string | undefined {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!stat) return undefined;
  const id = fileId(stat);
  if (Date.now() - Number(stat.mtimeMs) > STALE_MS) return id;
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return Date.now() - Number(stat.mtimeMs) > 10_000 ? id : undefined; // a lock still being written has no pid yet
  if (pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? id : undefined;
  }
}

/** Moves the stale lock aside and removes it; a fresh lock taken meanwhile (moved by mistake) is put back. */
function clearStaleLock(path: string, staleId: string): void {
  const moved = `${path}.${randomHex(4)}.stale`;
  try {
    renameSync(path, moved);
  } catch {
    return; // another process cleared it first
  }
  try {
    if (pathId(moved) !== staleId) linkSync(moved, path);
  } catch {
    // A third lock exists already: both rewrites still check the file before renaming.
  } finally {
    rmSync(moved, { force: true });
  }
}

function releaseLock(lock: Lock): void {
  if (pathId(lock.path) === lock.id) rmSync(lock.path, { force: true });
}

/** The aside folder goes when nothing is in it (a reader then need not look): never one in use. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (a lock, a killed rewrite's aside), or gone.
  }
}

function stemOf(path: string): string {
  const name = basename(path);
  return name.slice(0, name.length - extname(name).length);
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // none (the common case)
  }
}
