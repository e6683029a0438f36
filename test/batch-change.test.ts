// The batch summary's Change column: there only when some score has a previous point, arrows in
// the cell, and still fitting narrow terminals (down to 40 columns, then cards).
import { describe, expect, it } from 'vitest';
import { changeFrom } from '../src/history/change.js';
import { testIO } from '../src/io.js';
import { drawBatchSummary } from '../src/output/batch-table.js';
import { displayWidth } from '../src/output/text-width.js';
import type { BatchSummary } from '../src/output/batch-record.js';

const AT = '2026-11-01T08:00:00Z';
const summaries: BatchSummary[] = [
  { query: 'Blue Bottle Coffee', company: 'Blue Bottle Coffee', score: 73, scoreMax: 100, sources: 3, change: changeFrom({ at: AT, score: 80 }, 73)! },
  { query: 'Stumptown', company: 'Stumptown Coffee Roasters', score: 91.5, scoreMax: 100, sources: 2 },
  { query: 'Missing', error: { exit: 3, message: 'no company named "Missing"' } },
];

describe('batch summary: Change column', () => {
  it.each([40, 60, 80])('shows the change at %i columns and fits', async (columns) => {
    const table = await drawBatchSummary(testIO({ columns }), summaries);
    expect(table).toContain('▼ 7.0');
    for (const line of table.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
  });

  it('has a Change column at 80 columns, and none when no score has a previous point', async () => {
    expect(await drawBatchSummary(testIO({ columns: 80 }), summaries)).toMatch(/│ Change │/);
    const without = summaries.map(({ change: _change, ...rest }) => rest);
    expect(await drawBatchSummary(testIO({ columns: 80 }), without)).not.toContain('Change');
  });
});
