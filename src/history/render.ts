// `rep history` in each format, from the recorded points of one name, oldest first: each row with
// its change since the row before. JSON and CSV carry ISO times and plain numbers; table and
// Markdown read as a person would (local time, arrows, a sparkline of the scores).
import type { IO } from '../io.js';
import { csvRow } from '../output/csv.js';
import { jsonText } from '../output/json-text.js';
import { markdownTable } from '../output/markdown.js';
import { scrubLine } from '../text.js';
import type { HistoryPoint, HistorySource } from '../state/history.js';
import { isFuture } from '../store/policy.js';
import { changeFrom, changeText, localDateTime, scoreText, type Change } from './change.js';
import { sparkline } from './sparkline.js';

export interface HistoryRow {
  point: HistoryPoint;
  /** Since the point before it; none for the first. */
  change?: Change;
  /** Dated in the future (a wrong clock): shown marked, never the previous point of an audit. */
  future?: boolean;
}

/** What json and ndjson give per point. */
export interface HistoryRecord {
  at: string;
  score: number;
  scale: number | null;
  /** The score minus the previous point's; null for the first. */
  change: number | null;
  /** The company's name in the answer; null when it gave none. */
  name: string | null;
  /** Dated in the future (a wrong clock on the machine that recorded it). */
  future: boolean;
  query: string;
  base_url: string;
  sources: HistorySource[];
}

/** Rows for one series of points, oldest first, each with its change since the one before; `now` marks future ones. */
export function historyRows(points: readonly HistoryPoint[], now: number): HistoryRow[] {
  return points.map((point, index) => {
    const row: HistoryRow = { point };
    const change = changeFrom(points[index - 1], point.score);
    if (change) row.change = change;
    if (isFuture(point, now)) row.future = true;
    return row;
  });
}

export function historyRecord({ point, change, future }: HistoryRow): HistoryRecord {
  return {
    at: point.at,
    score: point.score,
    scale: point.scale ?? null,
    change: change?.delta ?? null,
    name: point.name ?? null,
    future: future === true,
    query: point.query,
    base_url: point.base_url,
    sources: point.sources,
  };
}

/** A point as `--fields` names its parts (output/field-names.ts). */
export function historyFieldRecord({ point, change }: HistoryRow): Record<string, unknown> {
  return { at: point.at, query: point.query, name: point.name, score: point.score, scale: point.scale, change: change?.delta, sources: point.sources.length };
}

export function historyNdjsonLines(rows: readonly HistoryRow[]): string[] {
  return rows.map((row) => `${jsonText(historyRecord(row))}\n`);
}

export function historyCsv(rows: readonly HistoryRow[]): string {
  return (
    csvRow(['at', 'score', 'change', 'name', 'base_url']) +
    rows.map(({ point, change }) => csvRow([point.at, point.score, change?.delta, shownName(point), point.base_url])).join('')
  );
}

/** A GFM table (date, score, change, name) and the trend under it. */
export function historyMarkdown(rows: readonly HistoryRow[]): string {
  const table = markdownTable(
    ['Date', 'Score', 'Change', 'Name'],
    rows.map(({ point, change, future }) => [dateText(point, future), scoreWithScale(point), change ? changeText(change) : '—', shownName(point)]),
    ['left', 'right', 'left', 'left'],
  );
  return `${table}\n${trendLine(rows, Number.POSITIVE_INFINITY)}\n`;
}

/** The table on a terminal: the name and base URL, the trend, then date, score and change per point. */
export async function historyTable(io: IO, rows: readonly HistoryRow[]): Promise<string> {
  const { colourScore, drawGrid, fitLine, formatScore, loadTableKit, sharedDecimals } = await import('../output/table-kit.js');
  const kit = await loadTableKit(io);
  const newest = rows.at(-1)!.point;
  const decimals = sharedDecimals(rows.map(({ point }) => point.score));
  const paint = { up: kit.chalk.green, down: kit.chalk.red, same: kit.chalk.dim };
  const grid = await drawGrid(
    kit,
    ['Date', 'Score', 'Change'],
    rows.map(({ point, change, future }) => [
      dateText(point, future),
      colourScore(kit, formatScore(point.score, point.scale, decimals), point.score, point.scale),
      change ? paint[change.direction](changeText(change)) : kit.chalk.dim('—'),
    ]),
    ['left', 'right', 'left'],
  );
  const title = `${kit.chalk.bold(fitLine(kit, shownName(newest)))}\n${kit.chalk.dim(fitLine(kit, newest.base_url))}\n`;
  const trend = trendLine(rows, kit.width)
    .split('\n')
    .map((line) => `${fitLine(kit, line)}\n`)
    .join('');
  return `${title}${trend}${grid}`;
}

/** Fewer bars than this say little: on a narrow line the sparkline takes a line of its own instead. */
const MIN_BARS_BESIDE_SUMMARY = 10;

/**
 * `Trend ▄▁▂  3 points, 80.0 → 74.5`, the sparkline of the newest points that fit `width`; where
 * the summary would leave it too few bars, the summary goes on the next line.
 */
function trendLine(rows: readonly HistoryRow[], width: number): string {
  const scores = rows.map(({ point }) => point.score);
  const summary = `${scores.length === 1 ? '1 point' : `${scores.length} points`}, ${scoreText(scores[0]!)} → ${scoreText(scores.at(-1)!)}`;
  const room = width - 'Trend    '.length - summary.length;
  if (scores.length <= room) return `Trend  ${sparkline(scores)}  ${summary}`;
  const drawn = room - ` (the last ${room} drawn)`.length;
  if (drawn >= MIN_BARS_BESIDE_SUMMARY) return `Trend  ${sparkline(scores.slice(-drawn))}  ${summary} (the last ${drawn} drawn)`;
  const alone = Math.max(1, width - 'Trend  '.length);
  if (scores.length <= alone) return `Trend  ${sparkline(scores)}\n${summary}`;
  return `Trend  ${sparkline(scores.slice(-alone))}\n${summary}, the last ${alone} drawn`;
}

/** The local date and time, marked when in the future. */
function dateText(point: HistoryPoint, future: boolean | undefined): string {
  return future ? `${localDateTime(point.at)} (future)` : localDateTime(point.at);
}

function scoreWithScale(point: HistoryPoint): string {
  return point.scale === undefined ? scoreText(point.score) : `${scoreText(point.score)} / ${point.scale}`;
}

/** The company's name as the answer gave it, else the name asked for; one inert line. */
function shownName(point: HistoryPoint): string {
  return scrubLine(point.name ?? point.query);
}
