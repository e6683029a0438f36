// Reading rep's own files (config, state): only regular files, and only up to a size cap. A FIFO
// would block open() until a writer came (deaf even to SIGTERM), and /dev/zero never ends.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { dirname } from 'node:path';

const CHUNK_BYTES = 64 * 1024;

/** Why a file was not read: `ENOTREG` (not a regular file), `EFBIG` (over the cap) or `EFOREIGN` (see foreignness); message in words. */
export class LocalFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'EFBIG' | 'EFOREIGN',
  ) {
    super(message);
    this.name = 'LocalFileError';
  }
}

/**
 * The text of a regular file of at most maxBytes, or undefined when there is no file (a link to none
 * included, unless `noFollow`); symlinks are followed unless `noFollow` (then a link fails with ELOOP).
 * Throws LocalFileError for anything else, and fs errors (EACCES, …) as they come. `dirIsFolder`: the
 * caller has just seen path's folder to be a folder, so a path that is not there needs no walk up.
 */
export function readLocalFile(
  path: string,
  maxBytes: number,
  options: { noFollow?: boolean; ownOnly?: boolean; dirIsFolder?: boolean } = {},
): string | undefined {
  if (plainlyMissing(path, options.noFollow === true, options.dirIsFolder === true)) return undefined;
  // O_NONBLOCK: opening a FIFO returns at once, so fstat can refuse it (it is not used for reading).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? constants.O_NOFOLLOW : 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new LocalFileError(`is ${kindOf(stat)}, not a regular file`, 'ENOTREG');
    const foreign = options.ownOnly ? foreignness(stat) : undefined;
    if (foreign) throw new LocalFileError(foreign, 'EFOREIGN');
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
    return utf8Text(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  } finally {
    closeSync(fd);
  }
}

/**
 * Why a file or folder of rep's state is not this user's to trust, in words (`is owned by another user
 * (uid 1001)`), or undefined when it is: it must be theirs and not writable by group or others (a
 * sticky folder, like /tmp, is not). Files another user can write are not ours to trust (POSIX only).
 */
export function foreignness(stat: Stats | BigIntStats, ownerOnly = false): string | undefined {
  const uid = ownUid();
  if (uid === undefined) return undefined;
  // A bigint stat too (a shard's one fstat tells its identity as well): uid and mode are small numbers.
  const mode = Number(stat.mode);
  if (Number(stat.uid) !== uid) return `is owned by another user (uid ${stat.uid})`;
  if (!ownerOnly && (mode & 0o022) !== 0 && !(stat.isDirectory() && mode & 0o1000)) return `is writable by other users (mode ${(mode & 0o777).toString(8)})`;
  return undefined;
}

let uidAsked: { uid: number | undefined } | undefined;
/** This process's user id (none on Windows), asked once: rep never changes it, and a journal's reader checks each shard it opens. */
function ownUid(): number | undefined {
  uidAsked ??= { uid: process.getuid?.() };
  return uidAsked.uid;
}

/**
 * Why the folder of rep's state at dir (a link to one counts as it) is not this user's to trust, or
 * undefined when it is or is not there yet. A link another user made is never followed.
 */
export function folderForeignness(dir: string, ownerOnly = false): string | undefined {
  const link = lstatSync(dir, { throwIfNoEntry: false });
  if (!link) return undefined;
  if (link.isSymbolicLink()) {
    if (process.getuid && link.uid !== process.getuid()) return `is a link another user made (uid ${link.uid})`;
    const target = statSync(dir, { throwIfNoEntry: false });
    return target ? foreignness(target, ownerOnly) : undefined;
  }
  return foreignness(link, ownerOnly);
}

/**
 * Why the state file at path (a link of the user's own is followed) or its folder is not the user's to
 * trust, in words (`it is owned by …`, `its folder /x is …`); undefined when both are, or are not there yet.
 * `ownerOnly`: one of the user's that others can write counts as theirs (the config, which rep tightens).
 */
export function fileForeignness(path: string, ownerOnly = false): string | undefined {
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link?.isSymbolicLink() && process.getuid && link.uid !== process.getuid()) return `it is a link another user made (uid ${link.uid})`;
  const stat = link && statSync(path, { throwIfNoEntry: false });
  const own = stat && foreignness(stat, ownerOnly);
  if (own) return `it ${own}`;
  const dir = dirname(stat ? realpathSync(path) : path);
  const folder = folderForeignness(dir, ownerOnly);
  return folder && `its folder ${dir} ${folder}`;
}

/**
 * `check` (a foreignness) run once, when first asked; `onForeign` hears its reason once. One that cannot
 * look (an unreadable folder) counts as trusted: each read and write then finds that for itself.
 */
export function foreignnessOnce(check: () => string | undefined, onForeign: (reason: string) => void): () => string | undefined {
  let result: { reason: string | undefined } | undefined;
  return () => {
    if (!result) {
      try {
        result = { reason: check() };
      } catch {
        result = { reason: undefined };
      }
      if (result.reason) onForeign(result.reason);
    }
    return result.reason;
  };
}

/**
 * Makes dir (mode 0700) and tightens an existing folder of this user's that others can reach; never
 * through a link (a link of the user's own is followed, its target left as it is), and never a shared
 * folder (sticky bit, like /tmp) or another user's: those are not rep's to change.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const fd = openDirectory(dir);
  if (fd === undefined) return;
  try {
    const stat = fstatSync(fd);
    if (stat.mode & 0o077 && stat.uid === process.getuid?.() && !(stat.mode & 0o1000)) fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/**
 * The folder itself, opened for fstat and fchmod; undefined for a link (O_NOFOLLOW: ELOOP, or ENOTDIR
 * where, as on Linux, O_DIRECTORY is checked first on the link itself).
 */
function openDirectory(dir: string): number | undefined {
  try {
    return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || (code === 'ENOTDIR' && lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink())) return undefined;
    throw error;
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
function plainlyMissing(path: string, noFollow: boolean, dirIsFolder: boolean): boolean {
  if ((noFollow ? lstatSync : statSync)(path, { throwIfNoEntry: false })) return false;
  if (dirIsFolder) return true;
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

/** Which file a path names now (device and inode, as bigints: exact), undefined when none. */
export function pathId(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat && fileId(stat);
}

/** Which file a descriptor is open on (as pathId says it). */
export function fdId(fd: number): string {
  return fileId(exactFstat(fd));
}

/** Which file a stat with exact numbers (bigints, or exactLstat's) is of: its device and inode, as pathId and fdId say it. */
export function fileId(stat: { dev: number | bigint; ino: number | bigint }): string {
  return `${stat.dev}:${stat.ino}`;
}

/**
 * lstat with exact device and inode numbers (fileId), undefined when nothing is there: plain numbers,
 * which need no BigInt a call (an append checks its file after each write), unless one is past 2^53,
 * where a number is no longer exact; then asked again as bigints.
 */
export function exactLstat(path: string): Stats | BigIntStats | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat === undefined || isExact(stat) ? stat : lstatSync(path, { bigint: true, throwIfNoEntry: false });
}

/** fstat with exact device and inode numbers, as exactLstat. */
export function exactFstat(fd: number): Stats | BigIntStats {
  const stat = fstatSync(fd);
  return isExact(stat) ? stat : fstatSync(fd, { bigint: true });
}

/** Whether a stat's device and inode numbers are exact (a number rounded from past 2^53 is no safe integer). */
function isExact(stat: Stats): boolean {
  return Number.isSafeInteger(stat.ino) && Number.isSafeInteger(stat.dev);
}

/** The open file's bytes from `start` to `end` (by default its end as it is now); fewer if it ends sooner. */
export function readFrom(fd: number, start: number, end = fstatSync(fd).size): Buffer {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Uint8Array, start: number, end: number): string }).utf8Slice;
function utf8Text(bytes: Uint8Array): string {
  return utf8Slice.call(bytes, 0, bytes.length);
}
