// The summary a person sees after a batch of audits: one row per input name, in input order.
import type { IO } from '../io.js';
import type { BatchRecord } from './batch.js';
import { scrubLine } from './scrub.js';
import { auditView } from './shape.js';
import { drawGrid, formatNumber, loadTableKit, type TableKit } from './table-kit.js';

/** The exit code of a company that does not exist (see the contract's exit codes). */
const NOT_FOUND_EXIT = 3;

function summaryRow(kit: TableKit, record: BatchRecord): string[] {
  const query = scrubLine(record.query);
  if ('error' in record) {
    const status = record.error.exit === NOT_FOUND_EXIT ? 'not found' : scrubLine(record.error.message);
    return [query, '—', '—', '—', kit.chalk.red(status)];
  }
  const view = auditView(record.result);
  const score = view.score === undefined ? '—' : `${formatNumber(view.score)}${view.scoreMax === undefined ? '' : ` / ${formatNumber(view.scoreMax)}`}`;
  return [query, view.name === undefined ? '—' : scrubLine(view.name), score, String(view.sources.length), kit.chalk.green('ok')];
}

export async function drawBatchSummary(io: IO, records: readonly BatchRecord[]): Promise<string> {
  if (records.length === 0) return '';
  const kit = await loadTableKit(io);
  const rows = records.map((record) => summaryRow(kit, record));
  return drawGrid(kit, ['Query', 'Company', 'Score', 'Sources', 'Status'], rows, ['left', 'left', 'right', 'right', 'left']);
}
