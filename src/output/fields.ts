// `--fields`: the named fields of the normalised view, one flat record per company, result, point or
// pulse, in any format. The records come from the views (never from a body's own keys), so the same
// fields hold whichever server answers.
import type { Format } from '../deps.js';
import type { Change } from '../history/change.js';
import type { IO } from '../io.js';
import { NAME, SCORE } from '../views/aliases.js';
import type { BatchItem } from './batch-record.js';
import { asNumber, asText, findValue } from '../views/fields.js';
import type { AuditView, PulseView, SearchView } from '../views/index.js';
import { csvRow } from './csv.js';
import { jsonDocument } from './json-colour.js';
import { jsonText } from './json-text.js';
import { markdownTable } from './markdown.js';

export type FieldRecord = Record<string, unknown>;

/** One audit's record (a batch's, with its query; or its error). */
export function auditRecord(item: BatchItem, change?: Change): FieldRecord {
  if ('error' in item) return { query: item.query, error: item.error.message, exit: item.error.exit };
  const { view } = item;
  return {
    query: item.query,
    name: view.name,
    score: view.score,
    scale: view.scoreMax,
    change: change?.delta,
    reviews: companyReviews(view),
    sources: view.sources.length,
    error: null,
    exit: null,
  };
}

/** The company's total of reviews: the body's own, else the sum over its sources where they give one. */
export function companyReviews(view: AuditView): number | undefined {
  if (view.reviews !== undefined) return view.reviews;
  const counted = view.sources.filter((row) => row.reviews !== undefined);
  return counted.length === 0 ? undefined : counted.reduce((sum, row) => sum + row.reviews!, 0);
}

/** A record per search result, its type first. */
export function searchFieldRecords(view: SearchView): FieldRecord[] {
  return view.groups.flatMap((group) =>
    group.rows.map((row) => ({
      query: view.query,
      type: group.type,
      name: findValue(row, NAME, asText)?.value,
      score: findValue(row, SCORE, asNumber)?.value,
    })),
  );
}

export function pulseFieldRecord(view: PulseView): FieldRecord {
  return { index: view.index };
}

/** Only the named fields, in the order asked; a field the record lacks is null. */
export function pick(record: FieldRecord, fields: readonly string[]): FieldRecord {
  return Object.fromEntries(fields.map((name) => [name, record[name] ?? null]));
}

/**
 * Writes picked records in `format`: json an array (or one object when `single`), ndjson a record a
 * line, csv and markdown a header and rows, table a grid.
 */
export async function writeFieldRecords(io: IO, records: readonly FieldRecord[], fields: readonly string[], format: Format, single = false): Promise<void> {
  const picked = records.map((record) => pick(record, fields));
  switch (format) {
    case 'json':
      io.out(jsonDocument(io, single ? (picked[0] ?? null) : picked));
      return;
    case 'ndjson':
      for (const record of picked) if (!io.out(`${jsonText(record)}\n`)) return;
      return;
    case 'csv':
      io.out(csvRow(fields) + picked.map((record) => csvRow(fields.map((name) => record[name]))).join(''));
      return;
    case 'markdown':
      io.out(
        markdownTable(
          fields,
          picked.map((record) => fields.map((name) => markdownValue(record[name]))),
        ),
      );
      return;
    case 'table': {
      const { drawRecords, loadTableKit } = await import('./table-kit.js');
      const kit = await loadTableKit(io);
      const columns = fields.map((name) => ({ key: name, title: name, align: picked.some((r) => typeof r[name] === 'number') ? 'right' : 'left' }) as const);
      io.out(await drawRecords(kit, columns, picked));
      return;
    }
  }
}

function markdownValue(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}
