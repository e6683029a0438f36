// The local history's own failures (issue 31): today's history.jsonl moves over losing nothing, a
// sparse file is read and never emptied, a link to a user's file is refused and left untouched, a
// writer killed at any moment loses no acknowledged point, and a year of 1,000 companies reads back.
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openLocalHistory } from '../src/store/local/history.js';
import { prepareHistoryDir } from '../src/store/local/migrate.js';
import type { HistoryPoint } from '../src/store/port.js';

const BASE = 'https://api.example.test/api';
const T0 = Date.parse('2025-01-01T09:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const roots: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rep-history-dir-'));
  roots.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const point = (id: string, query: string, at: number, score: number): HistoryPoint => ({
  id,
  at: new Date(at).toISOString(),
  base_url: BASE,
  query,
  score,
  sources: [],
});
const line = (p: HistoryPoint) => `${JSON.stringify(p)}\n`;
/** The history of `dir`, with today's history.jsonl at `legacy` to move over. */
const historyAt = (dir: string, legacy?: string, warnings: string[] = []) =>
  openLocalHistory(dir, { warn: (text) => warnings.push(text), prepare: () => prepareHistoryDir(dir, legacy, (text) => warnings.push(text)) });

describe('moving today’s history.jsonl over', () => {
  it('imports every point of a history.jsonl beside the folder, keeps the file as .imported, and twice adds nothing', async () => {
    const root = tempDir();
    const legacy = join(root, 'history.jsonl');
    const points = [point('a1', 'Blue Bottle', T0, 80), point('a2', 'Blue Bottle', T0 + DAY, 81), point('b1', 'Tartine', T0, 70)];
    writeFileSync(legacy, `${points.map(line).join('')}not json\n`, { mode: 0o600 });
    const warnings: string[] = [];
    const history = historyAt(join(root, 'history'), legacy, warnings);
    expect((await history.range({ key: 'blue bottle' })).map((p) => p.id)).toEqual(['a1', 'a2']);
    expect(await history.stats()).toMatchObject({ points: 3 });
    expect(warnings).toEqual([expect.stringContaining('skipped a corrupt line')]);
    expect(lstatSync(legacy, { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(`${legacy}.imported`, 'utf8')).toContain('"id":"b1"');
    // The same file again (a CI cache restoring it): nothing is added twice.
    writeFileSync(legacy, points.map(line).join(''), { mode: 0o600 });
    expect(await historyAt(join(root, 'history'), legacy).stats()).toMatchObject({ points: 3 });
  });

  it('REP_HISTORY_FILE naming today’s file: a folder takes its place, every point there, the file kept beside', async () => {
    const root = tempDir();
    const file = join(root, 'rep-history.jsonl');
    writeFileSync(file, [point('a1', 'Blue Bottle', T0, 80), point('a2', 'Blue Bottle', T0 + DAY, 81)].map(line).join(''), { mode: 0o600 });
    const history = historyAt(file, file);
    expect((await history.range({ key: 'blue bottle' })).map((p) => p.score)).toEqual([80, 81]);
    expect(statSync(file).isDirectory()).toBe(true);
    expect(readFileSync(`${file}.imported`, 'utf8')).toContain('"id":"a2"');
  });

  it('five first uses at once each see every point, each once', async () => {
    const root = tempDir();
    const file = join(root, 'rep-history.jsonl');
    const points = Array.from({ length: 200 }, (_, i) => point(`p${i}`, `name ${i % 20}`, T0 + i * 1000, i));
    writeFileSync(file, points.map(line).join(''), { mode: 0o600 });
    const stats = await Promise.all(Array.from({ length: 5 }, () => historyAt(file, file).stats()));
    for (const each of stats) expect(each.points).toBe(200);
  });

  it('a 2 GB sparse history file is read, its one real point imported, and the file kept whole', async () => {
    const root = tempDir();
    const legacy = join(root, 'history.jsonl');
    const fd = openSync(legacy, 'w', 0o600);
    ftruncateSync(fd, 2 * 1024 * 1024 * 1024);
    closeSync(fd);
    appendFileSync(legacy, line(point('real', 'Blue Bottle', T0, 80)));
    const size = statSync(legacy).size;
    const history = historyAt(join(root, 'history'), legacy);
    expect((await history.range({ key: 'blue bottle' })).map((p) => p.id)).toEqual(['real']);
    expect(statSync(`${legacy}.imported`).size).toBe(size);
  }, 60_000);

  it('a file of the user’s that is no history is left untouched, with a warning', async () => {
    const root = tempDir();
    const notes = join(root, 'notes.txt');
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i} of my notes`).join('\n');
    writeFileSync(notes, text, { mode: 0o644 });
    const warnings: string[] = [];
    await historyAt(join(root, 'history'), notes, warnings).stats();
    expect(readFileSync(notes, 'utf8')).toBe(text);
    expect(statSync(notes).mode & 0o777).toBe(0o644);
    expect(warnings).toEqual([expect.stringContaining('does not look like a rep history')]);
  });
});

describe('a history path that is a link to a file of the user’s', () => {
  it('is refused: nothing appended, no mode changed, the file untouched', async () => {
    const root = tempDir();
    const target = join(root, 'big.log');
    const text = Array.from({ length: 150_000 }, (_, i) => `entry ${i}`).join('\n');
    writeFileSync(target, text, { mode: 0o644 });
    const link = join(root, 'rep-history');
    symlinkSync(target, link);
    const history = historyAt(link, link);
    await expect(history.append([point('x', 'Blue Bottle', T0, 1)])).rejects.toThrow(/is a link to a file, not rep's history folder: it is left untouched/);
    await expect(history.range({ key: 'blue bottle' })).rejects.toThrow(/link to a file/);
    expect(readFileSync(target, 'utf8')).toBe(text);
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('a writer killed at any moment', () => {
  let bundleDir: string;
  let worker: string;
  beforeAll(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), 'rep-history-bundle-'));
    const bundle = join(bundleDir, 'history.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '../src/store/local/history.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'warning',
    });
    worker = join(bundleDir, 'writer.mjs');
    // Appends points one by one and prints each id once its append returned (acknowledged).
    writeFileSync(
      worker,
      `const { openLocalHistory } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
const [dir, tag] = process.argv.slice(2);
const history = openLocalHistory(dir);
for (let i = 0; ; i++) {
  await history.append([{ id: tag + '-' + i, at: new Date(${T0} + i * 1000).toISOString(), base_url: '${BASE}', query: 'q' + (i % 7), score: i, sources: [] }]);
  process.stdout.write(tag + '-' + i + '\\n');
}
`,
    );
  });
  afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

  it('loses no acknowledged point (kill -9 of three writers at random moments, 6 rounds)', async () => {
    const dir = join(tempDir(), 'history');
    const acknowledged: string[] = [];
    for (let round = 0; round < 6; round++) {
      const runs = Array.from({ length: 3 }, (_, w) => {
        const child = spawn(process.execPath, [worker, dir, `r${round}w${w}`], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        setTimeout(() => child.kill('SIGKILL'), 150 + Math.floor(Math.random() * 250));
        return new Promise<void>((resolve) =>
          child.on('close', () => {
            acknowledged.push(...out.split('\n').slice(0, -1)); // a torn last line was not acknowledged whole
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
  }, 60_000);
});

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
