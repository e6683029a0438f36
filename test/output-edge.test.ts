// Bodies at the edge of what a renderer meets: very long wide-character text and very deep nesting.
// They must render (or be shown as details), never crash, in time linear in what is shown. Bodies
// nested 20,000 deep: output-deep.test.ts (its own file, so the two halves run on different workers).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { testIO } from '../src/io.js';
import { createBatchWriter } from '../src/output/batch.js';
import { writeResult } from '../src/output/render.js';
import { auditView } from '../src/views/index.js';
import { displayWidth, truncateToWidth } from '../src/output/text-width.js';
import { expectFits } from './helpers/fits.js';

/** Long enough that width work quadratic in the text's length would run for tens of minutes. */
const LONG = 2_000_000;

describe('edge bodies', () => {
  it('a search result named with 50,000 wide characters fits an 80-column table', async () => {
    const io = testIO({ columns: 80 });
    await writeResult(io, 'search', { companies: [{ name: '漢'.repeat(50_000), score: 50 }] }, 'table');
    const lines = io.stdoutText().split('\n');
    expect(lines.some((line) => line.includes('漢'))).toBe(true);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  it('sources nested 10,000 deep become details instead of overflowing the stack', async () => {
    let body: unknown = { rating: 4.5, reviews: 10 };
    for (let depth = 0; depth < 10_000; depth++) body = { sources: body };
    expect(() => auditView(body)).not.toThrow();
    const io = testIO({ columns: 80 });
    await writeResult(io, 'audit', body, 'table');
    expect(io.stdoutText()).toContain('Reputation Score');
  });

  it.each([
    ['audit', { name: 'N'.repeat(LONG), score: 50, note: 'd'.repeat(LONG) }],
    ['search', { companies: [{ name: 'N'.repeat(LONG), score: 50 }] }],
    ['pulse', { index: 50, label: 'N'.repeat(LONG) }],
  ] as const)('%s: 2,000,000-character strings are cut to an 80-column table', async (kind, body) => {
    const io = testIO({ columns: 80 });
    await writeResult(io, kind, body, 'table');
    const text = io.stdoutText();
    expectFits(text, 80);
    expect(text).toContain('NNNNNNNNNN');
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(10_000);
  });

  it('a batch summary with a 2,000,000-character company name fits 80 columns', async () => {
    const io = testIO({ columns: 80 });
    const writer = createBatchWriter(io, 'table');
    writer.write({ query: 'q'.repeat(LONG), result: { name: 'N'.repeat(LONG), score: 50 } });
    await writer.end();
    expectFits(io.stdoutText(), 80);
    expect(io.stdoutText()).toContain('NNNNN');
  });

  it.each([
    ['search', { companies: Array.from({ length: 5_000 }, (_, index) => ({ name: `c${index}`, [`own${index}`]: index })) }],
    ['audit', { score: 1, sources: Array.from({ length: 5_000 }, (_, index) => ({ source: `s${index}`, rating: 1, [`own${index}`]: index })) }],
  ] as const)('%s: 5,000 rows each with a field of its own: a table in linear time; csv refuses 5,000 columns', async (kind, body) => {
    const io = testIO({ columns: 80 });
    await writeResult(io, kind, body, 'table');
    expectFits(io.stdoutText(), 80);
    expect(io.stdoutText()).toContain('Own4999');
    const csv = writeResult(testIO(), kind, body, 'csv');
    await expect(csv).rejects.toThrow(UsageError);
    await expect(csv).rejects.toThrow(/^the answer has 5,00\d different fields, too many for CSV columns \(at most 1,000\)$/);
  });

  it.each([
    ['Latin', 'a'],
    ['wide', '漢'],
    ['emoji with a modifier', '👍🏽'],
    ['combining marks', 'e\u0301'],
    ['zero-width spaces between letters', 'a\u200b'],
  ])('%s text is cut at 2,000,000 characters and measured at 200,000 like short text', (_name, unit) => {
    const short = unit.repeat(50);
    expect(truncateToWidth(unit.repeat(LONG / unit.length), 40)).toBe(truncateToWidth(short, 40));
    expect(displayWidth(unit.repeat(LONG / 10 / unit.length))).toBe((displayWidth(short) * LONG) / 10 / short.length);
  });

  it.each([
    ['zero-width spaces', '\u200b'],
    ['combining marks without a base (one grapheme)', '\u0301'],
  ])('2,000,000 %s are cut after a bounded number of characters, within the width', (_name, unit) => {
    const cut = truncateToWidth(unit.repeat(LONG), 40);
    expect(cut.length).toBeLessThan(LONG / 100);
    expect(cut.endsWith('…')).toBe(true);
    expect(displayWidth(cut)).toBeLessThanOrEqual(40);
  });
});
