// The summary a person sees after a batch of audits: one row per input name, in input order.
import type { IO } from '../io.js';
import type { BatchSummary } from './batch.js';
import { scrubLine } from './scrub.js';
import { drawGrid, formatScore, loadTableKit, sharedDecimals, type TableKit } from './table-kit.js';

/** The exit code of a company that does not exist (see the contract's exit codes). */
const NOT_FOUND_EXIT = 3;

function summaryRow(kit: TableKit, summary: BatchSummary, scoreDecimals: number): string[] {
  const query = scrubLine(summary.query);
  if (summary.error) {
    const status = summary.error.exit === NOT_FOUND_EXIT ? 'not found' : scrubLine(summary.error.message);
    return [query, '—', '—', '—', kit.chalk.red(status)];
  }
  const scoreText = summary.score === undefined ? '—' : formatScore(summary.score, summary.scoreMax, scoreDecimals);
  return [query, summary.company === undefined ? '—' : scrubLine(summary.company), scoreText, String(summary.sources ?? 0), kit.chalk.green('ok')];
}

export async function drawBatchSummary(io: IO, summaries: readonly BatchSummary[], signal?: AbortSignal): Promise<string> {
  if (summaries.length === 0) return '';
  const kit = await loadTableKit(io, signal);
  const scoreDecimals = sharedDecimals(summaries.map((summary) => summary.score));
  const rows = summaries.map((summary) => summaryRow(kit, summary, scoreDecimals));
  return drawGrid(kit, ['Query', 'Company', 'Score', 'Sources', 'Status'], rows, ['left', 'left', 'right', 'right', 'left']);
}
