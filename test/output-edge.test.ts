// Bodies at the edge of what a renderer meets: very long wide-character text and very deep nesting.
// They must render (or be shown as details), never crash.
import { describe, expect, it } from 'vitest';
import { testIO } from '../src/io.js';
import { writeResult } from '../src/output/render.js';
import { auditView } from '../src/output/shape.js';
import { displayWidth } from '../src/output/text-width.js';

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
});
