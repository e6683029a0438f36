// A year of daily points for 1,000 companies under a fake clock (issue 31): all 365,000 are kept and
// one company's series reads back whole. Its own file: the slowest test of the suite runs on its own worker.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLocalHistory } from '../src/store/local/history.js';
import { BASE, DAY, point, T0, useTempDirs } from './helpers/history-points.js';

const tempDir = useTempDirs();

describe('a year of daily points for 1,000 companies (fake clock)', () => {
  it('keeps all 365,000 points; one company’s series reads back whole', async () => {
    const dir = join(tempDir(), 'history');
    const history = openLocalHistory(dir);
    const started = performance.now();
    for (let day = 0; day < 365; day++) {
      await history.append(Array.from({ length: 1000 }, (_, c) => point(`d${day}c${c}`, `Company ${c}`, T0 + day * DAY, (day + c) % 100)));
    }
    const written = performance.now() - started;
    const readStart = performance.now();
    const one = await history.range({ key: 'company 417', baseUrl: BASE });
    const [previous] = await history.previous([{ baseUrl: BASE, queryKey: 'company 417', before: T0 + 365 * DAY }]);
    const readOne = performance.now() - readStart;
    expect(one).toHaveLength(365);
    expect(one.map((p) => p.id)).toEqual(Array.from({ length: 365 }, (_, day) => `d${day}c417`));
    expect(previous?.id).toBe('d364c417');
    const statsStart = performance.now();
    expect(await history.stats()).toMatchObject({ points: 365_000, oldest: new Date(T0).toISOString() });
    const statsMs = performance.now() - statsStart;
    console.log(
      `365,000 points: written in ${Math.round(written)} ms, one series + its previous point read in ${readOne.toFixed(1)} ms, stats in ${Math.round(statsMs)} ms`,
    );
  }, 300_000);
});
