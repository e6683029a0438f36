// Flat CSV rows for each endpoint's view: a row per source, per search result, or one for the pulse.
import { columnsOf, csvRow } from './csv.js';
import type { AuditView, PulseView, SearchView } from '../views/index.js';

const AUDIT_COLUMNS = ['company', 'score', 'source', 'rating', 'reviews'];

/** Header and a row per source (one row with empty source cells when there are none). */
export function auditCsv(view: AuditView): string {
  // A source's extra field named like a fixed column is prefixed so the header stays unambiguous.
  const extraName = (key: string) => (AUDIT_COLUMNS.includes(key) ? `source.${key}` : key);
  const extras = view.sources.map((row) => Object.fromEntries(row.extra.map(([key, value]) => [extraName(key), value])));
  const columns = columnsOf(extras, AUDIT_COLUMNS);
  const extraColumns = columns.slice(AUDIT_COLUMNS.length);
  return csvRow(columns) + auditRows(view, [], (index) => (index === undefined ? [] : extraColumns.map((key) => extras[index]?.[key])));
}

/**
 * The rows of one audit: `lead` cells, company and score, then a source's cells and `trail(index)`;
 * without sources, one row for the company as a whole (`trail(undefined)`): no source, no rating,
 * and its own total of reviews where the body gives one.
 */
export function auditRows(view: AuditView, lead: readonly unknown[], trail: (index: number | undefined) => readonly unknown[]): string {
  const company = [...lead, view.name, view.score];
  if (view.sources.length === 0) return csvRow([...company, '', '', view.reviews, ...trail(undefined)]);
  return view.sources.map((row, index) => csvRow([...company, row.source, row.rating, row.reviews, ...trail(index)])).join('');
}

/** One record per result, with its type first. */
export function searchRecords(view: SearchView): Array<Record<string, unknown>> {
  return view.groups.flatMap((group) => group.rows.map((row) => ({ type: group.type, ...row })));
}

export function searchCsv(view: SearchView): string {
  const records = searchRecords(view);
  const columns = columnsOf(records, ['type', 'name']);
  return csvRow(columns) + records.map((record) => csvRow(columns.map((key) => record[key]))).join('');
}

export function pulseCsv(view: PulseView): string {
  const columns = ['index', ...view.details.map(([key]) => key)];
  return csvRow(columns) + csvRow([view.index, ...view.details.map(([, value]) => value)]);
}
