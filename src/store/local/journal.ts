// The local history's journal (issue 31 point 4): a batch's points go to a few long-lived files, not a
// file a name. journal/ holds SHARDS files; a point goes to the shard its series' name picks, as one line
// `SERIES {"id":…}` (the series name, a space, the point's JSON): a reader of one series takes only the
// lines that start with its name, and parsePoint reads the point from its `{"id":` as in a series file.
// A shard past FOLD_BYTES is folded by the process that grew it: its points appended to their series
// files, then the shard emptied, by state/append-log.ts's rewrite (under the shard's lock in pruning/,
// the old file linked aside until the lines appended meanwhile are copied), so a fold killed at any
// moment loses nothing: its aside is merged back on the next open, and a point then in both places is
// read once (ids). The series files stay the folded level: a folder of an earlier rep is all folded.
// The shards, the folder's check and the reader are state/journal-shards.ts's, as for the answer cache.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../../local-file.js';
import { parsePoint } from '../../state/history.js';
import { appendToLog, readLog, recoverRewrites, rewriteLog, type RewriteOutcome } from '../../state/append-log.js';
import { sha256Hex } from '../../state/ids.js';
import * as shards from '../../state/journal-shards.js';
import { nameKey } from '../policy.js';
import type { HistoryPoint } from '../port.js';
import { onePerId, parseText, PRUNING_DIR, SERIES_DIR } from './series-files.js';

export const JOURNAL_DIR = 'journal';
/**
 * A shard past this is folded into series files. 64 of them keep the journal near 16 MiB, where a fresh
 * batch of 10,000 names (about 2.5 MB of points) folds nothing, and a fold writes a few hundred series files.
 */
export const FOLD_BYTES = 256 * 1024;
/** The most a shard (or its aside) may hold when read: far past FOLD_BYTES, which a fold brings it back under. */
export const MAX_SHARD_BYTES = 256 * 1024 * 1024;
/** The tag of a fold's aside: every point of it is kept on recovery (a prune's tag is its cut-off). */
const FOLD_TAG = 'fold';
const SERIES_NAME = /^[0-9a-f]{32}$/;
/** Where a point's JSON starts in a journal line, after the series name and a space. */
const POINT_START = ' {"id":';
const POINT_START_BYTES = Buffer.from(POINT_START);
const SERIES_CHARS = 32;

let lastJournal: shards.JournalShards & { of: string } = { of: '', dir: '', extension: '', asideDir: '', maxBytes: 0 };
/** The journal of the history in dir: its shards, and where a fold or prune links one aside (a batch asks for one dir's for each point). */
function journalOf(dir: string): shards.JournalShards {
  if (lastJournal.of !== dir)
    lastJournal = { of: dir, dir: join(dir, JOURNAL_DIR), extension: '.jsonl', asideDir: join(dir, PRUNING_DIR), maxBytes: MAX_SHARD_BYTES };
  return lastJournal;
}

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
  return Math.round(foldBytes * (0.5 + shard / shards.SHARDS));
}

/** The shard a series' points go to. */
export function shardPath(dir: string, series: string): string {
  return shards.shardPath(journalOf(dir), series);
}

export function journalLine(series: string, point: HistoryPoint): string {
  return `${series} ${JSON.stringify(point)}\n`;
}

/** The shard files there are. */
export function shardFiles(dir: string): string[] {
  return shards.shardFiles(journalOf(dir));
}

/** Makes journal/ (0700) and checks it: see journal-shards.ts's ensureJournalDir. Throws when it is not the user's own. */
export function ensureJournalDir(dir: string): void {
  shards.ensureJournalDir(join(dir, JOURNAL_DIR));
}

/** Throws when journal/ is there but is a link or another user's (see ensureJournalDir); whether it is there. */
export function checkJournalDir(dir: string): boolean {
  return shards.checkJournalDir(join(dir, JOURNAL_DIR));
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
        appendToLog(join(dir, SERIES_DIR, `${series}.jsonl`), points.map((point) => `${JSON.stringify(point)}\n`).join(''));
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

/** A killed fold's or prune's aside under pruning/: the stem of its shard or series file, its tag (append-log.ts names it). */
const ASIDE_NAME = /^([0-9a-f]{2}|[0-9a-f]{32})\.([0-9a-z]+)\.[0-9a-f]+\.jsonl$/;

/**
 * The points that asides of killed folds and prunes under pruning/ would give back on recovery (a
 * fold's all, a prune's those at or after its cut-off), for a reader that does not open the history
 * (an import): the lines appended while one ran may be only there. Throws when one cannot be read.
 */
export function readAsidePoints(dir: string): HistoryPoint[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, PRUNING_DIR));
  } catch {
    return []; // none (the common case)
  }
  const points: HistoryPoint[] = [];
  for (const name of names) {
    const match = ASIDE_NAME.exec(name);
    if (!match) continue;
    const text = readLog(join(dir, PRUNING_DIR, name), MAX_SHARD_BYTES);
    const parsed = match[1]!.length === 2 ? parseJournal(text) : parseText(text);
    const from = match[2] === FOLD_TAG ? Number.NEGATIVE_INFINITY : Number(match[2]);
    points.push(...parsed.points.filter((point) => Date.parse(point.at) >= from));
  }
  return points;
}

/** Reads of a journal for one history, kept for a run: see openJournalReader. */
export interface JournalReader {
  /** The journal lines of one series (those of a fold's or prune's aside included). Throws when a shard cannot be read. */
  seriesText(series: string): string;
}

/** How a shard's lines name their series: the 32 hex before the point's `{"id":`. */
const SERIES_LINES: shards.ShardLines = {
  keyLength: SERIES_CHARS,
  keyAt(bytes, start, end) {
    // A line glued to a torn write is its own from its point's start: searched back from the line's end,
    // never from before its start (a negative offset counts from the buffer's end).
    const from = end - POINT_START_BYTES.length;
    const found = from >= start ? bytes.lastIndexOf(POINT_START_BYTES, from) : -1;
    if (found - start >= SERIES_CHARS) return found - SERIES_CHARS;
    // A line with no point on it is its series' still (by its start), to be read and told as corrupt.
    return end - start > SERIES_CHARS && bytes[start + SERIES_CHARS] === 32 ? start : -1;
  },
};

/**
 * A reader of the journal that reads each shard once a run, then only what was appended to it since
 * (journal-shards.ts's reader). It keeps where each series' lines are, not the lines.
 */
export function openJournalReader(dir: string, onRead?: (path: string, bytes: number) => void): JournalReader {
  const reader = shards.openShardReader(journalOf(dir), SERIES_LINES, onRead);
  return { seriesText: (series) => reader.linesOf([series])[0]! };
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
