// The table's width off a terminal: `COLUMNS` when set (`COLUMNS=120 rep … | less`), else 80. On a
// terminal the terminal's own width wins (bash does not export COLUMNS, so a set one may be stale).
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../src/output/text-width.js';
import { useRep } from './helpers/cli.js';

const session = useRep();

const widest = (stdout: string) => Math.max(...stdout.split('\n').map(displayWidth));

describe('a piped --format table', () => {
  it.each([40, 60])('fits COLUMNS=%i', async (columns) => {
    const result = await session.spawn(['--sandbox', '--format', 'table', 'search', 'coffee'], { env: { COLUMNS: String(columns) } });
    expect(result.code).toBe(0);
    expect(widest(result.stdout)).toBeLessThanOrEqual(columns);
    expect(widest(result.stdout)).toBeGreaterThan(columns - 20);
  });

  it('is 80 columns wide without COLUMNS, or with one that is no width', async () => {
    for (const COLUMNS of [undefined, 'wide', '0']) {
      const result = await session.spawn(['--sandbox', '--format', 'table', 'search', 'coffee'], { env: { COLUMNS } });
      expect(result.code).toBe(0);
      expect(widest(result.stdout)).toBeLessThanOrEqual(80);
      expect(widest(result.stdout)).toBeGreaterThan(60);
    }
  });
});
