// One series file of the local history: JSON lines, appended with O_APPEND (one write() per append,
// which the kernel puts whole at the end), never through a link (O_NOFOLLOW), mode 0600. A prune
// rewrites it under a new name and renames it into place; an appender that wrote to the old file
// meanwhile sees the path name another file and writes its lines again (readers take each id once).
import { closeSync, constants, fchmodSync, fstatSync, openSync, writeSync } from 'node:fs';
import { pathId, readLocalFile } from '../../local-file.js';

/** Rewrites after a prune renamed the file under an appender; more means something else keeps renaming it. */
const APPEND_ATTEMPTS = 8;
/** A series is one company's points: years of daily points are well under this. */
export const MAX_SERIES_BYTES = 256 * 1024 * 1024;

/** Appends text at the end of the file (created 0600), again if a rename replaced the file meanwhile. Throws when it cannot. */
export function appendToFile(path: string, text: Buffer): void {
  for (let attempt = 1; ; attempt++) {
    const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    try {
      // One fstat tells the kind, the mode and which file this is (for the check after writing).
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) throw Object.assign(new Error(`ENOTREG: not a regular file, open '${path}'`), { code: 'ENOTREG' });
      if ((stat.mode & 0o077n) !== 0n) fchmodSync(fd, 0o600); // a file restored by a CI cache may come back 0644
      const written = writeSync(fd, text);
      if (written !== text.length) throw new Error(`only ${written} of ${text.length} bytes could be written to ${path}`);
      if (`${stat.dev}:${stat.ino}` === pathId(path) || attempt >= APPEND_ATTEMPTS) return;
    } finally {
      closeSync(fd);
    }
  }
}

/** The file's text ('' when there is none); never through a link. Throws when it cannot be read. */
export function readSeriesText(path: string): string {
  return readLocalFile(path, MAX_SERIES_BYTES, { noFollow: true, ownOnly: true }) ?? '';
}
