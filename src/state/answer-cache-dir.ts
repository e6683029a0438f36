// The answer cache's directory as a whole: listing, counting, clearing, and keeping it within its
// bound. Eviction costs no scan on a hit: every put adds one byte to a shared counter file, and the
// put that brings it to `evictEvery` renames it away (only one process can) and evicts the oldest.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { CacheLimits } from './answer-cache.js';
import { randomHex } from './ids.js';

export const ENTRY_EXTENSION = '.answer';
const ENTRY_NAME = /^[0-9a-f]{64}\.answer$/;
/** writePrivateFile's temporary names for entries. */
const TEMP_NAME = /^\.[0-9a-f]{64}\.answer\..*\.tmp$/;
const PUTS = '.puts';
/** A temporary file or a claimed counter older than this was left by a process that died. */
const STALE_MS = 60 * 60 * 1000;

export interface EntryFile {
  name: string;
  size: number;
  mtimeMs: number;
}

/** The entries in dir (regular files with an entry's name); none when dir does not exist. Throws when it cannot be read. */
export function listEntries(dir: string): EntryFile[] {
  return listNames(dir).flatMap((name) => {
    const stat = ENTRY_NAME.test(name) ? statOf(join(dir, name)) : undefined;
    return stat?.isFile() ? [{ name, size: stat.size, mtimeMs: stat.mtimeMs }] : [];
  });
}

/** Removes every entry (and rep's temporary files); returns how many entries went. Other files stay. */
export function removeEntries(dir: string): number {
  let removed = 0;
  for (const name of listNames(dir)) {
    if (TEMP_NAME.test(name) || name === PUTS || name.startsWith(`${PUTS}.`)) removeFile(join(dir, name));
    else if (ENTRY_NAME.test(name) && removeFile(join(dir, name))) removed++;
  }
  return removed;
}

/** Adds one to the put count; returns the count (0 when it cannot be kept: eviction waits for another put). */
export function countPut(dir: string): number {
  let fd: number;
  try {
    fd = openSync(join(dir, PUTS), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch {
    return 0;
  }
  try {
    if (!fstatSync(fd).isFile()) return 0;
    writeSync(fd, '.');
    return fstatSync(fd).size;
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Evicts in the one process that renames the put count away (the others find it gone); never throws. */
export function evictOnce(dir: string, limits: CacheLimits): void {
  const claimed = join(dir, `${PUTS}.${process.pid.toString(36)}-${randomHex(4)}`);
  try {
    renameSync(join(dir, PUTS), claimed);
  } catch {
    return;
  }
  try {
    evict(dir, limits);
  } catch {
    // The answer is stored; a later put evicts.
  } finally {
    removeFile(claimed);
  }
}

/** Keeps the newest entries within the limits and removes the rest, and what dead processes left. */
function evict(dir: string, limits: CacheLimits): void {
  const entries = listEntries(dir).sort((a, b) => b.mtimeMs - a.mtimeMs);
  let kept = 0;
  let bytes = 0;
  for (const entry of entries) {
    if (kept < limits.maxEntries && bytes + entry.size <= limits.maxBytes) {
      kept++;
      bytes += entry.size;
    } else {
      removeFile(join(dir, entry.name));
    }
  }
  const now = Date.now();
  for (const name of listNames(dir)) {
    if (!TEMP_NAME.test(name) && !name.startsWith(`${PUTS}.`)) continue;
    const stat = statOf(join(dir, name));
    if (stat && now - stat.mtimeMs > STALE_MS) removeFile(join(dir, name));
  }
}

/** The names in dir; none when it does not exist. */
function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
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
