// The summary a person sees after a batch of audits: one row per input name, in input order. It fits
// the terminal: names and long statuses give way, the score never does; where even that cannot fit,
// each name becomes a card of its own, as search results do.
import type { IO } from '../io.js';
import type { BatchSummary } from './batch-record.js';
import { scrubLine } from '../text.js';
import { changeText, type Change } from '../history/change.js';
import { colourChange, drawGrid, formatScore, loadTableKit, sharedDecimals, type TableKit } from './table-kit.js';
import { displayWidth, truncateToWidth } from './text-width.js';

/** Exit codes with a word of their own in the Status column (see the contract's exit codes). */
const STATUS_WORDS: Record<number, string> = { 3: 'not found', 5: 'rate limited' };
const HEAD = ['Company', 'Score', 'Sources', 'Status'];
/** The columns when some score has a previous point: its change, after the score. */
const HEAD_WITH_CHANGE = ['Company', 'Score', 'Change', 'Sources', 'Status'];
/** Borders and cli-table3's padding around `columns` columns. */
const frame = (columns: number) => columns + 1 + 2 * columns;
/** The narrowest the Company column may get before the table gives way to cards. */
const MIN_NAME = 12;
/** Status words are never cut; a longer error message may be, down to this. */
const MIN_STATUS = 'rate limited'.length;

/** One name's cells as plain text: colour is added once they are cut to fit. */
interface Cells {
  company: string;
  /** The query, when the company answered under another name. */
  query?: string;
  score: string;
  sources: string;
  status: string;
  ok: boolean;
  change?: Change;
}

function cellsOf(summary: BatchSummary, scoreDecimals: number): Cells {
  const query = scrubLine(summary.query);
  if (summary.error) {
    const status = STATUS_WORDS[summary.error.exit] ?? scrubLine(summary.error.message);
    return { company: query, score: '—', sources: '—', status, ok: false };
  }
  const company = summary.company === undefined ? query : scrubLine(summary.company);
  return {
    company,
    ...(sameName(company, query) ? {} : { query }),
    score: summary.score === undefined ? '—' : formatScore(summary.score, summary.scoreMax, scoreDecimals),
    sources: String(summary.sources ?? 0),
    status: 'ok',
    ok: true,
    ...(summary.change ? { change: summary.change } : {}),
  };
}

/** Whether two names read the same to a person (case and spacing aside). */
function sameName(a: string, b: string): boolean {
  const normal = (text: string) => text.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
  return normal(a) === normal(b);
}

export async function drawBatchSummary(io: IO, summaries: readonly BatchSummary[], signal?: { readonly aborted: boolean }): Promise<string> {
  if (summaries.length === 0) return '';
  const kit = await loadTableKit(io, signal);
  const scoreDecimals = sharedDecimals(summaries.map((summary) => summary.score));
  const cells = summaries.map((summary) => cellsOf(summary, scoreDecimals));
  const withChange = cells.some((cell) => cell.change);
  const widths = columnWidths(cells, kit.width, withChange);
  return widths ? drawTable(kit, cells, widths, withChange) : drawCards(kit, cells);
}

/** Company and Status widths that fit beside a whole Score and Sources, or undefined when none do. */
function columnWidths(cells: readonly Cells[], width: number, withChange: boolean): { company: number; status: number } | undefined {
  // Capped at the line's width: no column can use more, and a huge name then costs no more than a long one.
  const widest = (pick: (cell: Cells) => string, title: string) =>
    cells.reduce((most, cell) => Math.max(most, Math.min(width, displayWidth(pick(cell)))), displayWidth(title));
  const change = withChange ? widest(changeCell, 'Change') : 0;
  const room =
    width -
    frame(withChange ? HEAD_WITH_CHANGE.length : HEAD.length) -
    widest((cell) => cell.score, 'Score') -
    change -
    widest((cell) => cell.sources, 'Sources');
  let company = widest(tableName, 'Company');
  let status = widest((cell) => cell.status, 'Status');
  const least = { company: Math.min(company, MIN_NAME), status: Math.min(status, MIN_STATUS) };
  if (least.company + least.status > room) return undefined;
  // The wider of the two gives way first, a column at a time.
  while (company + status > room) {
    if ((company >= status && company > least.company) || status <= least.status) company -= 1;
    else status -= 1;
  }
  return { company, status };
}

/** The name in a table row: the query noted after the company's name where they differ. */
function tableName(cell: Cells): string {
  return cell.query === undefined ? cell.company : `${cell.company} (query: ${cell.query})`;
}

/** `▼ 7.0`, or an empty cell where there is no previous point. */
function changeCell(cell: Cells): string {
  return cell.change ? changeText(cell.change) : '';
}

function statusText(kit: TableKit, cell: Cells, status: string): string {
  return cell.ok ? kit.chalk.green(status) : kit.chalk.red(status);
}

function drawTable(kit: TableKit, cells: readonly Cells[], widths: { company: number; status: number }, withChange: boolean): Promise<string> {
  const rows = cells.map((cell) => [
    truncateToWidth(tableName(cell), widths.company),
    cell.score,
    ...(withChange ? [cell.change ? colourChange(kit, cell.change) : ''] : []),
    cell.sources,
    statusText(kit, cell, truncateToWidth(cell.status, widths.status)),
  ]);
  if (!withChange) return drawGrid(kit, HEAD, rows, ['left', 'right', 'right', 'left']);
  return drawGrid(kit, HEAD_WITH_CHANGE, rows, ['left', 'right', 'right', 'right', 'left']);
}

/** One key/value card per name; a name that failed shows only what is known of it. */
async function drawCards(kit: TableKit, cells: readonly Cells[]): Promise<string> {
  const cards: string[] = [];
  for (const cell of cells) {
    const rows = [['Company', cell.company]];
    if (cell.query !== undefined) rows.push(['Query', cell.query]);
    if (cell.ok) rows.push(['Score', cell.score], ...(cell.change ? [['Change', colourChange(kit, cell.change)]] : []), ['Sources', cell.sources]);
    rows.push(['Status', statusText(kit, cell, cell.status)]);
    cards.push(await drawGrid(kit, undefined, rows));
  }
  return cards.join('');
}
