// The local history's journal (issue 31 point 4): a batch's points go to a few long-lived files, not a
// file a name. journal/ holds SHARDS files; a point goes to the shard its series' name picks, as one line
// `SERIES {"id":…}` (the series name, a space, the point's JSON): a reader of one series takes only the
// lines that start with its name, and parsePoint reads the point from its `{"id":` as in a series file.
// A shard past FOLD_BYTES is folded by the process that grew it: its points appended to their series
// files, then the shard emptied, by state/append-log.ts's rewrite (under the shard's lock in pruning/,
// the old file linked aside until the lines appended meanwhile are copied), so a fold killed at any
// moment loses nothing: its aside is merged back on the next open, and a point then in both places is
// read once (ids). The series files stay the folded level: a folder of an earlier rep is all folded.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, fileId, foreignness, LocalFileError, readFrom } from '../../local-file.js';
import { parsePoint } from '../../state/history.js';
import { appendToLog, readAsides, readLog, recoverRewrites, rewriteLog, type RewriteOutcome } from '../../state/append-log.js';
import { sha256Hex } from '../../state/ids.js';
import { nameKey } from '../policy.js';
import type { HistoryPoint } from '../port.js';
import { onePerId, PRUNING_DIR, SERIES_DIR } from './series-files.js';

export const JOURNAL_DIR = 'journal';
/** Shards of the journal: few enough to keep open for a run, enough that a fold moves a small part of it. */
export const SHARDS = 64;
/**
 * A shard past this is folded into series files. 64 of them keep the journal near 16 MiB, where a fresh
 * batch of 10,000 names (about 2.5 MB of points) folds nothing, and a fold writes a few hundred series files.
 */
export const FOLD_BYTES = 256 * 1024;
/** The most a shard (or its aside) may hold when read: far past FOLD_BYTES, which a fold brings it back under. */
export const MAX_SHARD_BYTES = 256 * 1024 * 1024;
/** The tag of a fold's aside: every point of it is kept on recovery (a prune's tag is its cut-off). */
const FOLD_TAG = 'fold';
const SHARD_FILE = /^[0-9a-f]{2}\.jsonl$/;
const SERIES_NAME = /^[0-9a-f]{32}$/;
/** Where a point's JSON starts in a journal line, after the series name and a space. */
const POINT_START = ' {"id":';
const POINT_START_BYTES = Buffer.from(POINT_START);
const SERIES_CHARS = 32;

/** The series a point belongs to (32 hex: its file's name and its journal lines' start). */
export function seriesOf(base: string, key: string): string {
  return sha256Hex(`${base}\n${key}`).slice(0, SERIES_CHARS);
}

/** The series of a point, from its own fields (never from the line's start, which a torn line may not have). */
export function seriesOfPoint(point: HistoryPoint): string {
  return seriesOf(point.base_url, nameKey(point.query));
}

/**
 * The size past which the shard at path is folded: from half of `foldBytes` to one and a half times it
 * by the shard, so that a portfolio's shards, growing alike, do not all fold in the same run.
 */
export function foldBound(path: string, foldBytes: number): number {
  const shard = Number.parseInt(path.slice(-'xx.jsonl'.length, -'.jsonl'.length), 16);
  return Math.round(foldBytes * (0.5 + shard / SHARDS));
}

/** The shard a series' points go to. */
export function shardPath(dir: string, series: string): string {
  return join(dir, JOURNAL_DIR, `${(Number.parseInt(series.slice(0, 2), 16) % SHARDS).toString(16).padStart(2, '0')}.jsonl`);
}

export function journalLine(series: string, point: HistoryPoint): string {
  return `${series} ${JSON.stringify(point)}\n`;
}

/** The shard files there are. */
export function shardFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, JOURNAL_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => SHARD_FILE.test(name)).map((name) => join(dir, JOURNAL_DIR, name));
}

/**
 * Makes journal/ (0700) and checks that it is a folder of this user's and no link: a shard is opened
 * without following a link, but the folder on its way would be. Throws when it is not.
 */
export function ensureJournalDir(dir: string): void {
  checkJournalDir(dir);
  ensurePrivateDir(join(dir, JOURNAL_DIR));
}

/** Throws when journal/ is there but is a link or another user's (see ensureJournalDir); whether it is there. */
export function checkJournalDir(dir: string): boolean {
  const path = join(dir, JOURNAL_DIR);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return false;
  if (stat.isSymbolicLink()) throw new LocalFileError(`the history's journal ${path} is a link: it is not followed`, 'EFOREIGN');
  if (!stat.isDirectory()) throw new LocalFileError(`the history's journal ${path} is not a folder`, 'ENOTREG');
  const foreign = foreignness(stat);
  if (foreign) throw new LocalFileError(`the history's journal ${path} ${foreign}`, 'EFOREIGN');
  return true;
}

/** A journal line's series and point; undefined for a line that is neither (torn, or not the journal's). */
export function parseJournalLine(line: string): { series: string; point: HistoryPoint } | undefined {
  const start = line.lastIndexOf(POINT_START); // a line glued to a torn write is read from its own start
  if (start < SERIES_CHARS) return undefined;
  const series = line.slice(start - SERIES_CHARS, start);
  const point = SERIES_NAME.test(series) ? parsePoint(line.slice(start + 1)) : undefined;
  return point && { series, point };
}

/** The points of a journal text (each id once) and how many lines were corrupt. */
export function parseJournal(text: string): { points: HistoryPoint[]; corrupt: number } {
  let corrupt = 0;
  const points: HistoryPoint[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = parseJournalLine(line);
    if (parsed) points.push(parsed.point);
    else corrupt += 1;
  }
  return { points: onePerId(points), corrupt };
}

/**
 * Folds the shard at path into the series files (see the top); 'busy' when another process's fold or
 * prune holds it (that one moves these points). Throws when it cannot (the shard is then whole; a series
 * file may have some of its points already, which readers take once).
 */
export function foldShard(dir: string, path: string, step?: (at: 'linked' | 'renamed') => void): RewriteOutcome {
  return rewriteLog(path, {
    asideDir: join(dir, PRUNING_DIR),
    tag: FOLD_TAG,
    maxBytes: MAX_SHARD_BYTES,
    rewrite(text) {
      const bySeries = new Map<string, HistoryPoint[]>();
      for (const point of parseJournal(text).points) {
        const series = seriesOfPoint(point);
        const list = bySeries.get(series);
        if (list) list.push(point);
        else bySeries.set(series, [point]);
      }
      if (bySeries.size > 0) ensurePrivateDir(join(dir, SERIES_DIR));
      // Into the series files first: once the shard is emptied, each point is where readers look next.
      for (const [series, points] of bySeries) {
        appendToLog(join(dir, SERIES_DIR, `${series}.jsonl`), Buffer.from(points.map((point) => `${JSON.stringify(point)}\n`).join('')));
      }
      return '';
    },
    recover: recoverJournalPoints,
    ...(step ? { step } : {}),
  });
}

/** Removes the points dated before `before` from one shard (the same rewrite as a series file's prune); the ids of those that went. */
export function pruneShard(dir: string, path: string, before: number): string[] {
  let removed: string[] = [];
  const outcome = rewriteLog(path, {
    asideDir: join(dir, PRUNING_DIR),
    tag: String(before),
    maxBytes: MAX_SHARD_BYTES,
    rewrite(text) {
      const kept: string[] = [];
      removed = [];
      for (const line of text.split('\n')) {
        const parsed = line.trim() === '' ? undefined : parseJournalLine(line);
        if (!parsed) continue;
        if (Date.parse(parsed.point.at) >= before) kept.push(journalLine(parsed.series, parsed.point));
        else removed.push(parsed.point.id);
      }
      return removed.length === 0 ? undefined : kept.join('');
    },
    recover: recoverJournalPoints,
  });
  // Busy: another prune or fold holds the shard, and takes what this one would have (a fold keeps them: a prune again removes them).
  return outcome === 'rewritten' ? removed : [];
}

/** Merges back what killed folds and prunes of shards left under pruning/ (series files' are recoverPrunes's). */
export function recoverShards(dir: string, warn?: (text: string) => void): void {
  recoverRewrites(
    join(dir, PRUNING_DIR),
    (stem, extension) => (/^[0-9a-f]{2}$/.test(stem) && extension === '.jsonl' ? join(dir, JOURNAL_DIR, `${stem}.jsonl`) : undefined),
    {
      maxBytes: MAX_SHARD_BYTES,
      recover: recoverJournalPoints,
      onFailure: (aside) => warn?.(`cannot merge ${aside} back into the history; it is kept`),
    },
  );
}

/**
 * The lines of a killed fold's or prune's old shard that the shard lacks now: a fold's all (its points
 * may be in series files too: read once), a prune's those at or after its cut-off (the tag).
 */
function recoverJournalPoints(aside: string, log: string, tag: string): string {
  const have = new Set(parseJournal(log).points.map((point) => point.id));
  const from = tag === FOLD_TAG ? Number.NEGATIVE_INFINITY : Number(tag);
  const back: string[] = [];
  for (const line of aside.split('\n')) {
    const parsed = line.trim() === '' ? undefined : parseJournalLine(line);
    if (!parsed || have.has(parsed.point.id) || !(Date.parse(parsed.point.at) >= from)) continue;
    have.add(parsed.point.id);
    back.push(journalLine(parsed.series, parsed.point));
  }
  return back.join('');
}

/** What a reader knows of one shard: which file, how much of it it has scanned, and where each series' lines are. */
interface ShardSeen {
  id: string;
  scanned: number;
  /** Series → [start, end) byte offsets of its lines, in pairs. */
  spans: Map<string, number[]>;
}

/** Reads of a journal for one history, kept for a run: see openJournalReader. */
export interface JournalReader {
  /** The journal lines of one series (those of a fold's or prune's aside included). Throws when a shard cannot be read. */
  seriesText(series: string): string;
}

/** Reads of a shard before a reader takes what it has, when appends keep coming between its read and its check. */
const READ_ATTEMPTS = 4;

/**
 * A reader of the journal that reads each shard once a run, then only what was appended to it since (the
 * same file; a shard a fold or prune replaced is read again from its start). It keeps where each
 * series' lines are, not the lines: a series' text is read from the file when asked.
 */
export function openJournalReader(dir: string, onRead?: (path: string, bytes: number) => void): JournalReader {
  const shards = new Map<string, ShardSeen>();
  const asideDir = join(dir, PRUNING_DIR);
  /** The series' lines in the shard at path, and which file that was at what size ('' for none). */
  const readShard = (path: string, series: string): { text: string; id: string; size: number } => {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', id: '', size: 0 };
      throw error;
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      const id = fileId(stat);
      const size = Number(stat.size);
      let seen = shards.get(path);
      if (!seen || seen.id !== id || size < seen.scanned) {
        const plain = fstatSync(fd);
        if (!plain.isFile()) throw new LocalFileError(`${path} is not a regular file`, 'ENOTREG');
        const foreign = foreignness(plain);
        if (foreign) throw new LocalFileError(`${path} ${foreign}`, 'EFOREIGN');
        shards.set(path, (seen = { id, scanned: 0, spans: new Map() }));
      }
      if (size > MAX_SHARD_BYTES) throw new LocalFileError(`${path} is larger than ${MAX_SHARD_BYTES} bytes`, 'EFBIG');
      if (size > seen.scanned) scan(fd, path, seen, size);
      const spans = seen.spans.get(series);
      if (!spans) return { text: '', id, size };
      // A read for each run of its lines that follow one another (a day's points of a series are a day's
      // worth of other lines apart: reading from its first line to its last read most of the shard).
      let text = '';
      for (let i = 0; i < spans.length; ) {
        const start = spans[i]!;
        let end = spans[i + 1]!;
        for (i += 2; i < spans.length && spans[i] === end; i += 2) end = spans[i + 1]!;
        const buffer = readFrom(fd, start, end);
        onRead?.(path, buffer.length);
        text += buffer.toString('utf8');
      }
      return { text, id, size };
    } finally {
      closeSync(fd);
    }
  };
  /** Notes where each series' whole lines are in [seen.scanned, size); a last line without its end waits for the next read. */
  const scan = (fd: number, path: string, seen: ShardSeen, size: number) => {
    const buffer = readFrom(fd, seen.scanned, size);
    onRead?.(path, buffer.length);
    let start = 0;
    for (let end = buffer.indexOf(10); end !== -1; start = end + 1, end = buffer.indexOf(10, start)) {
      // Searched back from the line's end, never from before its start (a negative offset counts from the buffer's end).
      const from = end - POINT_START_BYTES.length;
      const found = from >= start ? buffer.lastIndexOf(POINT_START_BYTES, from) : -1;
      // A line with no point on it is its series' still (by its start), to be read and told as corrupt.
      const at = found - start >= SERIES_CHARS ? found : end - start > SERIES_CHARS && buffer[start + SERIES_CHARS] === 32 ? start + SERIES_CHARS : -1;
      if (at === -1) continue;
      const series = buffer.toString('latin1', at - SERIES_CHARS, at);
      const span = [seen.scanned + at - SERIES_CHARS, seen.scanned + end + 1];
      const spans = seen.spans.get(series);
      if (spans) spans.push(...span);
      else seen.spans.set(series, span);
    }
    seen.scanned += start;
  };
  return {
    seriesText(series) {
      const path = shardPath(dir, series);
      // A fold or prune renames a new shard into place, then copies what was appended to the old one (linked
      // aside until then) since it read it. So the asides are read after the shard, and the shard again
      // if it changed meanwhile: a reader that read the new one before that copy finds the aside, or the copy.
      for (let attempt = 1; ; attempt++) {
        const shard = readShard(path, series);
        // No aside folder is the common case: a look, not a listing that throws.
        const aside = (lstatSync(asideDir, { throwIfNoEntry: false }) ? readAsides(asideDir, path, MAX_SHARD_BYTES) : [])
          .flatMap((text) => text.split('\n').filter((line) => parseJournalLine(line)?.series === series))
          .map((line) => `${line}\n`)
          .join('');
        const now = lstatSync(path, { bigint: true, throwIfNoEntry: false });
        if (attempt >= READ_ATTEMPTS || (now ? fileId(now) === shard.id && Number(now.size) === shard.size : shard.id === '')) return shard.text + aside;
      }
    },
  };
}

/** Every point of the journal's shards (for stats and export), how many lines were corrupt, and their bytes. */
export function readJournal(dir: string): { points: HistoryPoint[]; corrupt: number; bytes: number } {
  const points: HistoryPoint[] = [];
  let corrupt = 0;
  let bytes = 0;
  for (const path of shardFiles(dir)) {
    const text = readLog(path, MAX_SHARD_BYTES);
    bytes += Buffer.byteLength(text);
    const parsed = parseJournal(text);
    points.push(...parsed.points);
    corrupt += parsed.corrupt;
  }
  return { points, corrupt, bytes };
}
