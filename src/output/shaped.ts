// Output shaped by `--fields` (the named fields of the normalised records) and `--query` (JMESPath
// over the JSON document rep would print), for one answer, a batch, or a history.
import type { Format } from '../deps.js';
import type { Change } from '../history/change.js';
import type { IO } from '../io.js';
import { batchItem, type BatchRecord } from './batch-record.js';
import type { BatchWriter } from './batch.js';
import { csvRow } from './csv.js';
import { auditRecord, pick, pulseFieldRecord, searchFieldRecords, writeFieldRecords, type FieldRecord } from './fields.js';
import { jsonText } from './json-text.js';
import type { Query } from './query.js';
import { writeQueryResult } from './query.js';
import type { ViewedBody } from './render.js';

export interface Shape {
  fields?: readonly string[] | undefined;
  query?: Query | undefined;
}

/** Records and the document a query reads without --fields: the answer's own JSON. */
export interface Shapeable {
  records: () => FieldRecord[];
  document: () => unknown;
  /** One record (an audit, the pulse): json prints an object, not an array. */
  single: boolean;
}

export async function writeShapedRecords(io: IO, format: Format, { records, document, single }: Shapeable, { fields, query }: Shape): Promise<void> {
  if (query) {
    const picked = fields ? records().map((record) => pick(record, fields)) : undefined;
    writeQueryResult(io, query(picked ? (single ? (picked[0] ?? null) : picked) : document()), format);
    return;
  }
  await writeFieldRecords(io, records(), fields ?? [], format, single);
}

/** One answer of audit, search or pulse. */
export async function writeShaped(
  io: IO,
  answer: ViewedBody,
  format: Format,
  shape: Shape,
  { change, asked = '' }: { change?: Change; asked?: string } = {},
): Promise<void> {
  const records = (): FieldRecord[] => {
    if (answer.endpoint === 'search') return searchFieldRecords(answer.view);
    if (answer.endpoint === 'pulse') return [pulseFieldRecord(answer.view)];
    return [auditRecord({ query: asked, view: answer.view }, change)];
  };
  await writeShapedRecords(io, format, { records, document: () => answer.body, single: answer.endpoint !== 'search' }, shape);
}

/** A batch: without --query, ndjson and csv stream as records come; everything else is written at the end. */
export function shapedBatchWriter(io: IO, format: Format, { fields, query }: Shape): BatchWriter {
  const kept: FieldRecord[] = [];
  const raw: BatchRecord[] = [];
  const streams = !query && fields && (format === 'ndjson' || format === 'csv');
  let open = true;
  let first = true;
  return {
    readsResult: true,
    write(record, change, _resultJson, view) {
      if (!open) return false;
      const picked = fields ? pick(auditRecord(batchItem(record, view), change), fields) : undefined;
      if (streams && picked && fields) {
        const head = first && format === 'csv' ? csvRow(fields) : '';
        first = false;
        open = io.out(format === 'csv' ? head + csvRow(fields.map((name) => picked[name])) : `${jsonText(picked)}\n`);
        return open;
      }
      if (picked) kept.push(picked);
      else raw.push(record);
      return !io.stdoutClosed.aborted;
    },
    async end(options) {
      if (!open || io.stdoutClosed.aborted || options?.interrupted) return;
      if (streams && first && fields && format === 'csv') io.out(csvRow(fields));
      else if (query) writeQueryResult(io, query(fields ? kept : raw), format);
      else if (!streams && fields) await writeFieldRecords(io, kept, fields, format);
      open = false;
      await io.drain();
    },
    close() {}, // only ndjson and csv stream, and they need no closing
  };
}
