// `--format markdown` for audit, search, pulse and batches: GFM tables ready for $GITHUB_STEP_SUMMARY
// or a pull-request comment. Every cell goes through markdownCell (scrubbed, `|` and markup escaped).
import { changeText, scoreText, type Change } from '../history/change.js';
import type { AuditView, PulseView, SearchView } from '../views/index.js';
import type { BatchSummary } from './batch-record.js';
import { columnsOf } from './csv.js';
import { searchRecords } from './csv-views.js';
import { serializeJson } from '../text.js';
import { markdownRow, markdownTable } from './markdown.js';

/** A value as a cell's text: numbers as JSON writes them, objects as JSON, nothing as empty. */
function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? serializeJson(value) : String(value);
}

/** `73.0 / 100`, the score as every view writes one; `—` without one. */
function scoreCell(score: number | undefined, max: number | undefined): string {
  return score === undefined ? '—' : max === undefined ? scoreText(score) : `${scoreText(score)} / ${max}`;
}

function changeCell(change: Change | undefined, since = false): string {
  return change ? changeText(change, { since }) : '—';
}

/** The company's line (with its change since the previous point), then a row per source. */
export function auditMarkdown(view: AuditView, change?: Change): string {
  const head = markdownTable(
    ['Company', 'Score', 'Change', 'Reviews'],
    [[cellText(view.name), scoreCell(view.score, view.scoreMax), changeCell(change, true), cellText(view.reviews)]],
    ['left', 'right', 'left', 'right'],
  );
  if (view.sources.length === 0) return head;
  const sources = markdownTable(
    ['Source', 'Rating', 'Reviews'],
    view.sources.map((row) => [row.source, cellText(row.rating), cellText(row.reviews)]),
    ['left', 'right', 'right'],
  );
  return `${head}\n${sources}`;
}

/** One table of every result, its type first (the CSV's columns). */
export function searchMarkdown(view: SearchView): string {
  const records = searchRecords(view);
  const columns = columnsOf(records, ['type', 'name']);
  return markdownTable(
    columns,
    records.map((record) => columns.map((key) => cellText(record[key]))),
  );
}

export function pulseMarkdown(view: PulseView): string {
  return markdownTable(['index', ...view.details.map(([key]) => key)], [[cellText(view.index), ...view.details.map(([, value]) => cellText(value))]]);
}

/** A batch's table head: made when a batch writes markdown, not as the module loads (its cells' scrubbing compiles a large pattern). */
export function batchMarkdownHead(): string {
  return markdownTable(['Query', 'Company', 'Score', 'Change', 'Sources', 'Status'], [], ['left', 'left', 'right', 'left', 'right', 'left']);
}

/** One batch record's row under batchMarkdownHead(). */
export function batchMarkdownRow(summary: BatchSummary): string {
  const row = summary.error
    ? [summary.query, '', '—', '—', '—', summary.error.message]
    : [summary.query, cellText(summary.company), scoreCell(summary.score, summary.scoreMax), changeCell(summary.change), cellText(summary.sources), 'ok'];
  return markdownRow(row);
}
