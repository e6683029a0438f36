// Before the local history's first use: refuse a path that is not rep's history folder (a link to a
// file, another user's folder), and move an earlier rep's history.jsonl over, losing nothing. The old
// file is read in bounded chunks (a 2 GB sparse file is read, not held or emptied), imported by point
// id (two processes importing at once add each point once), and then kept beside as `<file>.imported`:
// never truncated, never removed. A file that does not look like a history is left untouched.
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { folderForeignness, foreignness } from '../../local-file.js';
import { parsePoint } from '../../state/history.js';
import { randomHex } from '../../state/ids.js';
import { nameKey } from '../policy.js';
import type { HistoryPoint } from '../port.js';
import { openLocalHistory } from './history.js';
import { fdId, pathId } from '../../local-file.js';

const CHUNK_BYTES = 1024 * 1024;
/** A line longer than this is kept by its end only: a point is a few KB, and a torn or zero-filled start is no point. */
const MAX_LINE_CHARS = 1024 * 1024;

/** Why the history cannot be used at `dir` (in words), or undefined once it is ready (migrated if need be). */
export async function prepareHistoryDir(dir: string, legacy: string | undefined, warn?: (text: string) => void): Promise<string | undefined> {
  const here = lstatSync(dir, { throwIfNoEntry: false });
  if (here?.isSymbolicLink()) {
    const target = statSync(dir, { throwIfNoEntry: false });
    if (target && !target.isDirectory()) return `the history path ${dir} is a link to a file, not rep's history folder: it is left untouched`;
    const foreign = folderForeignness(dir);
    if (foreign) return `the history folder ${dir} ${foreign}`;
  } else if (here?.isFile()) {
    if (legacy !== dir) return `the history path ${dir} is a file, not rep's history folder: it is left untouched`;
    return migrateInPlace(dir, warn);
  } else if (here && !here.isDirectory()) {
    return `the history path ${dir} is not a folder`;
  } else if (here) {
    const foreign = foreignness(here);
    if (foreign) return `the history folder ${dir} ${foreign}`;
  }
  if (legacy !== undefined && legacy !== dir) {
    const old = lstatSync(legacy, { throwIfNoEntry: false });
    if (old?.isFile()) {
      try {
        const refusal = await importFile(legacy, dir, warn);
        if (refusal) warn?.(refusal);
        else keepAside(legacy, old);
      } catch (error) {
        // Gone meanwhile: another process moved it over first.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    } else if (old?.isSymbolicLink()) {
      warn?.(`not moving the history file ${legacy} over: it is a link, left untouched`);
    }
  }
  return undefined;
}

/** REP_HISTORY_FILE names a history.jsonl of an earlier rep: its points go to a new folder at the same path. */
async function migrateInPlace(file: string, warn?: (text: string) => void): Promise<string | undefined> {
  const temp = join(dirname(file), `.${basename(file)}.migrating-${process.pid}-${randomHex(4)}`);
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let fileId: string;
    try {
      fileId = fdId(fd);
      const foreign = foreignness(fstatSync(fd));
      if (foreign) return `the history file ${file} ${foreign}: it is left untouched`;
      const foreignFolder = folderForeignness(dirname(file));
      if (foreignFolder) return `the history file ${file}: its folder ${dirname(file)} ${foreignFolder}; it is left untouched`;
    } finally {
      closeSync(fd);
    }
    const refusal = await importFile(file, temp, warn);
    if (refusal) return refusal;
    // The old file stays, under another name; then the folder takes its place. A process that finds
    // the path gone meanwhile makes a folder there: then its points and these are merged.
    if (pathId(file) === fileId) keepAside(file, lstatSync(file));
    try {
      renameSync(temp, file);
    } catch {
      await copyAll(temp, file);
    }
    return undefined;
  } catch (error) {
    return `cannot move the history file ${file} to a folder (${(error as Error).message})`;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Every point of one folder into another (the import of a folder a concurrent migration made). */
async function copyAll(from: string, to: string): Promise<void> {
  const source = openLocalHistory(from);
  const target = openLocalHistory(to);
  try {
    for (const name of await source.names('')) await target.append(await source.range({ key: nameKey(name) }));
  } finally {
    target.close();
  }
}

/** Imports a history.jsonl into the folder `dir`; why not, when it does not look like a history. */
async function importFile(file: string, dir: string, warn?: (text: string) => void): Promise<string | undefined> {
  const { points, lines, corrupt } = readLegacy(file);
  if (lines > 0 && points.length <= corrupt)
    return `${file} does not look like a rep history (${points.length} of ${lines} lines are points): it is left untouched`;
  if (corrupt > 0) warn?.(`skipped ${corrupt === 1 ? 'a corrupt line' : `${corrupt} corrupt lines`} in the history file ${file}`);
  const history = openLocalHistory(dir);
  try {
    await history.append(points);
  } finally {
    history.close();
  }
  return undefined;
}

/** The points of a history.jsonl, read in chunks: a line is parsed from its own start (see parsePoint), zeros and torn starts skipped. */
export function readLegacy(file: string): { points: HistoryPoint[]; lines: number; corrupt: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const points: HistoryPoint[] = [];
  let lines = 0;
  let corrupt = 0;
  const take = (line: string) => {
    if (line.trim() === '') return;
    lines += 1;
    const point = parsePoint(line.replace(/\0+/g, ''));
    if (point) points.push(point);
    else corrupt += 1;
  };
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file`);
    const chunk = Buffer.alloc(CHUNK_BYTES);
    const zeros = Buffer.alloc(CHUNK_BYTES);
    let partial = '';
    for (let n = readSync(fd, chunk, 0, CHUNK_BYTES, null); n > 0; n = readSync(fd, chunk, 0, CHUNK_BYTES, null)) {
      // A hole of a sparse file reads as zeros: no line there, and no text to build.
      if (n === CHUNK_BYTES && chunk.equals(zeros)) {
        partial = '';
        continue;
      }
      const pieces = (partial + chunk.toString('utf8', 0, n)).split('\n');
      partial = pieces.pop() ?? '';
      if (partial.length > MAX_LINE_CHARS) partial = partial.slice(-MAX_LINE_CHARS);
      for (const piece of pieces) take(piece);
    }
    take(partial);
  } finally {
    closeSync(fd);
  }
  return { points, lines, corrupt };
}

/** Keeps the imported file beside, as `<file>.imported` (a link: a big file is not copied), then removes its old name. */
function keepAside(file: string, stat: { ino: number }): void {
  let aside = `${file}.imported`;
  try {
    linkSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (lstatSync(aside, { throwIfNoEntry: false })?.ino === stat.ino) return; // another process did it
    aside = `${file}.imported-${randomHex(4)}`;
    linkSync(file, aside);
  }
  if (lstatSync(file, { throwIfNoEntry: false })?.ino === stat.ino) {
    try {
      unlinkSync(file);
    } catch {
      // Another process removed it first.
    }
  }
}
