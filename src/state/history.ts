// A history point's format, shared by every store: the point of a fresh audit answer, and a stored
// line read back as a clean point (text scrubbed and capped, fields checked), whatever the line holds.
// Where points are kept is the store's (src/store/port.ts; the local one: src/store/local/history.ts).
import { baseUrlKey } from '../api/base-url.js';
import { INVISIBLE_CHARACTERS, isRecord, parseJson, scrubLine } from '../text.js';
import { randomHex } from './ids.js';

import type { HistoryPoint, PointSource as HistorySource } from '../store/port.js';

export type { HistoryPoint, PointSource as HistorySource } from '../store/port.js';

/** Longest text kept per field, and sources per point: a line stays a few KB whatever the server sent or the file holds. */
const MAX_TEXT = 500;
const MAX_SOURCES = 50;

/** What an audit answer gives the history; the view of an audit body has these fields. */
export interface AuditAnswer {
  name?: string;
  score?: number;
  scoreMax?: number;
  sources: ReadonlyArray<{ source: string; rating?: number; reviews?: number }>;
}

/**
 * The point for a fresh audit answer, or undefined when it has no score: built clean, as pointOf would
 * leave it (the same fields in the same order), without the checks a stored line needs.
 */
export function pointFromAudit(answer: AuditAnswer, where: { at: number; baseUrl: URL | string; query: string }): HistoryPoint | undefined {
  if (!finite(answer.score)) return undefined;
  const point = { id: randomHex(8), at: new Date(where.at).toISOString(), base_url: baseUrlKey(where.baseUrl), query: cleanText(where.query) } as HistoryPoint;
  const name = answer.name === undefined ? '' : cleanText(answer.name);
  if (name) point.name = name;
  point.score = answer.score;
  if (finite(answer.scoreMax)) point.scale = answer.scoreMax;
  const sources: HistorySource[] = [];
  // A view's row holds more. Cleaned twice, as a point read back is: a name cut at MAX_TEXT may end in a space.
  for (const row of answer.sources.slice(0, MAX_SOURCES)) sources.push(sourceOf(cleanText(row.source), row.rating, row.reviews));
  point.sources = sources;
  return point;
}

const LINE_START = '{"id":';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** What scrubLine acts on: controls (escape sequences start with one), invisible characters and joiners, line breaks. */
const SCRUBBED = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u200c\\u200d\\u2028\\u2029${INVISIBLE_CHARACTERS}]`, 'u');

/** A line as a point; a line glued to the torn end of a failed write is still read from its own start. */
export function parsePoint(line: string): HistoryPoint | undefined {
  const start = line.lastIndexOf(LINE_START); // inside JSON strings quotes are escaped: this is where a line began
  try {
    return pointOf(parseJson(start > 0 ? line.slice(start) : line));
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
