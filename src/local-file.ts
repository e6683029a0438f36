// Reading rep's own files (config, state): only regular files, and only up to a size cap. A FIFO
// would block open() until a writer came (deaf even to SIGTERM), and /dev/zero never ends.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

const CHUNK_BYTES = 64 * 1024;

/** Why a file was not read: `ENOTREG` (not a regular file) or `EFBIG` (over the cap); message in words. */
export class LocalFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'EFBIG',
  ) {
    super(message);
    this.name = 'LocalFileError';
  }
}

/**
 * The text of a regular file of at most maxBytes, or undefined when there is no file (a link to none
 * included, unless `noFollow`); symlinks are followed unless `noFollow` (then a link fails with ELOOP).
 * Throws LocalFileError for anything else, and fs errors (EACCES, …) as they come.
 */
export function readLocalFile(path: string, maxBytes: number, options: { noFollow?: boolean } = {}): string | undefined {
  if (plainlyMissing(path, options.noFollow === true)) return undefined;
  // O_NONBLOCK: opening a FIFO returns at once, so fstat can refuse it (it is not used for reading).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? constants.O_NOFOLLOW : 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new LocalFileError(`is ${kindOf(stat)}, not a regular file`, 'ENOTREG');
    const chunks: Buffer[] = [];
    let total = 0;
    // The first read asks for a byte more than the file's size: a file that did not change meanwhile is
    // read in one call into a buffer of its size. Any other (grown, or sized 0 like procfs) reads on to its end.
    let want = Math.min(stat.size, maxBytes) + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(want);
      const read = readSync(fd, chunk, 0, want, null);
      total += read;
      if (total > maxBytes) throw new LocalFileError(`is larger than ${formatBytes(maxBytes)}`, 'EFBIG');
      if (read > 0) chunks.push(chunk.subarray(0, read));
      if (read === 0 || (read < want && total === stat.size)) break;
      want = CHUNK_BYTES;
    }
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether there is nothing at path and nothing wrong on the way to it. No file is common (no config
 * yet, a question not asked before): stats find that cheaply, where the ENOENT that open() throws
 * costs a run's first exception, dearest on Node 20 (docs/performance.md). Node 22+ says "nothing"
 * for a file where a folder of the path should be (ENOTDIR) too, so the nearest thing that exists on the
 * way up must be a folder; otherwise open() names what is wrong. (A file made or removed meanwhile is
 * open()'s to find, as before.)
 */
function plainlyMissing(path: string, noFollow: boolean): boolean {
  if ((noFollow ? lstatSync : statSync)(path, { throwIfNoEntry: false })) return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const found = statSync(dir, { throwIfNoEntry: false });
    if (found) return found.isDirectory();
    if (dirname(dir) === dir) return false;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${bytes} bytes`;
}
