// Output for a batch of audits, one record per input name in input order. Machine formats stream
// each record as it is written; the table is drawn once at the end, as a summary.
import type { Format } from '../deps.js';
import type { IO } from '../io.js';
import { csvRow } from './csv.js';
import { auditRows } from './csv-views.js';
import { jsonText } from './json-text.js';
import { auditView } from '../views/index.js';

export type BatchRecord =
  | { query: string; result: unknown }
  | { query: string; error: { exit: number; message: string } };

export interface BatchWriter {
  /** Writes (or keeps) one record; false once stdout has been closed by its reader. */
  write(record: BatchRecord): boolean;
  /**
   * Closes the output (the JSON array's `]`, the table) and waits for stdout to drain. Interrupted,
   * it only closes what was streamed: the table, never drawn yet, is not drawn at all.
   */
  end(options?: { interrupted?: boolean }): Promise<void>;
}

const BATCH_CSV_COLUMNS = ['query', 'company', 'score', 'source', 'rating', 'reviews', 'error'];

function batchCsvRows(record: BatchRecord): string {
  if ('error' in record) return csvRow([record.query, '', '', '', '', '', record.error.message]);
  return auditRows(auditView(record.result), [record.query], () => ['']);
}

/** Streams records through `line`, with `open` before the first and `close` after the last. */
function streamingWriter(io: IO, parts: { open: () => string; line: (record: BatchRecord, first: boolean) => string; close: (any: boolean) => string }): BatchWriter {
  let written = 0;
  let open = true;
  return {
    write(record) {
      if (!open) return false;
      const prefix = written === 0 ? parts.open() : '';
      open = io.out(prefix + parts.line(record, written === 0));
      written += 1;
      return open;
    },
    async end() {
      if (open) io.out((written === 0 ? parts.open() : '') + parts.close(written > 0));
      await io.drain();
    },
  };
}

/** What the summary table shows of a record: kept instead of the body so a long batch stays small. */
export interface BatchSummary {
  query: string;
  company?: string;
  score?: number;
  scoreMax?: number;
  sources?: number;
  error?: { exit: number; message: string };
}

function summaryOf(record: BatchRecord): BatchSummary {
  if ('error' in record) return { query: record.query, error: record.error };
  const view = auditView(record.result);
  return { query: record.query, company: view.name, score: view.score, scoreMax: view.scoreMax, sources: view.sources.length };
}

function tableWriter(io: IO, signal: AbortSignal | undefined): BatchWriter {
  const summaries: BatchSummary[] = [];
  return {
    write(record) {
      summaries.push(summaryOf(record));
      return !io.stdoutClosed.aborted;
    },
    async end(options) {
      if (io.stdoutClosed.aborted || options?.interrupted) return;
      const { drawBatchSummary } = await import('./batch-table.js');
      io.out(await drawBatchSummary(io, summaries, signal));
      await io.drain();
    },
  };
}

/** `signal` (Ctrl-C, SIGTERM) stops drawing a long summary table between blocks of rows. */
export function createBatchWriter(io: IO, format: Format, signal?: AbortSignal): BatchWriter {
  switch (format) {
    case 'ndjson':
      return streamingWriter(io, { open: () => '', line: (record) => `${jsonText(record)}\n`, close: () => '' });
    case 'json':
      return streamingWriter(io, {
        open: () => '[',
        line: (record, first) => `${first ? '\n' : ',\n'}${jsonText(record)}`,
        close: (any) => (any ? '\n]\n' : ']\n'),
      });
    case 'csv':
      return streamingWriter(io, { open: () => csvRow(BATCH_CSV_COLUMNS), line: batchCsvRows, close: () => '' });
    case 'table':
      return tableWriter(io, signal);
  }
}
