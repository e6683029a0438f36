// A fresh answer's point is written before the answer is shown: `see` (what a run does with each fresh
// answer before its line is printed) settles only once the history has the point, so a run killed
// right after a line was printed loses no point of it.
import { describe, expect, it } from 'vitest';
import type { Deps } from '../src/deps.js';
import { startWatch } from '../src/history/watch.js';
import type { HistoryPoint, HistoryPort, Store } from '../src/store/port.js';
import type { AuditView } from '../src/views/audit.js';

/** A history whose appends are written only when the test says so. */
function slowHistory() {
  const written: HistoryPoint[] = [];
  const waiting: Array<() => void> = [];
  const history = {
    async append(points: HistoryPoint[]) {
      await new Promise<void>((resolve) => waiting.push(resolve));
      written.push(...points);
    },
    async previous(questions: unknown[]) {
      return questions.map(() => undefined);
    },
  } as unknown as HistoryPort;
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { history, written, release };
}

function depsWith(history: HistoryPort): Deps {
  const store = { history, describe: () => ({ kind: 'local', details: [{ label: 'history', value: '/h' }] }) } as unknown as Store;
  return {
    storeBaseUrl: async () => 'https://api.example.com/api',
    store: () => store,
    now: () => Date.parse('2026-11-26T12:00:00Z'),
    warn: () => undefined,
    io: { err: () => undefined },
  } as unknown as Deps;
}

const view: AuditView = { name: 'Acme', score: 81.5, scoreMax: 100, sources: [], details: [], paths: {} };

describe('a fresh answer’s point', () => {
  it('is written before see() settles (the line is printed after it), for a single name and a batch’s', async () => {
    const { history, written, release } = slowHistory();
    const watch = await startWatch(depsWith(history), {}, { showsChange: false });
    let seen = 0;
    const both = [watch.see('Acme', view), watch.see('Beta', { ...view, name: 'Beta' })].map((done) => done.then(() => (seen += 1)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([seen, written.length]).toEqual([0, 0]);
    release();
    await Promise.all(both);
    expect(written.map((point) => point.query)).toEqual(['Acme', 'Beta']);
  });

  it('a cached answer records nothing and waits for nothing', async () => {
    const { history, written } = slowHistory();
    const watch = await startWatch(depsWith(history), {}, { showsChange: false });
    await watch.see('Acme', view, { fetchedAt: Date.parse('2026-11-26T11:00:00Z') });
    expect(written).toEqual([]);
  });
});
