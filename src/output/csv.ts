// RFC 4180 CSV with LF line ends, made safe for spreadsheets: server text is scrubbed of escape
// sequences, and a cell (or a part of one a `;` or tab sheet splits off) that a spreadsheet would
// run as a formula is prefixed with `'`.
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { formatDecimal } from '../numbers.js';
import { scrubText, serializeJson } from '../text.js';

/**
 * The UTF-8 byte-order mark, written before a CSV document on request (`--bom`, REP_CSV_BOM=1): Excel
 * on Windows reads a CSV without one in the local code page. Never by default: cut, awk and jq would see it.
 */
export const BOM = '\uFEFF';

/** Whether CSV output starts with the BOM: `--bom`, or REP_CSV_BOM set to 1 (or true). */
export function csvBom({ globals, env }: Pick<Deps, 'globals' | 'env'>): boolean {
  const value = env.REP_CSV_BOM?.trim().toLowerCase();
  return Boolean(globals.bom) || value === '1' || value === 'true';
}

// Leading characters that make Excel, LibreOffice or Sheets treat a cell as a formula (OWASP); no CR:
// scrubText has removed it already.
const FORMULA_START = /^[=+\-@\t]/;
// A sheet opened with `;` or tab as its separator (many European locales) splits a cell there: a part
// after one is a cell of its own, so it is guarded as well, and the cell quoted.
const PART_FORMULA = /(?<=[,;\t\r\n])[=+\-@][^,;\t\r\n]*/g;
const NEEDS_QUOTES = /[",;\t\r\n]/;
// A plain number ("-5", "-1.5e3") evaluates to itself, so it is left as is even when it came as text.
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/** One cell: numbers as JSON wrote them (a negative number is no formula), other text scrubbed and guarded. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  // Stryker disable next-line ConditionalExpression: serializeJson below writes true and false as the same words
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = scrubText(typeof value === 'string' ? value : serializeJson(value));
  const guard = (part: string) => (PLAIN_NUMBER.test(part) ? part : `'${part}`);
  const cell = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  if (!NEEDS_QUOTES.test(cell)) return cell;
  return `"${cell.replace(PART_FORMULA, guard).replaceAll('"', '""')}"`;
}

/** One record: cells joined by commas, ended by LF. */
export function csvRow(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\n`;
}

/** Columns a CSV may have: every row has a cell for each, so rows with fields of their own would grow it with their square. */
export const MAX_CSV_COLUMNS = 1000;

/** Column names in order of first appearance across rows, after the fixed ones; a UsageError past MAX_CSV_COLUMNS. */
export function columnsOf(rows: ReadonlyArray<Record<string, unknown>>, fixed: readonly string[]): string[] {
  const columns = new Set(fixed);
  for (const row of rows) {
    for (const key of Object.keys(row)) columns.add(key);
  }
  if (columns.size > MAX_CSV_COLUMNS) {
    const count = (n: number) => formatDecimal(n, { grouped: true });
    throw new UsageError(`the answer has ${count(columns.size)} different fields, too many for CSV columns (at most ${count(MAX_CSV_COLUMNS)})`, {
      hint: 'use --format json or ndjson',
    });
  }
  return [...columns];
}
