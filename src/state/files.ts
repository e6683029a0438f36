// Files rep keeps for itself (request records, cached answers): read only when they are regular files
// of a sane size, without following a link or blocking on a FIFO; written whole under a temporary
// name and renamed into place, mode 0600, so a reader in another process sees the old file or the new.
import { chmodSync, lstatSync, opendirSync, rename, renameSync, rmSync, writeFile, writeFileSync, type Dir } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LocalFileError, readLocalFile } from '../local-file.js';
import { randomHex } from './ids.js';

/** What reading a private file found: its text, or why there is none. */
export type PrivateFileRead = { text: string } | 'gone' | 'unreadable' | 'not-a-file' | 'too-large' | { foreign: string };

/**
 * A file's text, if it is a regular file of this user's of at most maxBytes that no one else can
 * write. 'gone' when it does not exist, 'unreadable' when it cannot be opened now, 'not-a-file' for a
 * link, FIFO or device (never followed, never blocked on), 'too-large' past maxBytes, `foreign` (why,
 * in words) for a file of another user's or one others can write (checked on the open file).
 * `dirIsFolder`: the caller has just seen path's folder to be one (readLocalFile).
 */
export function readPrivateFile(path: string, maxBytes: number, dirIsFolder = false): PrivateFileRead {
  try {
    const text = readLocalFile(path, maxBytes, { noFollow: true, ownOnly: true, dirIsFolder });
    return text === undefined ? 'gone' : { text };
  } catch (error) {
    if (error instanceof LocalFileError) return error.code === 'EFOREIGN' ? { foreign: error.message } : error.code === 'EFBIG' ? 'too-large' : 'not-a-file';
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'gone' : code === 'ELOOP' ? 'not-a-file' : 'unreadable';
  }
}

/**
 * Writes text to path whole (temporary name in the same directory, then rename), mode 0600. With
 * `beforeRename`, the file takes path's place only if it says yes (a check that path is still the file
 * the text was made from); returns whether it did. Throws when it cannot.
 */
export function writePrivateFile(path: string, text: string | Buffer, options: { beforeRename?: () => boolean } = {}): boolean {
  const temp = tempPathFor(path);
  let renamed = false;
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600); // the umask may have narrowed it already; never widened
    if (options.beforeRename && !options.beforeRename()) return false;
    renameSync(temp, path);
    renamed = true;
    return true;
  } finally {
    if (!renamed) rmSync(temp, { force: true });
  }
}

/**
 * writePrivateFile with the file calls on libuv's threads: the event loop goes on meanwhile (a batch's
 * other requests), where creating a file can take a millisecond. Created 0600 with no chmod after:
 * a umask can only narrow that, and each call is a hop to a thread. Rejects when it cannot.
 */
export async function writePrivateFileAsync(path: string, text: string): Promise<void> {
  const temp = tempPathFor(path);
  const step = (call: (done: (error: Error | null) => void) => void) =>
    new Promise<void>((resolve, reject) => call((error) => (error ? reject(error) : resolve())));
  try {
    await step((done) => writeFile(temp, text, { mode: 0o600, flag: 'wx' }, done));
    await step((done) => rename(temp, path, done));
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Creates path with text when no file is there (one file made, no rename): false when something is
 * (EEXIST; a link included, never followed), which writePrivateFileAsync then replaces whole. A reader
 * may meet the new file before its last byte: only for files whose readers find a cut-off one by
 * its checksum (the answer cache's entries), and take it for a miss. Throws on any other failure.
 */
export function createPrivateFile(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A temporary name beside path that no other process or call picks. */
function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid.toString(36)}-${randomHex(4)}${TEMP_SUFFIX}`);
}

/** How the temporary files of writePrivateFile end, so a cleanup can find those a dead process left. */
export const TEMP_SUFFIX = '.tmp';

/** A temporary file, a lock or a claimed counter older than this was left by a process that died (every folder's cleanup goes by it). */
export const STALE_MS = 60 * 60 * 1000;

/**
 * Removes what dead processes left in dir: the files `isLeftover` names (by default writePrivateFile's
 * temporary files) not changed for STALE_MS. The one cleanup every folder of rep's uses. Never throws.
 */
export function removeStaleFiles(dir: string, isLeftover: (name: string) => boolean = (name) => name.endsWith(TEMP_SUFFIX), now = Date.now()): void {
  try {
    forEachName(dir, (name) => {
      if (!isLeftover(name)) return;
      try {
        const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
        if (stat && now - stat.mtimeMs > STALE_MS) rmSync(join(dir, name), { force: true });
      } catch {
        // Gone meanwhile, or not ours to remove: the next cleanup tries again.
      }
    });
  } catch {
    // Unreadable: the next cleanup tries again.
  }
}

/**
 * Calls fn with each name in dir as the listing reads it, a few at a time: a folder of 100,000 answers
 * or series is never held as one array of names (which lived long enough for V8 to promote it). None when
 * dir does not exist; throws when it cannot be read. fn returning true stops the listing there; whether
 * one did.
 */
export function forEachName(dir: string, fn: (name: string) => unknown): boolean {
  let listing: Dir;
  try {
    listing = opendirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) if (fn(entry.name) === true) return true;
    return false;
  } finally {
    listing.closeSync();
  }
}
