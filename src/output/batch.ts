// Output for a batch of audits, one record per input name in input order. Machine formats stream
// each record as it is written; the table is drawn once at the end, as a summary.
import type { Format } from '../deps.js';
import type { Change } from '../history/change.js';
import type { AuditView } from '../views/audit.js';
import type { IO } from '../io.js';
import { batchItem, batchSummary, type BatchRecord, type BatchSummary } from './batch-record.js';
import { BOM, csvRow } from './csv.js';
import { auditRows } from './csv-views.js';
import { companyReviews } from './fields.js';
import { colourJson } from './json-colour.js';
import { jsonText } from './json-text.js';
import { escapeTerminalActive } from '../text.js';
import { batchMarkdownHead, batchMarkdownRow } from './markdown-views.js';
import type { RenderOptions } from './render.js';

export type { BatchRecord } from './batch-record.js';

export interface BatchWriter {
  /**
   * Writes (or keeps) one record; false once stdout has been closed by its reader. `resultJson`, when
   * the caller has it, is the record's result as serializeJson writes it: JSON formats use it rather
   * than serialize the result again. `view`, when the caller has it, is the result's audit view: the
   * other formats use it rather than build it again (batchItem).
   */
  write(record: BatchRecord, change?: Change, resultJson?: string, view?: AuditView): boolean;
  /**
   * Whether write() reads a record's result or view when it has the result's JSON text: false for the
   * JSON formats, which write the text. A batch keeps an answer's parsed body and view until its record
   * is written only for a writer that reads them.
   */
  readonly readsResult: boolean;
  /**
   * Closes the output (the JSON array's `]`, the table) and waits for stdout to drain. Interrupted,
   * it only closes what was streamed: the table, never drawn yet, is not drawn at all.
   */
  end(options?: { interrupted?: boolean }): Promise<void>;
  /** Closes only what was streamed, now and synchronously (the JSON array's `]`): for a process about to exit. */
  close(): void;
}

/** The default: one row per company, the shape a spreadsheet user wants. */
const BATCH_CSV_COLUMNS = ['query', 'name', 'city', 'category', 'score', 'reviews', 'change', 'error'];
/** `--csv-sources`: a row per source, the company's cells repeated. */
const PER_SOURCE_CSV_COLUMNS = ['query', 'company', 'score', 'source', 'rating', 'reviews', 'error'];

function batchCsvRow(record: BatchRecord, change: Change | undefined, known: AuditView | undefined): string {
  const item = batchItem(record, known);
  if ('error' in item) return csvRow([item.query, '', '', '', '', '', '', item.error.message]);
  const { view } = item;
  return csvRow([item.query, view.name, detail(view, 'city'), detail(view, 'category'), view.score, companyReviews(view), change?.delta, '']);
}

function perSourceCsvRows(record: BatchRecord, view: AuditView | undefined): string {
  const item = batchItem(record, view);
  if ('error' in item) return csvRow([item.query, '', '', '', '', '', item.error.message]);
  return auditRows(item.view, [item.query], () => ['']);
}

/** A field the view keeps among its details (`city`, `company.city`, `location.city`). */
function detail(view: AuditView, field: string): string | number | undefined {
  return view.details.find(([key]) => key === field || key.endsWith(`.${field}`))?.[1];
}

/**
 * A record's JSON text, as jsonText(record) writes it. With the result's JSON text at hand it is put
 * together around it: serializeJson writes an object's members in order, each as it would alone.
 */
function recordJson(record: BatchRecord, resultJson: string | undefined): string {
  if (resultJson === undefined || !('result' in record)) return jsonText(record);
  return escapeTerminalActive(`{"query":${JSON.stringify(record.query)},"result":${resultJson}}`);
}

/** Streams records through `line`, with `open` before the first and `close` after the last. */
function streamingWriter(
  io: IO,
  parts: {
    readsResult: boolean;
    open: () => string;
    line: (record: BatchRecord, first: boolean, change: Change | undefined, resultJson: string | undefined, view: AuditView | undefined) => string;
    close: (any: boolean) => string;
  },
): BatchWriter {
  let written = 0;
  let open = true;
  const close = () => {
    if (open) io.out((written === 0 ? parts.open() : '') + parts.close(written > 0));
    open = false;
  };
  return {
    readsResult: parts.readsResult,
    write(record, change, resultJson, view) {
      if (!open) return false;
      const prefix = written === 0 ? parts.open() : '';
      open = io.out(prefix + parts.line(record, written === 0, change, resultJson, view));
      written += 1;
      return open;
    },
    async end() {
      close();
      await io.drain();
    },
    close,
  };
}

function tableWriter(io: IO, signal: RenderOptions['signal']): BatchWriter {
  const summaries: BatchSummary[] = [];
  return {
    readsResult: true,
    write(record, change, _resultJson, view) {
      summaries.push({ ...batchSummary(batchItem(record, view)), ...(change ? { change } : {}) });
      return !io.stdoutClosed.aborted;
    },
    async end(options) {
      if (io.stdoutClosed.aborted || options?.interrupted) return;
      const { drawBatchSummary } = await import('./batch-table.js');
      io.out(await drawBatchSummary(io, summaries, signal));
      await io.drain();
    },
    close() {}, // nothing is streamed: the table is drawn at the end or not at all
  };
}

/** Whether a batch written in `format` shows each score's change (the `change` its writer is given). */
export function batchShowsChange(format: Format, { csvSources = false }: { csvSources?: boolean } = {}): boolean {
  return format === 'table' || format === 'markdown' || (format === 'csv' && !csvSources);
}

/** `signal` (Ctrl-C, SIGTERM) stops drawing a long summary table between blocks of rows; `bom` starts CSV with a BOM. */
export function createBatchWriter(
  io: IO,
  format: Format,
  { signal, bom = false, csvSources = false }: RenderOptions & { csvSources?: boolean } = {},
): BatchWriter {
  switch (format) {
    case 'ndjson':
      return streamingWriter(io, {
        readsResult: false,
        open: () => '',
        line: (record, _first, _change, resultJson) => `${recordJson(record, resultJson)}\n`,
        close: () => '',
      });
    case 'json':
      return streamingWriter(io, {
        readsResult: false,
        open: () => '[',
        line: (record, first, _change, resultJson) => {
          const text = recordJson(record, resultJson);
          return `${first ? '\n' : ',\n'}${io.colorOut ? colourJson(text) : text}`;
        },
        close: (any) => (any ? '\n]\n' : ']\n'),
      });
    case 'csv':
      if (csvSources)
        return streamingWriter(io, {
          readsResult: true,
          open: () => (bom ? BOM : '') + csvRow(PER_SOURCE_CSV_COLUMNS),
          line: (record, _first, _change, _resultJson, view) => perSourceCsvRows(record, view),
          close: () => '',
        });
      return streamingWriter(io, {
        readsResult: true,
        open: () => (bom ? BOM : '') + csvRow(BATCH_CSV_COLUMNS),
        line: (record, _first, change, _resultJson, view) => batchCsvRow(record, change, view),
        close: () => '',
      });
    case 'table':
      return tableWriter(io, signal);
    case 'markdown':
      return streamingWriter(io, {
        readsResult: true,
        open: batchMarkdownHead,
        line: (record, _first, change, _resultJson, view) => batchMarkdownRow({ ...batchSummary(batchItem(record, view)), ...(change ? { change } : {}) }),
        close: () => '',
      });
  }
}
