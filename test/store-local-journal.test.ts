// The local history's journal (src/store/local/journal.ts): appends go to a few shard files, folded into
// series files past a bound. A folder of an earlier rep (series files only) reads the same; prune and
// stats see both places; a link in place of a shard or of journal/ is refused; a fold's readers miss no
// point; processes appending while folds happen lose none; a batch's lookups read no shard again each turn.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendToLog } from '../src/state/append-log.js';
import { importHistory } from '../src/store/import.js';
import { openLocalHistory } from '../src/store/local/history.js';
import { foldShard, journalLine, openJournalReader, parseJournal, seriesOf, shardPath } from '../src/store/local/journal.js';
import { indexLine, parseText, pruneFile, readSeriesPoints, readSeriesText } from '../src/store/local/series-files.js';
import { nameKey } from '../src/store/policy.js';
import type { HistoryPoint } from '../src/store/port.js';
import { BASE, DAY, point, T0, useTempDirs } from './helpers/history-points.js';
import { type BundledWorker, bundleWorker } from './helpers/bundle.js';

const tempDir = useTempDirs();
const ids = (points: readonly HistoryPoint[]) => points.map((p) => p.id);

/** A history holding these points (closed), and where Blue Bottle's series and its shard are. */
async function blueBottleWith(points: HistoryPoint[]) {
  const dir = join(tempDir(), 'history');
  const history = openLocalHistory(dir);
  await history.append(points);
  history.close();
  const series = seriesOf(BASE, 'blue bottle');
  return { dir, history, series, shard: shardPath(dir, series) };
}

describe('a history folder of an earlier rep (series files, no journal)', () => {
  it('reads the same, and takes new points beside the old', async () => {
    const dir = join(tempDir(), 'history');
    mkdirSync(join(dir, 'series'), { recursive: true, mode: 0o700 });
    // As the code before the journal wrote it: an index line per series and spelling, then the points in the series' file.
    const old = [point('a1', 'Blue Bottle', T0, 80), point('a2', 'Blue Bottle', T0 + DAY, 81), point('b1', 'Tartine', T0, 70)];
    const index: string[] = [];
    for (const p of old) {
      const series = seriesOf(BASE, nameKey(p.query));
      index.push(`${indexLine({ base: BASE, series, query: p.query })}\n`);
      writeFileSync(join(dir, 'series', `${series}.jsonl`), `${JSON.stringify(p)}\n`, { flag: 'a', mode: 0o600 });
    }
    writeFileSync(join(dir, 'index.jsonl'), index.join(''), { mode: 0o600 });
    // A corrupt line, and a point glued to a torn write, in a series file: skipped with one warning, and read.
    const tartine = join(dir, 'series', `${seriesOf(BASE, 'tartine')}.jsonl`);
    const b2 = JSON.stringify(point('b2', 'Tartine', T0 + DAY, 71));
    writeFileSync(tartine, `not json\n${b2.slice(0, 30)}${b2}\n`, { flag: 'a' });
    const warnings: string[] = [];
    const history = openLocalHistory(dir, { warn: (text) => warnings.push(text) });
    expect(ids(await history.range({ key: 'tartine' }))).toEqual(['b1', 'b2']);
    expect(warnings).toEqual([`skipped a corrupt line in the history file ${tartine}`]);
    expect(ids(await history.range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
    expect(await history.names('')).toEqual(['Blue Bottle', 'Tartine']);
    expect((await history.previous([{ baseUrl: BASE, queryKey: 'tartine', before: T0 + DAY }]))[0]?.id).toBe('b1');
    expect(await history.stats()).toMatchObject({ points: 4, oldest: new Date(T0).toISOString() });
    await history.append([point('a3', 'Blue Bottle', T0 + 2 * DAY, 82)]);
    history.close();
    expect(readdirSync(join(dir, 'journal'))).toHaveLength(1);
    expect(ids(await openLocalHistory(dir).range({ key: 'blue bottle' }))).toEqual(['a1', 'a2', 'a3']);
  });
});

describe('the journal and the series files together', () => {
  it('stats count each point once wherever it is, and prune removes the old ones from both', async () => {
    const dir = join(tempDir(), 'history');
    // Three days of 12 names, the first two folded into series files (a tiny bound), the third left in the journal.
    const days = [0, 1, 2].map((day) => Array.from({ length: 12 }, (_, i) => point(`d${day}n${i}`, `Company ${i}`, T0 + day * DAY, 60 + day)));
    const folding = openLocalHistory(dir, { foldBytes: 1 });
    await folding.append([...days[0]!, ...days[1]!]);
    folding.close();
    const history = openLocalHistory(dir);
    await history.append([...days[2]!, days[1]![0]!]); // one point again: still one
    history.close();
    const files = (sub: string) => readdirSync(join(dir, sub)).map((name) => statSync(join(dir, sub, name)).size);
    expect(files('series').length).toBe(12);
    const journalBytes = files('journal').reduce((a, b) => a + b, 0);
    expect(journalBytes).toBeGreaterThan(0);
    const stats = await history.stats();
    expect(stats.points).toBe(36);
    expect(stats.bytes).toBe(journalBytes + files('series').reduce((a, b) => a + b, 0) + statSync(join(dir, 'index.jsonl')).size);
    expect(await history.prune(T0 + DAY)).toBe(12);
    expect(await history.prune(T0 + 2 * DAY + 1)).toBe(24);
    expect(await history.stats()).toMatchObject({ points: 0 });
    expect(await history.range({ key: 'company 3' })).toEqual([]);
  });

  it('a fold’s readers see every point at each step, lines appended to the old shard meanwhile included', async () => {
    const { dir, series, shard } = await blueBottleWith([point('a1', 'Blue Bottle', T0, 80), point('a2', 'Blue Bottle', T0 + DAY, 81)]);
    const late = point('a3', 'Blue Bottle', T0 + 2 * DAY, 82);
    const seen: Record<string, string[]> = {};
    // What a reader gets, without waiting: the journal's lines of the series, then its series file.
    const reader = openJournalReader(dir);
    const read = () => [
      ...ids(parseJournal(reader.seriesText(series)).points),
      ...ids(parseText(readSeriesText(join(dir, 'series', `${series}.jsonl`))).points),
    ];
    const outcome = foldShard(dir, shard, (at) => {
      // Another process's append lands in the old shard after the fold read it: the fold copies it over at its end.
      if (at === 'linked') appendToLog(shard, Buffer.from(journalLine(series, late)));
      seen[at] = [...new Set(read())].sort();
    });
    expect(outcome).toBe('rewritten');
    expect(seen).toEqual({ linked: ['a1', 'a2', 'a3'], renamed: ['a1', 'a2', 'a3'] });
    expect(ids(await openLocalHistory(dir).range({ key: 'blue bottle' }))).toEqual(['a1', 'a2', 'a3']);
    expect(parseJournal(readFileSync(shard, 'utf8')).points.map((p) => p.id)).toEqual(['a3']);
  });
});

describe('a reader kept for a run', () => {
  it('reads a shard anew when another file is there under the same inode (written again in place), past what it read', async () => {
    const { history, series, shard } = await blueBottleWith([point('a1', 'Blue Bottle', T0, 80)]);
    expect(ids(await history.range({ key: 'blue bottle' }))).toEqual(['a1']);
    const inode = statSync(shard).ino;
    // The shard put back in place (a copy over it: the same inode, truncated, written again), a point
    // first whose line is longer than what the reader read: the same inode number a fold's new file may
    // be given too, once the old one's is free.
    const a2 = { ...point('a2', 'Blue Bottle', T0 + DAY, 81), name: 'Blue Bottle Coffee Roasters of Oakland' };
    writeFileSync(shard, `${journalLine(series, a2)}${readFileSync(shard, 'utf8')}`);
    expect(statSync(shard).ino).toBe(inode);
    expect(ids(await history.range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
  });
});

describe('rep history import of a history folder', () => {
  it('reads a point in both a shard and its series file once, and one only a killed fold’s aside holds', async () => {
    const { dir, series, shard } = await blueBottleWith([point('a1', 'Blue Bottle', T0, 80)]);
    const late = point('a2', 'Blue Bottle', T0 + DAY, 81);
    // A fold killed after its rename: a1 in the series file, a2 (appended after the fold read the shard) only in the aside.
    expect(() =>
      foldShard(dir, shard, (at) => {
        if (at === 'linked') appendToLog(shard, Buffer.from(journalLine(series, late)));
        if (at === 'renamed') throw new Error('killed');
      }),
    ).toThrow('killed');
    // And a1 again in its shard (a fold killed after it wrote the series files, before its rename).
    appendToLog(shard, Buffer.from(journalLine(series, point('a1', 'Blue Bottle', T0, 80))));
    const into = openLocalHistory(join(tempDir(), 'into'));
    expect(await importHistory(dir, into)).toEqual({ read: 2, added: 2, corrupt: 0 });
    expect(ids(await into.range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
  });
});

describe('a series file’s prune', () => {
  it('hides from no reader a point a fold appended to the file meanwhile, before the prune copies it over', async () => {
    const dir = join(tempDir(), 'history');
    const history = openLocalHistory(dir, { foldBytes: 1 }); // folded at once: the points are in the series file
    await history.append([point('a0', 'Blue Bottle', T0 - DAY, 79), point('a1', 'Blue Bottle', T0, 80)]);
    history.close();
    const file = join(dir, 'series', `${seriesOf(BASE, 'blue bottle')}.jsonl`);
    const seen: Record<string, string[]> = {};
    const removed = pruneFile(dir, file, T0, undefined, (at) => {
      // A fold's append lands in the old file after the prune read it (the fold then empties its shard).
      if (at === 'linked') appendToLog(file, Buffer.from(`${JSON.stringify(point('a2', 'Blue Bottle', T0 + DAY, 81))}\n`));
      // What the history's readers take of the series file (history.ts's readSeries), without waiting.
      seen[at] = ids(readSeriesPoints(dir, file).points).sort();
    });
    expect(removed).toEqual(['a0']);
    expect(seen).toEqual({ linked: ['a0', 'a1', 'a2'], renamed: ['a1', 'a2'] });
    expect(ids(await openLocalHistory(dir).range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
  });
});

describe('a fold or prune that reads a write half made', () => {
  it('keeps its first part in the new shard, where the rest copied after it ends it: the point is read', async () => {
    const { dir, series, shard } = await blueBottleWith([point('a1', 'Blue Bottle', T0, 80)]);
    const line = journalLine(series, point('a2', 'Blue Bottle', T0 + DAY, 81));
    // Another process's write, as a read may see it: its first part now, the rest after the fold read the shard.
    appendToLog(shard, Buffer.from(line.slice(0, 40)));
    expect(foldShard(dir, shard, (at) => at === 'linked' && appendToLog(shard, Buffer.from(line.slice(40))))).toBe('rewritten');
    expect(ids(await openLocalHistory(dir).range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
  });

  it('a series file’s prune keeps it too', async () => {
    const dir = join(tempDir(), 'history');
    const history = openLocalHistory(dir, { foldBytes: 1 }); // folded at once: the points are in the series file
    await history.append([point('a0', 'Blue Bottle', T0 - DAY, 79), point('a1', 'Blue Bottle', T0, 80)]);
    history.close();
    const file = join(dir, 'series', `${seriesOf(BASE, 'blue bottle')}.jsonl`);
    const line = `${JSON.stringify(point('a2', 'Blue Bottle', T0 + DAY, 81))}\n`;
    appendToLog(file, Buffer.from(line.slice(0, 40)));
    expect(pruneFile(dir, file, T0, undefined, (at) => at === 'linked' && appendToLog(file, Buffer.from(line.slice(40))))).toEqual(['a0']);
    expect(ids(await openLocalHistory(dir).range({ key: 'blue bottle' }))).toEqual(['a1', 'a2']);
  });
});

describe('links in the journal’s place', () => {
  it('a link in place of a shard is not followed: the append fails and its target is untouched', async () => {
    const root = tempDir();
    const dir = join(root, 'history');
    const target = join(root, 'notes.txt');
    writeFileSync(target, 'mine\n', { mode: 0o600 });
    const history = openLocalHistory(dir);
    await history.append([point('t0', 'Tartine', T0, 69)]); // the folders
    history.close();
    const shard = shardPath(dir, seriesOf(BASE, 'blue bottle'));
    rmSync(shard, { force: true });
    symlinkSync(target, shard);
    await expect(openLocalHistory(dir).append([point('a1', 'Blue Bottle', T0, 80)])).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(openLocalHistory(dir).range({ key: 'blue bottle' })).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });

  it('a link in place of a series file: a fold fails once, told once, its points kept in the journal, the target untouched', async () => {
    const root = tempDir();
    const dir = join(root, 'history');
    const target = join(root, 'notes.txt');
    writeFileSync(target, 'mine\n', { mode: 0o600 });
    mkdirSync(join(dir, 'series'), { recursive: true, mode: 0o700 });
    symlinkSync(target, join(dir, 'series', `${seriesOf(BASE, 'blue bottle')}.jsonl`));
    const warnings: string[] = [];
    const history = openLocalHistory(dir, { foldBytes: 1, warn: (text) => warnings.push(text) });
    try {
      for (let day = 0; day < 3; day++) await history.append([point(`a${day}`, 'Blue Bottle', T0 + day * DAY, 80 + day)]);
    } finally {
      history.close();
    }
    expect(warnings).toEqual([expect.stringMatching(/^cannot fold the history's journal .* its points are kept there$/)]);
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
    const shard = shardPath(dir, seriesOf(BASE, 'blue bottle'));
    expect(ids(parseJournal(readFileSync(shard, 'utf8')).points)).toEqual(['a0', 'a1', 'a2']);
  });

  it('a link in place of journal/ is refused: nothing written through it, and reads fail', async () => {
    const root = tempDir();
    const dir = join(root, 'history');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    const history = openLocalHistory(dir);
    await history.append([point('a1', 'Blue Bottle', T0, 80)]);
    history.close();
    rmSync(join(dir, 'journal'), { recursive: true });
    symlinkSync(elsewhere, join(dir, 'journal'));
    await expect(openLocalHistory(dir).append([point('a2', 'Blue Bottle', T0 + DAY, 81)])).rejects.toThrow(/journal .* is a link/);
    await expect(openLocalHistory(dir).range({ key: 'blue bottle' })).rejects.toThrow(/is a link/);
    await expect(openLocalHistory(dir).stats()).rejects.toThrow(/is a link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe('a batch’s previous points', () => {
  it('read no shard for names with no point, and each shard once, then only what was appended to it', async () => {
    const dir = join(tempDir(), 'history');
    const shardBytes = { read: 0 };
    const onRead = (path: string, bytes: number) => void (path.includes('/journal/') && (shardBytes.read += bytes));
    const first = openLocalHistory(dir);
    await first.append(Array.from({ length: 60 }, (_, i) => point(`old${i}`, `Company ${i}`, T0, 70)));
    first.close();
    const history = openLocalHistory(dir, { onRead });
    const journalSize = () => readdirSync(join(dir, 'journal')).reduce((sum, name) => sum + statSync(join(dir, 'journal', name)).size, 0);
    try {
      // Fresh names first: no index line leads to them, so no shard is read.
      for (let turn = 0; turn < 10; turn++) {
        const names = [0, 1, 2, 3].map((k) => `New ${turn * 4 + k}`);
        await history.previous(names.map((name) => ({ baseUrl: BASE, queryKey: nameKey(name), before: T0 + DAY })));
        await history.append(names.map((name, k) => point(`new${turn}-${k}`, name, T0 + DAY, 71)));
      }
      expect(shardBytes.read).toBe(0);
      // Then names with points, four a turn, each appending: a shard's bytes are scanned once, plus each series' own lines.
      let ownLines = 0;
      for (let turn = 0; turn < 15; turn++) {
        const names = [0, 1, 2, 3].map((k) => `Company ${turn * 4 + k}`);
        const found = await history.previous(names.map((name) => ({ baseUrl: BASE, queryKey: nameKey(name), before: T0 + DAY })));
        expect(found.map((p) => p?.id)).toEqual(names.map((_, k) => `old${turn * 4 + k}`));
        ownLines += found.reduce((sum, p) => sum + Buffer.byteLength(journalLine(seriesOf(BASE, nameKey(p!.query)), p!)), 0);
        await history.append(names.map((name, k) => point(`again${turn}-${k}`, name, T0 + DAY, 72)));
      }
      expect(shardBytes.read).toBeGreaterThan(0);
      expect(shardBytes.read).toBeLessThanOrEqual(journalSize() + ownLines);
    } finally {
      history.close();
    }
  });
});

describe('processes appending while folds happen', () => {
  let worker: string;
  let bundled: BundledWorker;
  beforeAll(async () => {
    // Appends 25 turns of 2 points of 5 shared names, with a bound that folds a shard every few turns.
    bundled = await bundleWorker(
      'store/local/history.ts',
      (url) => `const { openLocalHistory } = await import(${JSON.stringify(url)});
const [dir, tag] = process.argv.slice(2);
const history = openLocalHistory(dir, { foldBytes: 1500 });
for (let i = 0; i < 25; i++) {
  await history.append([0, 1].map((k) => ({ id: tag + '-' + i + '-' + k, at: new Date(${T0} + i * 1000).toISOString(), base_url: '${BASE}', query: 'q' + ((i + k) % 5), score: i, sources: [] })));
}
history.close();
`,
    );
    worker = bundled.worker;
  });
  afterAll(() => bundled.remove());

  it('every point of 20 processes is there once', async () => {
    const dir = join(tempDir(), 'history');
    const writers = 20;
    const exits = await Promise.all(
      Array.from(
        { length: writers },
        (_, w) => new Promise<number | null>((resolve) => spawn(process.execPath, [worker, dir, `w${w}`], { stdio: 'inherit' }).on('close', resolve)),
      ),
    );
    expect(exits.every((code) => code === 0)).toBe(true);
    const history = openLocalHistory(dir);
    const all: string[] = [];
    for (let q = 0; q < 5; q++) all.push(...ids(await history.range({ key: `q${q}` })));
    expect(all.length).toBe(writers * 25 * 2);
    expect(new Set(all).size).toBe(all.length);
    expect((await history.stats()).points).toBe(writers * 25 * 2);
    expect(readdirSync(join(dir, 'series')).length).toBeGreaterThan(0); // folds happened
    expect(existsSync(join(dir, 'pruning'))).toBe(false); // and none left an aside or a lock
  }, 60_000);
});
