// The local history's files, apart from the port that uses them (history.ts): the series files' text
// and points, the index's lines, and the prune of one series file with the recovery of a killed one.
import { lstatSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileId } from '../../local-file.js';
import { parsePoint } from '../../state/history.js';
import { readLog, recoverRewrites, rewriteLog, type RewriteOptions } from '../../state/append-log.js';
import { pointKeys } from '../policy.js';
import type { HistoryPoint } from '../port.js';
import { parseJson } from '../../text.js';

export const SERIES_DIR = 'series';
export const INDEX_FILE = 'index.jsonl';
/** Where a prune links the file it replaces until its tail is copied; what a killed prune left is merged back on the next open. */
export const PRUNING_DIR = 'pruning';
export const MAX_INDEX_BYTES = 256 * 1024 * 1024;
/** A series is one company's points: years of daily points are well under this. */
export const MAX_SERIES_BYTES = 256 * 1024 * 1024;

/** One index line: a series and one spelling of its query and company name. */
export interface IndexEntry {
  base: string;
  series: string;
  query: string;
  name?: string;
  keys: string[];
}

/** Points from a series file's text, each id once, and how many lines were corrupt. */
export function parseText(text: string): { points: HistoryPoint[]; corrupt: number } {
  let corrupt = 0;
  const points: HistoryPoint[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const point = parsePoint(line);
    if (point) points.push(point);
    else corrupt += 1;
  }
  return { points: onePerId(points), corrupt };
}

/** The series file's text ('' when there is none); never through a link. Throws when it cannot be read. */
export function readSeriesText(path: string): string {
  return readLog(path, MAX_SERIES_BYTES);
}

/** Reads of a series file before a reader takes what it has, when it keeps being replaced between its read and its check. */
const READ_ATTEMPTS = 4;

/**
 * The points of the series file at path, each id once, and how many lines were corrupt, as a reader
 * must take them mid-prune too: a prune renames the kept points into place, then copies what was
 * appended to the old file meanwhile (a fold's points), linked under pruning/ until then. So that old
 * file's points at or after the prune's cut-off are read too, after the file, and the file again if it
 * changed meanwhile. Throws when it cannot be read.
 */
export function readSeriesPoints(dir: string, path: string): { points: HistoryPoint[]; corrupt: number } {
  const stem = basename(path, '.jsonl');
  for (let attempt = 1; ; attempt++) {
    const before = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    const parsed = parseText(readSeriesText(path));
    const asides: HistoryPoint[] = [];
    for (const name of lstatSync(join(dir, PRUNING_DIR), { throwIfNoEntry: false }) ? listNames(join(dir, PRUNING_DIR)) : []) {
      const match = /^([0-9a-f]{32})\.([0-9]+)\.[0-9a-f]+\.jsonl$/.exec(name);
      if (match?.[1] !== stem) continue;
      let text: string;
      try {
        text = readLog(join(dir, PRUNING_DIR, name), MAX_SERIES_BYTES);
      } catch {
        continue; // gone meanwhile: merged back
      }
      for (const point of parseText(text).points) if (Date.parse(point.at) >= Number(match[2])) asides.push(point);
    }
    const after = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    const same = before && after ? fileId(before) === fileId(after) && before.size === after.size : before === after;
    if (same || attempt >= READ_ATTEMPTS) return asides.length === 0 ? parsed : { points: onePerId([...parsed.points, ...asides]), corrupt: parsed.corrupt };
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // gone meanwhile
  }
}

/** Removes the points dated before `before` from one series file (state/append-log.ts's rewrite); the ids of those that went. */
export function pruneFile(dir: string, path: string, before: number, warn?: (text: string) => void, step?: RewriteOptions['step']): string[] {
  let removed: string[] = [];
  try {
    const outcome = rewriteLog(path, {
      asideDir: join(dir, PRUNING_DIR),
      tag: String(before),
      maxBytes: MAX_SERIES_BYTES,
      rewrite(text) {
        const { points } = parseText(text);
        const kept = points.filter((point) => Date.parse(point.at) >= before);
        removed = points.filter((point) => !(Date.parse(point.at) >= before)).map((point) => point.id);
        return removed.length === 0 ? undefined : kept.map((point) => `${JSON.stringify(point)}\n`).join('');
      },
      recover: recoverPoints,
      ...(step ? { step } : {}),
    });
    // Busy: another prune holds the file, and takes what this one would have.
    return outcome === 'rewritten' ? removed : [];
  } catch (error) {
    warn?.(`cannot prune the history file ${path}`);
    throw error;
  }
}

/** Merges back what killed prunes left under pruning/: their points at or after each prune's cut-off. */
export function recoverPrunes(dir: string, warn?: (text: string) => void): void {
  recoverRewrites(
    join(dir, PRUNING_DIR),
    (stem, extension) => (/^[0-9a-f]{32}$/.test(stem) && extension === '.jsonl' ? join(dir, SERIES_DIR, `${stem}.jsonl`) : undefined),
    {
      maxBytes: MAX_SERIES_BYTES,
      recover: recoverPoints,
      onFailure: (aside) => warn?.(`cannot merge ${aside} back into the history; it is kept`),
    },
  );
}

/** The points of a killed prune's old file at or after its cut-off (the tag) that the series file lacks, as lines. */
function recoverPoints(aside: string, log: string, tag: string): string {
  const have = new Set(parseText(log).points.map((point) => point.id));
  return parseText(aside)
    .points.filter((point) => Date.parse(point.at) >= Number(tag) && !have.has(point.id))
    .map((point) => `${JSON.stringify(point)}\n`)
    .join('');
}

export function seriesFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, SERIES_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => /^[0-9a-f]{32}\.jsonl$/.test(name)).map((name) => join(dir, SERIES_DIR, name));
}

export function indexLine(entry: Omit<IndexEntry, 'keys'>): string {
  return JSON.stringify({ base: entry.base, series: entry.series, query: entry.query, ...(entry.name === undefined ? {} : { name: entry.name }) });
}

export function parseIndex(text: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const data = parseJson(line.slice(Math.max(0, line.lastIndexOf('{"base":')))) as Record<string, unknown>;
      if (typeof data.base !== 'string' || typeof data.series !== 'string' || typeof data.query !== 'string') continue;
      const name = typeof data.name === 'string' ? data.name : undefined;
      entries.push({ base: data.base, series: data.series, query: data.query, ...(name ? { name } : {}), keys: pointKeys({ query: data.query, name }) });
    } catch {
      // A torn line: the point it led to has its own line in the next append's index line, or none.
    }
  }
  return entries;
}

export function newest(points: readonly HistoryPoint[]): HistoryPoint | undefined {
  let best: HistoryPoint | undefined;
  for (const point of points) if (!best || point.at >= best.at) best = point;
  return best;
}

export function onePerId(points: readonly HistoryPoint[]): HistoryPoint[] {
  const byId = new Map<string, HistoryPoint>();
  for (const point of points) if (!byId.has(point.id)) byId.set(point.id, point);
  return [...byId.values()];
}

export function inTimeOrder(points: HistoryPoint[]): HistoryPoint[] {
  return points.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

export function fileSize(path: string): number {
  return lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
