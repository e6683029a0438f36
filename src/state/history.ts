// The local score history: each freshly fetched audit answer with a score is one point, one JSON line
// in one file (REP_HISTORY_FILE, else history.jsonl in the state dir), so a CI cache can carry it.
// Safe under parallel rep processes (append-log.ts); a corrupt line is skipped with one warning.
// Bounded: once an append takes the file past 8 MiB it is compacted to the newest 4 MiB, keeping at
// most 1,000 points per (base URL, query).
import { join } from 'node:path';
import { fileForeignness, foreignnessOnce } from '../local-file.js';
import { baseUrlKey } from '../api/request.js';
import { INVISIBLE_CHARACTERS, scrubLine } from '../text.js';
import { openAppendLog } from './append-log.js';
import { randomHex } from './ids.js';

import type { HistoryPoint, PointSource as HistorySource } from '../store/port.js';

export type { HistoryPoint, PointSource as HistorySource } from '../store/port.js';

export interface HistoryLimits {
  /** An append that leaves the file bigger than this compacts it. */
  compactAtBytes: number;
  /** What a compaction keeps at most, newest first (half of compactAtBytes: compactions stay rare). */
  keepBytes: number;
  /** Points kept per (base URL, query) at a compaction, newest first. */
  perSeries: number;
}

export const HISTORY_LIMITS: HistoryLimits = { compactAtBytes: 8 * 1024 * 1024, keepBytes: 4 * 1024 * 1024, perSeries: 1000 };
export const HISTORY_FILE_NAME = 'history.jsonl';
/** Longest text kept per field, and sources per point: a line stays a few KB whatever the server sent or the file holds. */
const MAX_TEXT = 500;
const MAX_SOURCES = 50;

export interface HistoryStore {
  readonly file: string;
  /** Every point, oldest first, each id once. Corrupt lines are skipped and reported once through `warn`. Throws when the file cannot be read. */
  read(): HistoryPoint[];
  /**
   * The points whose query or company name may be one of `names` (as nameKey matches them): all of
   * those, and perhaps a few more; the caller matches. Over a long file far cheaper than read(): a line
   * that cannot hold the names is skipped unparsed (so a corrupt one is not reported; see linesThatMayHold).
   */
  readFor(names: readonly string[]): HistoryPoint[];
  /** Appends the points (one write). Throws when the file cannot be written. */
  append(points: readonly HistoryPoint[]): void;
}

export interface HistoryStoreOptions {
  warn?: (text: string) => void;
  limits?: HistoryLimits;
}

/** The history file: REP_HISTORY_FILE when set, else history.jsonl in the state dir. */
export function historyFile(env: NodeJS.ProcessEnv, stateDir: string): string {
  const file = env.REP_HISTORY_FILE;
  return file?.trim() ? file : join(stateDir, HISTORY_FILE_NAME);
}

export function openHistory(file: string, options: HistoryStoreOptions = {}): HistoryStore {
  const limits = options.limits ?? HISTORY_LIMITS;
  // A file far past the limits is no longer ours alone: only its newest part is read.
  const log = openAppendLog(file, { compactAtBytes: limits.compactAtBytes, readCapBytes: 2 * Math.max(limits.compactAtBytes, limits.keepBytes) });
  // A file or folder another user owns or can write is neither read nor written.
  const refused = foreignnessOnce(
    () => fileForeignness(file),
    (reason) => options.warn?.(`not using the history file ${file}: ${reason}`),
  );
  const warned = ({ points, corrupt }: { points: HistoryPoint[]; corrupt: number }) => {
    if (corrupt > 0) options.warn?.(`skipped ${corrupt === 1 ? 'a corrupt line' : `${corrupt} corrupt lines`} in the history file ${file}`);
    return points;
  };
  return {
    file,
    read() {
      return refused() ? [] : warned(parseLines(log.readLines()));
    },
    readFor(names) {
      return refused() ? [] : warned(parseLines(linesThatMayHold(log.readText(), names)));
    },
    append(points) {
      if (refused()) return;
      log.append(
        points.map((point) => JSON.stringify(point)),
        (lines) => compactLines(lines, limits),
      );
    },
  };
}

/** What an audit answer gives the history; the view of an audit body has these fields. */
export interface AuditAnswer {
  name?: string;
  score?: number;
  scoreMax?: number;
  sources: ReadonlyArray<{ source: string; rating?: number; reviews?: number }>;
}

/** The point for a fresh audit answer, or undefined when it has no score. */
export function pointFromAudit(answer: AuditAnswer, where: { at: number; baseUrl: URL | string; query: string }): HistoryPoint | undefined {
  return pointOf({
    id: randomHex(8),
    at: new Date(where.at).toISOString(),
    base_url: baseUrlKey(where.baseUrl),
    query: where.query,
    name: answer.name,
    score: answer.score,
    scale: answer.scoreMax,
    sources: answer.sources.slice(0, MAX_SOURCES).map((row) => sourceOf(row.source, row.rating, row.reviews)), // a view's row holds more
  });
}

/**
 * How names match: case-insensitive, whitespace collapsed, Unicode-normalised, so `blue  bottle`
 * finds `Blue Bottle`. A point matches a name when its query or its company name does.
 */
export function nameKey(text: string): string {
  return text.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The points whose query or company name is `name`, at `baseUrl` when given, oldest first. */
export function pointsFor(points: readonly HistoryPoint[], name: string, baseUrl?: URL | string): HistoryPoint[] {
  const key = nameKey(name);
  const base = baseUrl === undefined ? undefined : baseUrlKey(baseUrl);
  return points.filter(
    (point) => (base === undefined || point.base_url === base) && (nameKey(point.query) === key || (point.name !== undefined && nameKey(point.name) === key)),
  );
}

/** A point dated more than this after now is from a wrong clock: never "the previous point", and marked by `rep history`. */
export const FUTURE_SLACK_MS = 60 * 1000;

/** Whether a point is dated in the future (past the slack a clock may be off by). */
export function isFuture(point: Pick<HistoryPoint, 'at'>, now: number): boolean {
  return Date.parse(point.at) > now + FUTURE_SLACK_MS;
}

/**
 * A lookup of the previous point at one base URL: the newest point of the same query; only where the
 * query has none, the newest whose query or company name matches the query or the name (a chain's
 * branches share one company name: their series must not mix). With `before`, only points recorded
 * before that time (an answer from the cache compares with the point before its own). One pass.
 */
export function latestPoints(
  points: readonly HistoryPoint[],
  baseUrl: URL | string,
): (query: string, name?: string, before?: number) => HistoryPoint | undefined {
  const base = baseUrlKey(baseUrl);
  const byQuery = new Map<string, HistoryPoint[]>(); // oldest first, as the file holds them
  const byAny = new Map<string, HistoryPoint[]>();
  const add = (map: Map<string, HistoryPoint[]>, key: string, point: HistoryPoint) => {
    const list = map.get(key);
    if (list) list.push(point);
    else map.set(key, [point]);
  };
  for (const point of points) {
    if (point.base_url !== base) continue;
    const queryKey = nameKey(point.query);
    add(byQuery, queryKey, point);
    for (const key of new Set([queryKey, point.name === undefined ? queryKey : nameKey(point.name)])) add(byAny, key, point);
  }
  const newest = (map: Map<string, HistoryPoint[]>, key: string, before: number) => {
    const list = map.get(key) ?? [];
    for (let index = list.length - 1; index >= 0; index--) if (Date.parse(list[index]!.at) < before) return list[index];
    return undefined;
  };
  return (query, name, before = Number.POSITIVE_INFINITY) => {
    const own = newest(byQuery, nameKey(query), before);
    if (own) return own;
    const byQueryText = newest(byAny, nameKey(query), before);
    const byName = name === undefined ? undefined : newest(byAny, nameKey(name), before);
    if (!byQueryText || !byName) return byQueryText ?? byName;
    return byName.at > byQueryText.at ? byName : byQueryText;
  };
}

/**
 * The names and queries recorded (any base URL), for shell completion: those starting with `prefix`
 * (matched like names), newest spelling of each, sorted. Cheap: no request, nothing but the file;
 * an unreadable file gives none.
 */
export function historyNames(file: string, prefix = ''): string[] {
  let points: HistoryPoint[];
  try {
    points = openHistory(file).read();
  } catch {
    return [];
  }
  const start = nameKey(prefix);
  const names = new Map<string, string>();
  for (const point of points) {
    for (const text of [point.query, point.name]) {
      if (text === undefined) continue;
      const key = nameKey(text);
      if (key.startsWith(start)) names.set(key, text);
    }
  }
  return [...names.values()].sort((a, b) => a.localeCompare(b));
}

/** Points from lines, oldest first, each id once, and how many lines were corrupt. */
function parseLines(lines: readonly string[]): { points: HistoryPoint[]; corrupt: number } {
  const seen = new Set<string>();
  const points: HistoryPoint[] = [];
  let corrupt = 0;
  for (const line of lines) {
    const point = parsePoint(line);
    if (!point) corrupt += 1;
    else if (!seen.has(point.id)) {
      seen.add(point.id);
      points.push(point);
    }
  }
  // Lines are nearly in time order already (a rewritten line may come a little late); sort is stable.
  return { points: points.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)), corrupt };
}

/** Characters of a line whose text nameKey may not see as it stands: an escape, and what scrubbing removes (see SCRUBBED; raw controls are no JSON). */
const MAY_DIFFER = new RegExp(`[\\\\\\u007f-\\u009f\\u200c\\u200d\\u2028\\u2029${INVISIBLE_CHARACTERS}]`, 'gu');

/**
 * The non-empty lines of `text` that may hold a point whose query or company name matches one of
 * `names` (nameKey): all of them, and a few more (the caller matches). One pass over the whole text,
 * not a parse of each line: a line qualifies when, folded as nameKey folds (NFKC, lower case), it
 * holds every word of a name; or when its texts may be other than they stand (MAY_DIFFER); or when it
 * is long enough to hold a text that reading cuts at MAX_TEXT, which may cut where NFKC would join.
 * The folding is of the whole line at once: the quotes around each text keep NFKC and lower-casing
 * from reaching across.
 */
function linesThatMayHold(text: string, names: readonly string[]): string[] {
  const keys = [...new Set(names.map(nameKey))];
  const starts = lineStarts(text);
  const marked = new Set<number>();
  /** Where line `index` ends, before its newline. */
  const lineEnd = (index: number) => (starts[index + 1] ?? text.length + 1) - 1;
  const linesOf = (indexes: Iterable<number>) =>
    [...indexes]
      .sort((a, b) => a - b)
      .map((index) => text.slice(starts[index], lineEnd(index)))
      .filter((line) => line.trim() !== '');
  const all = () => linesOf(starts.keys());
  if (keys.includes('')) return all(); // (and the search below would not move on from an empty word)
  const ascii = Buffer.byteLength(text) === text.length; // NFKC leaves ASCII as it is
  const folded = (ascii ? text : text.normalize('NFKC')).toLowerCase();
  const foldedStarts = lineStarts(folded); // neither NFKC nor lower-casing makes or removes a line break
  if (foldedStarts.length !== starts.length) return all();
  for (let index = 0; index < starts.length; index++) if (lineEnd(index) - starts[index]! >= MAX_TEXT) marked.add(index);
  const markFrom = (index: number) => {
    const line = lineAt(starts, index);
    marked.add(line);
    return starts[line + 1] ?? text.length; // where to look on from
  };
  if (ascii) {
    // In ASCII only these two can be: a regular expression would take several times as long over megabytes.
    for (const character of ['\\', '\u007f']) for (let at = text.indexOf(character); at >= 0; at = text.indexOf(character, markFrom(at)));
  } else {
    MAY_DIFFER.lastIndex = 0;
    for (let match = MAY_DIFFER.exec(text); match; match = MAY_DIFFER.exec(text)) MAY_DIFFER.lastIndex = markFrom(match.index);
  }
  for (const key of keys) {
    const words = key.split(' ');
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
    for (let at = folded.indexOf(longest); at >= 0; ) {
      const line = lineAt(foldedStarts, at);
      const end = foldedStarts[line + 1] ?? folded.length;
      const lineText = folded.slice(foldedStarts[line], end);
      if (words.every((word) => lineText.includes(word))) marked.add(line);
      at = folded.indexOf(longest, end);
    }
  }
  return linesOf(marked);
}

/** The line that holds the character at `index`, given where each line starts (a binary search). */
function lineAt(starts: readonly number[], index: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= index) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Where each line of a text starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

const LINE_START = '{"id":';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** What scrubLine acts on: controls (escape sequences start with one), invisible characters and joiners, line breaks. */
const SCRUBBED = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u200c\\u200d\\u2028\\u2029${INVISIBLE_CHARACTERS}]`, 'u');

/** A line as a point; a line glued to the torn end of a failed write is still read from its own start. */
export function parsePoint(line: string): HistoryPoint | undefined {
  const start = line.lastIndexOf(LINE_START); // inside JSON strings quotes are escaped: this is where a line began
  try {
    return pointOf(JSON.parse(start > 0 ? line.slice(start) : line) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * A well-formed point, text scrubbed and capped; or undefined. Cleaned in place: a line as this
 * module wrote it needs no copy, which keeps reading a long history fast.
 */
function pointOf(data: unknown): HistoryPoint | undefined {
  if (!isRecord(data)) return undefined;
  const at = isoTime(data.at);
  if (typeof data.id !== 'string' || !data.id || at === undefined || typeof data.base_url !== 'string' || typeof data.query !== 'string') return undefined;
  if (!finite(data.score) || !Array.isArray(data.sources)) return undefined;
  data.at = at;
  data.query = cleanText(data.query);
  const name = typeof data.name === 'string' ? cleanText(data.name) : '';
  if (name) data.name = name;
  else if ('name' in data) delete data.name;
  if ('scale' in data && !finite(data.scale)) delete data.scale;
  data.sources = cleanSources(data.sources as unknown[]);
  return data as unknown as HistoryPoint;
}

/** Sources as stored: the same array when every entry is clean already. */
function cleanSources(sources: readonly unknown[]): HistorySource[] {
  const clean = (source: unknown): source is HistorySource =>
    isRecord(source) &&
    typeof source.source === 'string' &&
    cleanText(source.source) === source.source &&
    optionalFinite(source.rating) &&
    optionalFinite(source.reviews);
  if (sources.length <= MAX_SOURCES && sources.every(clean)) return sources as HistorySource[];
  return sources
    .slice(0, MAX_SOURCES)
    .flatMap((source) => (isRecord(source) && typeof source.source === 'string' ? [sourceOf(source.source, source.rating, source.reviews)] : []));
}

function sourceOf(source: string, rating: unknown, reviews: unknown): HistorySource {
  const row: HistorySource = { source: cleanText(source) };
  if (finite(rating)) row.rating = rating;
  if (finite(reviews)) row.reviews = reviews;
  return row;
}

/** A time as toISOString writes it (taken as is: Date.parse is slow over a long file), or undefined. */
function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (ISO_UTC.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** What a compaction keeps: valid points, each once, at most `perSeries` per series, the newest within `keepBytes`. */
function compactLines(lines: string[], limits: HistoryLimits): string[] {
  const newestFirst = parseLines(lines).points.reverse();
  const perSeries = new Map<string, number>();
  const kept: string[] = [];
  let bytes = 0;
  for (const point of newestFirst) {
    const series = `${point.base_url}\n${nameKey(point.query)}`;
    const count = perSeries.get(series) ?? 0;
    if (count >= limits.perSeries) continue;
    const line = JSON.stringify(point);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > limits.keepBytes) break;
    perSeries.set(series, count + 1);
    kept.push(line);
  }
  return kept.reverse();
}

function cleanText(text: string): string {
  if (text.length <= MAX_TEXT && !SCRUBBED.test(text) && text.trim() === text) return text; // most text: nothing to do
  const clean = scrubLine(text).trim();
  return clean.length > MAX_TEXT ? [...clean].slice(0, MAX_TEXT).join('') : clean; // never half a surrogate pair
}

function optionalFinite(value: unknown): boolean {
  return value === undefined || finite(value);
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
