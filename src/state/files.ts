// Files rep keeps for itself (request records, cached answers): read only when they are regular files
// of a sane size, without following a link or blocking on a FIFO; written whole under a temporary
// name and renamed into place, mode 0600, so a reader in another process sees the old file or the new.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** What reading a private file found: its text, or why there is none. */
export type PrivateFileRead = { text: string } | 'gone' | 'unreadable' | 'not-a-file' | 'too-large';

/**
 * A file's text, if it is a regular file of at most maxBytes. 'gone' when it does not exist,
 * 'unreadable' when it cannot be opened now, 'not-a-file' for a link, FIFO or device (never
 * followed, never blocked on), 'too-large' past maxBytes.
 */
export function readPrivateFile(path: string, maxBytes: number): PrivateFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'gone' : code === 'ELOOP' ? 'not-a-file' : 'unreadable';
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not-a-file';
    if (stat.size > maxBytes) return 'too-large';
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { text: buffer.toString('utf8', 0, read) };
  } catch {
    return 'unreadable';
  } finally {
    closeSync(fd);
  }
}

/** Writes text to path whole (temporary name in the same directory, then rename), mode 0600. Throws when it cannot. */
export function writePrivateFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid.toString(36)}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600); // the umask may have narrowed it already; never widened
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** How the temporary files of writePrivateFile end, so a cleanup can find those a dead process left. */
export const TEMP_SUFFIX = '.tmp';
