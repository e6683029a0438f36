// The answer cache's directory as a whole: listing, counting, clearing, and keeping it within its
// bound (cache-limits.ts). Eviction costs no scan on a hit, and none on most puts: every put adds one
// byte to a shared counter file (the puts of one turn of the event loop in one write), and the put that
// brings it to the count the last measurement allows renames it away (only one process can), measures
// the folder, evicts the least recently used and writes down what is left (.usage), so the folder is
// listed a few times per batch, not every N puts.
import { closeSync, constants, fstatSync, lstatSync, lutimesSync, openSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { type CacheLimits, type CacheUsage, diskBytes, evictionVictims, putsBeforeCheck } from './cache-limits.js';
import { JOURNAL_DIR } from './answer-journal.js';
import { forEachName, readPrivateFile, removeStaleFiles, writePrivateFile } from './files.js';
import { randomHex } from './ids.js';
import { parseJson } from '../text.js';

const ENTRY_NAME = /^[0-9a-f]{64}\.answer$/;
/** writePrivateFile's temporary names for entries. */
const TEMP_NAME = /^\.([0-9a-f]{64}\.answer|\.usage)\..*\.tmp$/;
const PUTS = '.puts';
const USAGE = '.usage';

export interface EntryFile {
  name: string;
  size: number;
  /** Its bytes on disk (diskBytes): what the bound counts. */
  bytes: number;
  /** When it was last stored or read: a hit touches it (touchEntry). */
  usedAt: number;
}

/** The entries in dir (regular files with an entry's name); none when dir does not exist. Throws when it cannot be read. */
export function listEntries(dir: string): EntryFile[] {
  const entries: EntryFile[] = [];
  forEachName(dir, (name) => {
    const entry = entryFile(dir, name);
    if (entry) entries.push(entry);
  });
  return entries;
}

/** How many entries dir has and their bytes on disk, as listEntries would sum them, without the list. Throws when it cannot be read. */
function measureEntries(dir: string): CacheUsage {
  const usage = { entries: 0, bytes: 0 };
  forEachName(dir, (name) => {
    const entry = entryFile(dir, name);
    if (!entry) return;
    usage.entries += 1;
    usage.bytes += entry.bytes;
  });
  return usage;
}

function entryFile(dir: string, name: string): EntryFile | undefined {
  const stat = ENTRY_NAME.test(name) ? statOf(join(dir, name)) : undefined;
  return stat?.isFile() ? { name, size: stat.size, bytes: diskBytes(stat.size, stat.blocks), usedAt: stat.mtimeMs } : undefined;
}

/**
 * Whether dir has a name an entry could have, or a journal, read until the first one: a folder that has none (a first
 * batch's, which holds only the code cache) answers many lookups with one listing, not a look each.
 * True when it cannot tell (gone meanwhile: none). Never throws.
 */
export function holdsEntries(dir: string): boolean {
  try {
    return forEachName(dir, (name) => ENTRY_NAME.test(name) || name === JOURNAL_DIR);
  } catch {
    return true;
  }
}

/** Marks an entry used now (its mtime; the stored time is in the entry itself), so eviction goes by last use. Never throws. */
export function touchEntry(path: string): void {
  const now = Date.now() / 1000;
  try {
    lutimesSync(path, now, now);
  } catch {
    // Gone meanwhile, or not ours to touch: it ages as if unread.
  }
}

/** Removes every entry (and rep's temporary files); returns how many entries went. Other files stay. */
export function removeEntries(dir: string): number {
  let removed = 0;
  forEachName(dir, (name) => {
    if (TEMP_NAME.test(name) || name === PUTS || name === USAGE || name.startsWith(`${PUTS}.`)) removeFile(join(dir, name));
    else if (ENTRY_NAME.test(name) && removeFile(join(dir, name))) removed++;
  });
  return removed;
}

/** The measurement the count of each folder was last compared with, and the count then. */
const measured = new Map<string, { usage: CacheUsage | undefined; count: number }>();

/** The puts of this turn of the event loop not counted yet, per folder, and when they are. */
const uncounted = new Map<string, { puts: number; counted: Promise<void> }>();

/**
 * Counts a put with the others of this turn of the event loop (a batch stores a few answers a turn):
 * one write and one fstat for them all, and then the eviction if it is due (evictOnce). Resolves once
 * that is done; never rejects. The first put of a turn gives the limits and the protection.
 */
export function countPut(dir: string, limits: CacheLimits, protectedSince: () => number): Promise<void> {
  let turn = uncounted.get(dir);
  if (!turn) {
    const puts = { puts: 0 };
    const counted = new Promise<void>((resolve) =>
      setImmediate(() => {
        uncounted.delete(dir);
        if (putDue(dir, limits, puts.puts)) evictOnce(dir, limits, protectedSince());
        resolve();
      }),
    );
    turn = Object.assign(puts, { counted });
    uncounted.set(dir, turn);
  }
  turn.puts += 1;
  return turn.counted;
}

/** Counts `puts` puts; true when they should measure the folder and evict (putsBeforeCheck). Never throws. */
function putDue(dir: string, limits: CacheLimits, puts = 1): boolean {
  const count = addPuts(dir, puts);
  if (count === 0) return false;
  let known = measured.get(dir);
  // A count lower than the last seen: another process measured meanwhile, so its .usage is newer.
  if (!known || count < known.count) known = { usage: readUsage(dir), count };
  known.count = count;
  measured.set(dir, known);
  return count >= putsBeforeCheck(known.usage, limits);
}

/**
 * The put count's file, kept open per folder for the process: a put then costs a write and an fstat,
 * not five calls. Opened again once the file went (nlink 0: an eviction claimed and removed it, a clear).
 */
const putCounters = new Map<string, number>();

/** Adds `puts` to the put count; returns the count (0 when it cannot be kept: eviction waits for another put). */
function addPuts(dir: string, puts: number): number {
  const held = putCounters.get(dir);
  if (held !== undefined) {
    const count = addTo(held, puts);
    if (count > 0) return count;
    putCounters.delete(dir);
    closeQuietly(held);
  }
  let fd: number;
  try {
    fd = openSync(join(dir, PUTS), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch {
    return 0;
  }
  let count = 0;
  try {
    if (fstatSync(fd).isFile()) count = addTo(fd, puts);
  } catch {
    // Not counted.
  }
  // Windows cannot rename a file that is open: there it is opened a put at a time.
  if (count > 0 && process.platform !== 'win32') putCounters.set(dir, fd);
  else closeQuietly(fd);
  return count;
}

/** Writes a byte a put to the open count; its size then, or 0 when that failed or the file went (nlink 0). */
function addTo(fd: number, puts: number): number {
  try {
    writeSync(fd, '.'.repeat(puts));
    const stat = fstatSync(fd);
    return stat.nlink > 0 ? stat.size : 0;
  } catch {
    return 0;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
}

/** Evicts in the one process that renames the put count away (the others find it gone); never throws. */
function evictOnce(dir: string, limits: CacheLimits, protectedSince: number): void {
  const claimed = join(dir, `${PUTS}.${process.pid.toString(36)}-${randomHex(4)}`);
  try {
    renameSync(join(dir, PUTS), claimed);
  } catch {
    return;
  }
  try {
    const usage = evict(dir, limits, protectedSince);
    writePrivateFile(join(dir, USAGE), JSON.stringify(usage));
    measured.set(dir, { usage, count: 0 });
  } catch {
    // The answer is stored; a later put evicts.
  } finally {
    removeFile(claimed);
  }
}

/** Removes the least recently used entries past the bound, and what dead processes left; returns what is left. */
function evict(dir: string, limits: CacheLimits, protectedSince: number): CacheUsage {
  // Most measurements find the folder within its bound: then it is counted as it is read, and only a
  // folder past it is listed (a batch measures a folder of up to 100,000 entries a few times).
  const usage = measureEntries(dir);
  const left = usage.bytes > limits.maxBytes ? evictFrom(dir, listEntries(dir), limits, protectedSince) : usage;
  removeStaleFiles(dir, (name) => TEMP_NAME.test(name) || name.startsWith(`${PUTS}.`));
  return left;
}

/** Removes the least recently used of the entries listed, past the bound; returns what is left. */
function evictFrom(dir: string, entries: EntryFile[], limits: CacheLimits, protectedSince: number): CacheUsage {
  const victims = new Set(evictionVictims(entries, limits, protectedSince));
  let left = { entries: 0, bytes: 0 };
  for (const entry of entries) {
    const path = join(dir, entry.name);
    // Looked at again: another process may have read it since the listing.
    const gone = victims.has(entry.name) && (statOf(path)?.mtimeMs ?? 0) <= entry.usedAt && removeFile(path);
    if (!gone) left = { entries: left.entries + 1, bytes: left.bytes + entry.bytes };
  }
  return left;
}

/** The folder as last measured (.usage), if it was and the file is sane. */
function readUsage(dir: string): CacheUsage | undefined {
  const file = readPrivateFile(join(dir, USAGE), 1024);
  if (typeof file !== 'object' || !('text' in file)) return undefined;
  try {
    const usage = parseJson(file.text) as Partial<CacheUsage>;
    return Number.isSafeInteger(usage.entries) && Number.isSafeInteger(usage.bytes) ? (usage as CacheUsage) : undefined;
  } catch {
    return undefined;
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined; // removed meanwhile by another process
  }
}

/**
 * Removes a file of the cache's; false when there was none. Not rmSync: on Node 22 it loads Node's
 * rimraf and lstats the path twice, which every put that evicts or drops an entry would pay.
 */
export function removeFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
