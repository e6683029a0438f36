// The local history's own failures (issue 31): today's history.jsonl moves over losing nothing, a
// sparse file is read and never emptied, a link to a user's file is refused and left untouched. A
// writer killed at any moment: store-local-crash.test.ts; a year of 1,000 companies: store-local-year.test.ts.
import { appendFileSync, closeSync, ftruncateSync, lstatSync, openSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLocalHistory } from '../src/store/local/history.js';
import { prepareHistoryDir } from '../src/store/local/migrate.js';
import type { HistoryPoint } from '../src/store/port.js';
import { BASE, DAY, memoryTempBase, point, T0, useTempDirs } from './helpers/history-points.js';

const tempDir = useTempDirs();
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
    const root = tempDir(memoryTempBase()); // the same read, without filling 2 GB of page cache
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

describe('the index read as it grows', () => {
  it('is read anew when another file is there under the same inode (written again in place), past what was read', async () => {
    const root = tempDir();
    const dir = join(root, 'history');
    const history = openLocalHistory(dir);
    await history.append([point('a1', 'Blue Bottle', T0, 80)]);
    expect(await history.names('')).toEqual(['Blue Bottle']);
    // A copy put back over it in place (the same inode, truncated, written again), a longer line first.
    const index = join(dir, 'index.jsonl');
    const other = openLocalHistory(join(root, 'other'));
    await other.append([point('b1', 'Tartine Bakery and Cafe of San Francisco', T0, 70)]);
    other.close();
    const inode = statSync(index).ino;
    writeFileSync(index, `${readFileSync(join(root, 'other', 'index.jsonl'), 'utf8')}${readFileSync(index, 'utf8')}`);
    expect(statSync(index).ino).toBe(inode);
    expect(await history.names('')).toEqual(['Blue Bottle', 'Tartine Bakery and Cafe of San Francisco']);
    history.close();
  });
});

describe('one history’s appends over a run (the index kept open, the series folder made once)', () => {
  it('a history folder removed between two appends is made again, private, with every index line and point of the second', async () => {
    const dir = join(tempDir(), 'history');
    const history = historyAt(dir);
    try {
      await history.append([point('a1', 'Blue Bottle', T0, 80)]);
      rmSync(dir, { recursive: true });
      await history.append([point('b1', 'Tartine', T0, 70), point('a2', 'Blue Bottle', T0 + DAY, 81)]);
    } finally {
      history.close();
    }
    expect(statSync(join(dir, 'series')).mode & 0o777).toBe(0o700);
    const again = historyAt(dir);
    expect((await again.range({ key: 'blue bottle' })).map((p) => p.id)).toEqual(['a2']);
    expect((await again.range({ key: 'tartine' })).map((p) => p.id)).toEqual(['b1']);
    expect(await again.names('')).toEqual(['Blue Bottle', 'Tartine']);
  });

  it('an index replaced by a link between two appends is not followed: the append fails and the link’s target is untouched', async () => {
    const root = tempDir();
    const dir = join(root, 'history');
    const target = join(root, 'notes.txt');
    writeFileSync(target, 'mine\n', { mode: 0o600 });
    const history = historyAt(dir);
    try {
      await history.append([point('a1', 'Blue Bottle', T0, 80)]);
      rmSync(join(dir, 'index.jsonl'));
      symlinkSync(target, join(dir, 'index.jsonl'));
      await expect(history.append([point('b1', 'Tartine', T0, 70)])).rejects.toMatchObject({ code: 'ELOOP' });
    } finally {
      history.close();
    }
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });

  it('a batch’s lookups read the index once, then only what each turn appended to it', async () => {
    const dir = join(tempDir(), 'history');
    let indexBytes = 0;
    const history = openLocalHistory(dir, { onRead: (path, bytes) => void (path.endsWith('index.jsonl') && (indexBytes += bytes)) });
    try {
      await history.append(Array.from({ length: 50 }, (_, i) => point(`old${i}`, `Company ${i}`, T0, 70)));
      // A batch's turns: the previous points of four names, then their points (the index grows each turn).
      for (let turn = 0; turn < 40; turn++) {
        const names = [0, 1, 2, 3].map((k) => `Company ${turn * 4 + k}`);
        const found = await history.previous(names.map((name) => ({ baseUrl: BASE, queryKey: name.toLowerCase(), before: T0 + DAY })));
        expect(found.map((p) => p?.id)).toEqual(names.map((_, k) => (turn * 4 + k < 50 ? `old${turn * 4 + k}` : undefined)));
        await history.append(names.map((name, k) => point(`new${turn}-${k}`, name, T0 + DAY, 71)));
      }
    } finally {
      history.close();
    }
    // Each byte of the index read once (a line another process added meanwhile may be read twice): not each turn.
    expect(indexBytes).toBeGreaterThan(0);
    expect(indexBytes).toBeLessThanOrEqual(statSync(join(dir, 'index.jsonl')).size);
  });

  it('lines another process appended to the index meanwhile are kept, and its own appends go after them', async () => {
    const dir = join(tempDir(), 'history');
    const mine = historyAt(dir);
    const other = historyAt(dir);
    try {
      await mine.append([point('a1', 'Blue Bottle', T0, 80)]);
      await other.append([point('b1', 'Tartine', T0, 70)]);
      await mine.append([point('c1', 'Sightglass', T0, 75)]);
    } finally {
      mine.close();
      other.close();
    }
    expect(await historyAt(dir).names('')).toEqual(['Blue Bottle', 'Sightglass', 'Tartine']);
  });
});
