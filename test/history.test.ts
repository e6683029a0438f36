// The score history as an audit run uses it (src/history/audit-history.ts over the local store's
// history port): points come back oldest first, from REP_HISTORY_FILE's folder when set, private
// (0600), a corrupt line skipped and reported once, the previous point by query, then by company
// name, at its base URL and before a time; and a history that cannot be used is a warning, not a failure.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { historyPlace } from '../src/config/paths.js';
import { openAuditHistory } from '../src/history/audit-history.js';
import { parsePoint, pointFromAudit, type HistoryPoint } from '../src/state/history.js';
import { stretchWriteTurns } from '../src/state/write-turns.js';
import type { HistoryPort } from '../src/store/port.js';
import { localHistory } from './helpers/history.js';

const BASE = 'https://api.example.test/api';
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-11-01T08:00:00Z');

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const tempDir = (): string => (dir = mkdtempSync(join(tmpdir(), 'rep-history-')));

function answer(score: number, name = 'Blue Bottle Coffee') {
  return { name, score, scoreMax: 100, sources: [{ source: 'Google', rating: 4.5, reviews: 120 }, { source: 'Yelp' }] };
}

function point(query: string, at: number, score: number, extra: Partial<HistoryPoint> = {}): HistoryPoint {
  return { ...pointFromAudit(answer(score), { at, baseUrl: BASE, query })!, ...extra };
}

/** An audit run's history at rep's place for env and stateDir, warnings collected. */
function auditRun(env: NodeJS.ProcessEnv, stateDir: string, clock = { now: T0 }, baseUrl = BASE) {
  const warnings: string[] = [];
  const store = localHistory(env, stateDir, (text) => warnings.push(text));
  const deps = { now: () => clock.now, warn: (text: string) => void warnings.push(text) };
  const { historyDir } = historyPlace(env, stateDir);
  return { run: openAuditHistory(deps, store, historyDir, baseUrl), store, warnings, clock };
}

const all = (history: HistoryPort, key = 'blue bottle') => history.range({ key });

describe('the history of an audit run', () => {
  it('three recorded answers come back as three points, oldest first, with what the answer said', async () => {
    const stateDir = join(tempDir(), 'state');
    const { run, store, clock } = auditRun({}, stateDir);
    for (const [day, score] of [
      [0, 80],
      [1, 73],
      [2, 74.5],
    ] as const) {
      clock.now = T0 + day * DAY;
      await run.record('blue bottle', answer(score));
    }
    await run.settle();
    expect((await all(store)).map(({ id: _id, ...rest }) => rest)).toEqual(
      [80, 73, 74.5].map((score, day) => ({
        at: new Date(T0 + day * DAY).toISOString(),
        base_url: BASE,
        query: 'blue bottle',
        name: 'Blue Bottle Coffee',
        score,
        scale: 100,
        sources: [{ source: 'Google', rating: 4.5, reviews: 120 }, { source: 'Yelp' }],
      })),
    );
  });

  it('REP_HISTORY_FILE names the folder used, its files 0600, and nothing goes to the state dir', async () => {
    const root = tempDir();
    const folder = join(root, 'ci-cache', 'scores');
    const stateDir = join(root, 'state');
    const { run } = auditRun({ REP_HISTORY_FILE: folder }, stateDir);
    await run.record('Blue Bottle', answer(80));
    await run.settle();
    const [shard] = readdirSync(join(folder, 'journal'));
    expect(statSync(join(folder, 'journal', shard!)).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, 'index.jsonl')).mode & 0o777).toBe(0o600);
    for (const each of [folder, join(folder, 'journal'), join(folder, 'series')]) expect(statSync(each).mode & 0o777).toBe(0o700);
    expect(() => readdirSync(stateDir)).toThrow(/ENOENT/);
  });

  it('without REP_HISTORY_FILE the folder is `history` in the state dir, and history.jsonl beside it is moved over', () => {
    expect(historyPlace({}, '/state/rep')).toEqual({ historyDir: '/state/rep/history', legacyHistoryFile: '/state/rep/history.jsonl' });
    expect(historyPlace({ REP_HISTORY_FILE: '' }, '/state/rep').historyDir).toBe('/state/rep/history');
    expect(historyPlace({ REP_HISTORY_FILE: '/ci/h.jsonl' }, '/state/rep')).toEqual({ historyDir: '/ci/h.jsonl', legacyHistoryFile: '/ci/h.jsonl' });
  });

  it('a journal file brought back 0644 (a CI cache) is made 0600 again by the next point', async () => {
    const stateDir = join(tempDir(), 'state');
    await auditRun({}, stateDir).store.append([point('a', T0, 1)]);
    const folder = join(stateDir, 'history', 'journal');
    const file = join(folder, readdirSync(folder)[0]!);
    chmodSync(file, 0o644);
    const { run } = auditRun({}, stateDir); // the next run: a run keeps its shards open, checked once
    await run.record('a', answer(2));
    await run.settle();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('corrupt lines are skipped with one warning; the lines around them and a line glued to a torn write still count', async () => {
    const stateDir = join(tempDir(), 'state');
    const { store, warnings } = auditRun({}, stateDir);
    const [a, b, c] = [point('a', T0, 1), point('a', T0 + DAY, 2), point('a', T0 + 2 * DAY, 3)];
    await store.append([a]);
    const folder = join(stateDir, 'history', 'journal');
    const file = join(folder, readdirSync(folder)[0]!);
    // A journal line is the series' name, a space and the point (src/store/local/journal.ts).
    const series = readFileSync(file, 'utf8').slice(0, 33);
    const text = (p: HistoryPoint) => `${series}${JSON.stringify(p)}`;
    writeFileSync(file, `\n${text(a)}\n${series}not json\n${series}{"id":"x"}\n${text(b).slice(0, 50)}${text(b)}\n\n${text(c)}\n`);
    expect((await all(store, 'a')).map((each) => each.score)).toEqual([1, 2, 3]);
    expect(warnings).toEqual([`skipped 2 corrupt lines in the history file ${file}`]);
  });

  it('a point written twice is read once', async () => {
    const { store } = auditRun({}, join(tempDir(), 'state'));
    const a = point('a', T0, 1);
    await store.append([a, point('a', T0 + DAY, 2), a]);
    await store.append([a]);
    expect((await all(store, 'a')).map((each) => each.score)).toEqual([1, 2]);
  });

  it('an audit run never sees its own points: a name audited twice compares both times with the same point', async () => {
    const stateDir = join(tempDir(), 'state');
    const first = auditRun({}, stateDir);
    await first.run.record('Blue Bottle', answer(80));
    await first.run.settle();
    const { run } = auditRun({}, stateDir, { now: T0 + DAY });
    expect((await run.previous('blue  BOTTLE'))?.score).toBe(80);
    await run.record('Blue Bottle', answer(70));
    await run.settle();
    expect((await run.previous('Blue Bottle'))?.score).toBe(80);
    expect((await run.previous('blue bottle coffee'))?.score).toBe(80); // by the company's name too
    expect(await auditRun({}, stateDir, { now: T0 + DAY }, 'https://elsewhere.test/api').run.previous('Blue Bottle')).toBeUndefined(); // per base URL
  });

  it("a lookup is given only the ids of this run's points that could answer it, and a run that never reads keeps none", async () => {
    const stateDir = join(tempDir(), 'state');
    const { store } = auditRun({}, stateDir);
    const asked: Array<readonly string[] | undefined> = [];
    const appended: HistoryPoint[] = [];
    const spy: HistoryPort = {
      ...store,
      append: (points) => {
        appended.push(...points);
        return store.append(points);
      },
      previous: (questions) => {
        asked.push(...questions.map((question) => question.excludeIds));
        return store.previous(questions);
      },
    };
    const deps = { now: () => T0, warn: () => {} };
    const run = openAuditHistory(deps, spy, 'h', BASE);
    await run.record('Blue Bottle', answer(80)); // also answers to its company name, blue bottle coffee
    await run.record('Ritual', answer(70, 'Ritual Roasters'));
    await run.record('Sightglass', answer(60, 'Sightglass'));
    const [a, b] = appended as [HistoryPoint, HistoryPoint, HistoryPoint];
    await Promise.all([run.previous('blue bottle'), run.previous('Ritual Roasters'), run.previous('Acme', 'Blue Bottle Coffee'), run.previous('Acme')]);
    expect(asked).toEqual([[a.id], [b.id], [a.id], []]);
    await run.settle();

    asked.length = 0;
    const writeOnly = openAuditHistory(deps, spy, 'h', BASE, { reads: false });
    await writeOnly.record('Blue Bottle', answer(75));
    await writeOnly.settle();
    expect(await writeOnly.previous('Blue Bottle')).toBeDefined(); // not told apart: such a run does not ask
    expect(asked).toEqual([[]]);
  });

  it('records of a stretched write turn (a batch) go to the store as a few appends, each point written before its record settles', async () => {
    const stateDir = join(tempDir(), 'state');
    const { store } = auditRun({}, stateDir);
    const appends: number[] = [];
    const spy: HistoryPort = {
      ...store,
      append: (points) => {
        appends.push(points.length);
        return store.append(points);
      },
    };
    const run = openAuditHistory({ now: () => T0, warn: () => {} }, spy, 'h', BASE, { reads: false });
    const endStretch = stretchWriteTurns();
    const recorded: Array<Promise<unknown>> = [];
    try {
      // A batch's answers come a few a turn of the event loop: forty turns, one answer each.
      for (let index = 0; index < 40; index++) {
        const written = run.record(`Company ${index}`, answer(index, `Company ${index}`));
        recorded.push(written.then(async () => expect((await all(store, `company ${index}`)).map((each) => each.score)).toEqual([index])));
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      endStretch();
    }
    await Promise.all(recorded);
    await run.settle();
    expect(appends.reduce((sum, count) => sum + count, 0)).toBe(40);
    expect(appends.length).toBeLessThanOrEqual(8); // a turn of the event loop at a time: 40
  });

  it('a run that appends more names than it keeps file names for writes each index line once and finds every series', async () => {
    const stateDir = join(tempDir(), 'state');
    const { store } = auditRun({}, stateDir);
    const names = Array.from({ length: 5000 }, (_, index) => `Company ${index}`);
    await store.append(names.map((name) => point(name, T0, 1, { name })));
    await store.append(names.map((name) => point(name, T0 + DAY, 2, { name })));
    const index = readFileSync(join(stateDir, 'history', 'index.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(index).toHaveLength(names.length);
    for (const name of [names[0]!, names[4999]!]) expect((await all(store, name.toLowerCase())).map((each) => each.score)).toEqual([1, 2]);
  });

  it('an answer without a score records nothing; a history that cannot be read or written is one warning, not a failure', async () => {
    const root = tempDir();
    const folder = join(root, 'history');
    writeFileSync(folder, 'a file of the user where the history folder should be');
    const { run, warnings } = auditRun({}, root);
    expect(await run.record('x', { sources: [] })).toBeUndefined();
    await run.settle();
    expect(warnings).toEqual([]);
    await run.record('x', answer(50));
    await run.settle();
    expect(await run.previous('x')).toBeUndefined();
    const why = `the history path ${folder} is a file, not rep's history folder: it is left untouched`;
    expect(warnings).toEqual([`cannot record the score of Blue Bottle Coffee in the history in ${folder} (${why})`]);
  });

  it('the base URL is stored without userinfo or trailing slash; server text is scrubbed', () => {
    const recorded = pointFromAudit(answer(1, 'Evil\u001b[2J\u0007 Co\nrp'), {
      at: T0,
      baseUrl: 'https://user:pw@api.example.test/api/',
      query: 'q\u009b31m',
    })!;
    expect(recorded).toMatchObject({ base_url: BASE, name: 'Evil Co rp', query: 'q' });
    const view = { score: 1, sources: [{ source: 'Google', rating: 4, extra: [['url', 'https://x']] }] };
    expect(pointFromAudit(view, { at: T0, baseUrl: BASE, query: 'q' })!.sources).toEqual([{ source: 'Google', rating: 4 }]);
  });

  it('a fresh point is built as clean as a stored line is read: reading its line back changes nothing', () => {
    // pointFromAudit builds a point clean; parsePoint cleans what it reads. Were the two ever to differ,
    // a point would read back otherwise than it was written: each odd answer here must read back equal.
    const long = `${'é'.repeat(498)}😀😀 `;
    const answers = [
      { name: ' Spaced\tName ', score: 61.5, scoreMax: 100, sources: [{ source: ' Google ', rating: 4.5, reviews: 10 }] },
      { name: long, score: 0, scoreMax: Number.NaN, sources: [{ source: long, rating: Number.POSITIVE_INFINITY, reviews: -1 }] },
      { name: '\u001b[2J\u200d', score: -3, sources: Array.from({ length: 60 }, (_, i) => ({ source: `S\u0007${i}`, rating: i / 7 })) },
      { name: undefined, score: 1e21, scoreMax: 5, sources: [] },
      { name: 'Évora \u2028 Café', score: 4.2, sources: [{ source: '\u009b31m', reviews: 3 }] },
    ];
    for (const answer of answers) {
      const point = pointFromAudit(answer, { at: T0, baseUrl: 'https://u:p@api.example.test/api/', query: ` q\u001b${long}` })!;
      expect(point).toBeDefined();
      expect(parsePoint(JSON.stringify(point))).toEqual(point);
      expect(Object.keys(parsePoint(JSON.stringify(point))!)).toEqual(Object.keys(point));
    }
    expect(pointFromAudit({ name: 'x', score: Number.NaN, sources: [] }, { at: T0, baseUrl: BASE, query: 'x' })).toBeUndefined();
  });

  it('text in a file is scrubbed when read too (a file from elsewhere), and a bad time or score makes a line corrupt', async () => {
    const root = tempDir();
    const legacy = join(root, 'history.jsonl');
    const line = {
      id: 'a1',
      at: '2026-11-01T09:00:00+01:00',
      base_url: BASE,
      query: ' q\u001b]0;title\u0007 ',
      name: '\u202eevil',
      score: 5,
      scale: 'x',
      sources: [{ source: 'G\u009b2J', rating: 'high' }, 'junk'],
    };
    // Two plain points of another company: a file mostly corrupt is not taken for a history.
    const others = [point('other', T0, 1), point('other', T0 + DAY, 2)].map((each) => `${JSON.stringify(each)}\n`).join('');
    writeFileSync(
      legacy,
      `${others}${JSON.stringify(line)}\n${JSON.stringify({ ...line, id: 'a2', at: 'yesterday' })}\n${JSON.stringify({ ...line, id: 'a3', score: '5' })}\n`,
    );
    const { store, warnings } = auditRun({}, root);
    expect(await all(store, 'q')).toEqual([
      { id: 'a1', at: '2026-11-01T08:00:00.000Z', base_url: BASE, query: 'q', name: 'evil', score: 5, sources: [{ source: 'G' }] },
    ]);
    expect(warnings).toHaveLength(1);
  });

  it('the previous point is the newest of the query; only where it has none, of a matching query or company name; at its base URL', async () => {
    const stateDir = join(tempDir(), 'state');
    const ask = async (points: HistoryPoint[], query: string, name?: string, baseUrl = BASE) => {
      const root = join(stateDir, String(Math.random()).slice(2));
      const { run, store } = auditRun({}, root, { now: T0 + 10 * DAY }, baseUrl);
      await store.append(points);
      return (await run.previous(query, name))?.score;
    };
    const points = [
      point('blue', T0, 1, { name: 'Blue Bottle' }),
      point('Blue Bottle Coffee', T0 + DAY, 2, { name: 'Blue Bottle Coffee' }),
      point('blue', T0 + 2 * DAY, 3, { name: 'Blue Bottle Coffee' }),
    ];
    expect(await ask(points, 'blue', 'Blue Bottle Coffee')).toBe(3);
    expect(await ask(points.slice(0, 2), 'BLUE', 'blue bottle coffee')).toBe(1); // its own query's, though older
    expect(await ask(points.slice(0, 2), 'bottle', 'blue bottle coffee')).toBe(2); // a new query: by the name
    expect(await ask(points.slice(0, 2), 'blue')).toBe(1);
    expect(await ask(points.slice(0, 2), 'blue bottle')).toBe(1); // by the company name of the first
    expect(await ask(points, 'nothing')).toBeUndefined();
    expect(await ask(points, 'blue', undefined, 'https://elsewhere.test/api')).toBeUndefined();
  });

  it('the previous point before a time: the newest recorded strictly before it (a cached answer skips its own point)', async () => {
    const { run, store } = auditRun({}, join(tempDir(), 'state'), { now: T0 + 10 * DAY });
    await store.append([point('blue', T0, 1), point('blue', T0 + DAY, 2), point('blue', T0 + 2 * DAY, 3)]);
    const scores = await Promise.all(
      [T0 + 2 * DAY, T0 + 2 * DAY + 1, T0 + DAY - 1, T0].map(async (before) => (await run.previous('blue', undefined, before))?.score),
    );
    expect(scores).toEqual([2, 3, 1, undefined]); // asked together: one lookup
  });

  it('names: the recorded names and queries starting with a prefix, each once, sorted; none from a missing folder', async () => {
    const { store } = auditRun({}, join(tempDir(), 'state'));
    expect(await store.names('')).toEqual([]);
    await store.append([
      point('blue', T0, 1, { name: 'Blue Bottle Coffee' }),
      point('Кофейня Ромашка', T0, 2, { name: 'Кофейня Ромашка' }),
      point('BLUE', T0 + DAY, 3, { name: 'Blue Bottle Coffee' }),
    ]);
    expect(await store.names('')).toEqual(['BLUE', 'Blue Bottle Coffee', 'Кофейня Ромашка']);
    expect(await store.names('blue b')).toEqual(['Blue Bottle Coffee']);
    expect(await store.names('коф')).toEqual(['Кофейня Ромашка']);
  });
});
