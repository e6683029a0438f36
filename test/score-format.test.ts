// One way to write a score for people (table, markdown): one decimal at least, two at most, whether
// the audit shows it or the history does (an audit's `3` was `3.0` in the history).
import { describe, expect, it } from 'vitest';
import { historyMarkdown, historyRows, historyTable } from '../src/history/render.js';
import { testIO } from '../src/io.js';
import { writeResult } from '../src/output/render.js';
import type { HistoryPoint } from '../src/state/history.js';

const point = (score: number, scale?: number): HistoryPoint => ({
  id: `p${score}`,
  at: '2026-11-01T08:00:00.000Z',
  base_url: 'https://api.example.test/api',
  query: 'Acme',
  name: 'Acme',
  score,
  ...(scale === undefined ? {} : { scale }),
  sources: [],
});

async function audit(body: unknown, format: 'table' | 'markdown'): Promise<string> {
  const io = testIO({ columns: 80 });
  await writeResult(io, 'audit', body, format);
  return io.stdoutText();
}

describe('a score reads the same in the audit and in the history', () => {
  it.each([
    [3, undefined, '3.0'],
    [80, 100, '80.0 / 100'],
    [4.25, 5, '4.25 / 5'],
  ])('%d (scale %s) → %s', async (score, scale, text) => {
    const body = { name: 'Acme', score, ...(scale === undefined ? {} : { max_score: scale }) };
    expect(await audit(body, 'table')).toMatch(new RegExp(`^Reputation Score +${text.replace(/[./]/g, '\\$&')}$`, 'm'));
    expect(await audit(body, 'markdown')).toContain(`| ${text} |`);
    const rows = historyRows([point(score, scale)], Date.now());
    expect(await historyTable(testIO({ columns: 80 }), rows)).toContain(` ${text} `);
    expect(historyMarkdown(rows)).toContain(`| ${text} |`);
  });
});
