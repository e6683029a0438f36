// A writer of the local history killed at any moment (kill -9) loses no point it acknowledged (issue 31).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalHistory } from '../src/store/local/history.js';
import { BASE, T0, useTempDirs } from './helpers/history-points.js';
import { type BundledWorker, bundleWorker } from './helpers/bundle.js';

const tempDir = useTempDirs();

describe('a writer killed at any moment', () => {
  let worker: string;
  let bundled: BundledWorker;
  beforeAll(async () => {
    // Says it is ready (loaded), then appends points one by one and prints each id once its append returned
    // (acknowledged). With a fold bound, a shard is folded into series files every few points.
    bundled = await bundleWorker(
      'store/local/history.ts',
      (url) => `const { openLocalHistory } = await import(${JSON.stringify(url)});
const [dir, tag, foldBytes] = process.argv.slice(2);
const history = openLocalHistory(dir, foldBytes ? { foldBytes: Number(foldBytes) } : {});
process.stdout.write('ready\\n');
for (let i = 0; ; i++) {
  await history.append([{ id: tag + '-' + i, at: new Date(${T0} + i * 1000).toISOString(), base_url: '${BASE}', query: 'q' + (i % 7), score: i, sources: [] }]);
  process.stdout.write(tag + '-' + i + '\\n');
}
`,
    );
    worker = bundled.worker;
  });
  afterAll(() => bundled.remove());

  /** Rounds of three writers killed at random moments (with a fold bound: while folding); every acknowledged id is read back. */
  const killedWriters = async (rounds: number, foldBytes?: number) => {
    const dir = join(tempDir(), 'history');
    const acknowledged: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const runs = Array.from({ length: 3 }, (_, w) => {
        const child = spawn(process.execPath, [worker, dir, `r${round}w${w}`, ...(foldBytes ? [String(foldBytes)] : [])], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        // The kill is timed from the writer's start of work, not its spawn: under load, start-up alone outlasted the window.
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          if (!out.startsWith('ready\n') && `${out}${chunk}`.startsWith('ready\n'))
            setTimeout(() => child.kill('SIGKILL'), 20 + Math.floor(Math.random() * 100)); // an append takes well under 1 ms: any moment of it
          out += chunk;
        });
        const stuck = setTimeout(() => child.kill('SIGKILL'), 20_000); // one that never gets ready is not left running
        return new Promise<void>((resolve) =>
          child.on('close', () => {
            clearTimeout(stuck);
            acknowledged.push(...out.split('\n').slice(1, -1)); // after "ready"; a torn last line was not acknowledged whole
            resolve();
          }),
        );
      });
      await Promise.all(runs);
    }
    const history = openLocalHistory(dir);
    const ids = new Set<string>();
    for (let q = 0; q < 7; q++) for (const p of await history.range({ key: `q${q}` })) ids.add(p.id);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    return dir;
  };

  it('loses no acknowledged point (kill -9 of three writers at random moments, 6 rounds)', async () => {
    await killedWriters(6);
  }, 60_000);

  it('loses no acknowledged point when killed while folding (a fold every few points, 4 rounds)', async () => {
    const dir = await killedWriters(4, 700);
    // The folds did happen: points are in series files too.
    expect(readdirSync(join(dir, 'series')).length).toBeGreaterThan(0);
  }, 60_000);
});
