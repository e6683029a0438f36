// Building blocks for human tables: cli-table3 loaded only when a table is drawn, colour through
// chalk at the IO's level, and column widths chosen so no line is wider than the terminal.
import { changeText, type Change } from '../history/change.js';
import type CliTable3 from 'cli-table3';
import { Chalk, type ChalkInstance } from 'chalk';
import { checkpoint } from '../interrupt.js';
import type { IO } from '../io.js';
import type { DetailRow } from '../views/index.js';
import { formatDecimal } from '../numbers.js';
import { scrubLine, serializeJson } from '../text.js';
import { displayWidth, truncateToWidth } from './text-width.js';

export interface TableKit {
  Table: CliTable3;
  chalk: ChalkInstance;
  /** The widest a line may be. */
  width: number;
  /** Called between blocks of rows: a long table stops there on Ctrl-C or SIGTERM (InterruptedError). */
  pause(): Promise<void>;
}

export async function loadTableKit(io: IO, signal?: { readonly aborted: boolean }): Promise<TableKit> {
  const { default: Table } = await import('cli-table3');
  return { Table, chalk: new Chalk({ level: io.colorOut ? 1 : 0 }), width: Math.max(io.columns, 20), pause: () => checkpoint(signal) };
}

/** Narrowest a column's content may get before the table gives up on columns and lists key/value pairs. */
const MIN_CONTENT = 6;
/** cli-table3's padding (one space each side) is inside the width it is given. */
const PADDING = 2;
/** Rows per cli-table3 table: its layout time grows with the square of the rows, and ~120,000 overflow its stack. */
const ROWS_PER_BLOCK = 200;
/** Detail rows drawn at most; JSON output has them all. */
const MAX_DETAIL_ROWS = 200;

/**
 * Widths (padding included) that fit `width` columns with borders: the widest columns shrink first,
 * down to a common cap, so short columns keep their natural size.
 */
export function fitColumns(natural: readonly number[], width: number): number[] {
  const budget = width - (natural.length + 1) - PADDING * natural.length;
  const total = natural.reduce((sum, each) => sum + each, 0);
  if (total <= budget) return natural.map((each) => each + PADDING);
  let cap = Math.max(...natural);
  while (cap > MIN_CONTENT && natural.reduce((sum, each) => sum + Math.min(each, cap), 0) > budget) cap -= 1;
  return natural.map((each) => Math.max(1, Math.min(each, cap)) + PADDING);
}

export function fitsAsColumns(count: number, width: number): boolean {
  return count * (MIN_CONTENT + PADDING + 1) + 1 <= width;
}

/** A number for people: at most two decimals (at least `decimals`), thousands grouped when `grouped`. */
export function formatNumber(value: number, grouped = false, decimals = 0): string {
  return formatDecimal(value, { minDecimals: decimals, grouped });
}

/** `87.4 / 100`, or the score alone when the scale is unknown; one decimal at least, as scoreText writes a score everywhere. */
export function formatScore(score: number, max: number | undefined, decimals = 1): string {
  const text = formatNumber(score, false, Math.max(1, decimals));
  return max === undefined ? text : `${text} / ${formatNumber(max)}`;
}

/** Decimals a column of numbers shares (at most 2), so 90 and 99.6 line up as 90.0 and 99.6. */
export function sharedDecimals(values: readonly unknown[]): number {
  let decimals = 0;
  for (const value of values) {
    if (typeof value === 'number' && Number.isFinite(value)) decimals = Math.max(decimals, Math.min(2, (/\.(\d+)$/.exec(String(value))?.[1] ?? '').length));
  }
  return decimals;
}

/** Any JSON value as one line of inert text for a cell. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string') return scrubLine(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return scrubLine(serializeJson(value));
}

/** A line of text cut to the kit's width (for titles and headers outside tables). */
export function fitLine(kit: TableKit, text: string): string {
  return truncateToWidth(text, kit.width);
}

export type Align = 'left' | 'right';

/**
 * Draws a grid of already-scrubbed cells; cli-table3 cuts any cell longer than its column with `…`.
 * Cells are first cut to twice the line's width, which changes nothing drawn: cli-table3 cuts wide
 * text one character at a time, measuring the whole cell each time, so a long cell would take minutes.
 * Long grids are drawn in blocks of rows with the same widths (see ROWS_PER_BLOCK), pausing after each.
 */
export async function drawGrid(kit: TableKit, head: readonly string[] | undefined, rows: readonly string[][], align: readonly Align[] = []): Promise<string> {
  const cut = (cell: string | undefined) => truncateToWidth(cell ?? '', 2 * kit.width);
  // Loops rather than Math.max(...rows): spreading a long batch's rows would overflow the stack.
  let count = head?.length ?? 0;
  for (const row of rows) count = Math.max(count, row.length);
  const titles = head?.map(cut);
  const natural = Array.from({ length: count }, (_, column) => Math.max(1, displayWidth(titles?.[column] ?? '')));
  const cells: string[][] = [];
  for (const row of rows) {
    const cutRow = Array.from({ length: count }, (_, column) => cut(row[column]));
    for (const [column, cell] of cutRow.entries()) natural[column] = Math.max(natural[column] ?? 1, displayWidth(cell));
    if (cells.push(cutRow) % ROWS_PER_BLOCK === 0) await kit.pause();
  }
  const colWidths = fitColumns(natural, kit.width);
  const colAligns = Array.from({ length: count }, (_, column) => align[column] ?? 'left');
  const blocks: string[] = [];
  for (let start = 0; start === 0 || start < cells.length; start += ROWS_PER_BLOCK) {
    const first = start === 0;
    const last = start + ROWS_PER_BLOCK >= cells.length;
    const table = new kit.Table({
      head: first && titles ? titles.map((title) => kit.chalk.bold(title)) : [],
      colWidths,
      colAligns,
      wordWrap: false,
      style: { head: [], border: [], compact: true },
    });
    table.push(...cells.slice(start, start + ROWS_PER_BLOCK));
    // Blocks join as one grid: all but the first lose their top border, all but the last their bottom one.
    const lines = table.toString().split('\n');
    blocks.push(lines.slice(first ? 0 : 1, last ? undefined : -1).join('\n'));
    await kit.pause();
  }
  return `${blocks.join('\n')}\n`;
}

/** The last word of a label that names rather than counts: its number keeps its digits as they are (`Company id 12345`). */
const NAMING_WORDS = new Set(['id', 'year', 'code', 'zip', 'phone', 'port', 'version', 'at', 'timestamp', 'ts', 'epoch']);

/** A detail's number: thousands grouped when it counts something, every decimal kept (a detail may be a coordinate). */
function detailNumber(value: number, label: string): string {
  const text = String(value);
  const plain = /^(-?\d+)(\.\d+)?$/.exec(text);
  if (!plain || NAMING_WORDS.has(label.split(' ').at(-1)!.toLowerCase())) return text;
  return `${plain[1]!.replace(/\B(?=(\d{3})+$)/g, ',')}${plain[2] ?? ''}`;
}

/** Key/value rows for everything the known fields did not cover, labelled like column titles, capped with a note on what was left out. */
export async function drawDetails(kit: TableKit, details: readonly DetailRow[], title = 'Details'): Promise<string> {
  if (details.length === 0) return '';
  const shown = details.slice(0, MAX_DETAIL_ROWS).map(([key, value]) => {
    const label = scrubLine(titleOf(key));
    return [label, typeof value === 'number' ? detailNumber(value, label) : cellText(value)];
  });
  const omitted = details.length - shown.length;
  const note = omitted > 0 ? `${kit.chalk.dim(fitLine(kit, `… ${omitted} more fields; --format json shows them all`))}\n` : '';
  return `${kit.chalk.bold(fitLine(kit, title))}\n${await drawGrid(kit, undefined, shown)}${note}`;
}

export interface Column {
  key: string;
  title: string;
  align?: Align;
  /** Numbers in this column get thousands separators (review counts). */
  grouped?: boolean;
}

/**
 * Records as a table with a column each; as key/value blocks when the columns cannot fit the width.
 * Work is linear in the records' fields, however many columns they make together.
 */
export async function drawRecords(kit: TableKit, columns: readonly Column[], records: ReadonlyArray<Record<string, unknown>>): Promise<string> {
  const decimals = new Map<string, number>();
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) decimals.set(key, Math.max(decimals.get(key) ?? 0, sharedDecimals([value])));
  }
  const show = (column: Column, record: Record<string, unknown>) => {
    const value = record[column.key];
    return typeof value === 'number' ? formatNumber(value, column.grouped, decimals.get(column.key)) : cellText(value);
  };
  if (fitsAsColumns(columns.length, kit.width)) {
    const rows = records.map((record) => columns.map((column) => show(column, record)));
    return drawGrid(
      kit,
      columns.map((column) => scrubLine(column.title)),
      rows,
      columns.map((column) => column.align ?? 'left'),
    );
  }
  const position = new Map(columns.map((column, index) => [column.key, index]));
  const blocks: string[] = [];
  for (const record of records) {
    // The record's own fields in column order (not every column asked of every record).
    const own = Object.keys(record)
      .flatMap((key) => position.get(key) ?? [])
      .sort((a, b) => a - b);
    blocks.push(
      await drawGrid(
        kit,
        undefined,
        own.map((index) => columns[index]!).map((column) => [scrubLine(column.title), show(column, record)]),
      ),
    );
  }
  return blocks.join('');
}

/** A column title from a field name: `review_count` → `Review count`. */
export function titleOf(key: string): string {
  const spaced = key
    .replace(/[_.]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim();
  return spaced === '' ? key : spaced.charAt(0).toUpperCase() + spaced.slice(1).toLowerCase();
}

/** Score colours by band of the scale: good, middling, poor. */
/** `▼ 7.0 since 2026-11-01`: red down, green up, dim unchanged (the arrow says it without colour too). */
export function colourChange(kit: TableKit, change: Change, options: { since?: boolean } = {}): string {
  const paint = change.direction === 'down' ? kit.chalk.red : change.direction === 'up' ? kit.chalk.green : kit.chalk.dim;
  return paint(changeText(change, options));
}

export function colourScore(kit: TableKit, text: string, score: number, max: number | undefined): string {
  const scale = max ?? (score <= 5 ? 5 : score <= 10 ? 10 : 100); // the range is undocumented: guess from the value
  const ratio = scale > 0 ? score / scale : 0;
  const paint = ratio >= 0.8 ? kit.chalk.green : ratio >= 0.6 ? kit.chalk.yellow : kit.chalk.red;
  return paint.bold(text);
}
