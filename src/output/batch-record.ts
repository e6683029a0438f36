// A batch record as the CLI's renderers see it (the library has no batches): the audit view of its body, built once, or its error; and
// the summary row the batch table keeps of it (not the body, so a long batch stays small).
import type { Change } from '../history/change.js';
import { auditView, type AuditView } from '../views/audit.js';

/** One record per input name, as JSON and NDJSON write it. */
export type BatchRecord = { query: string; result: unknown } | { query: string; error: { exit: number; message: string } };

export type BatchItem = { query: string; view: AuditView } | { query: string; error: { exit: number; message: string } };

/** `view`, when the caller has it, is the result's audit view already (the client's, of the same body): not built again. */
export function batchItem(record: BatchRecord, view?: AuditView): BatchItem {
  return 'error' in record ? record : { query: record.query, view: view ?? auditView(record.result) };
}

/** What the summary table shows of a name. */
export interface BatchSummary {
  query: string;
  company?: string;
  score?: number;
  scoreMax?: number;
  sources?: number;
  error?: { exit: number; message: string };
  /** The score's change since its previous recorded point. */
  change?: Change;
}

export function batchSummary(item: BatchItem): BatchSummary {
  if ('error' in item) return { query: item.query, error: item.error };
  const { view } = item;
  return { query: item.query, company: view.name, score: view.score, scoreMax: view.scoreMax, sources: view.sources.length };
}
