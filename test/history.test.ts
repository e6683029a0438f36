// The score history on disk: points come back oldest first, from REP_HISTORY_FILE when set, private
// (0600), bounded, with a corrupt line skipped and reported once; and 20 rep processes appending at
// once (compacting all the while) lose no point.
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openAuditHistory } from '../src/state/audit-history.js';
import {
  historyFile,
  historyNames,
  latestPoints,
  openHistory,
  pointFromAudit,
  pointsFor,
  type HistoryLimits,
  type HistoryPoint,
} from '../src/state/history.js';

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

/** The parts of Deps the history needs, with warnings collected. */
function historyDeps(env: NodeJS.ProcessEnv, stateDir: string, clock = { now: T0 }) {
  const warnings: string[] = [];
  return { deps: { env, paths: () => ({ stateDir }), now: () => clock.now, warn: (text: string) => void warnings.push(text) }, warnings, clock };
}

describe('the history store', () => {
  it('three recorded answers come back as three points, oldest first, with what the answer said', () => {
    const stateDir = join(tempDir(), 'state');
    const { deps, clock } = historyDeps({}, stateDir);
    for (const [day, score] of [
      [0, 80],
      [1, 73],
      [2, 74.5],
    ] as const) {
      clock.now = T0 + day * DAY;
      openAuditHistory(deps, `${BASE}/`).record('blue bottle', answer(score));
    }
    const points = openHistory(join(stateDir, 'history.jsonl')).read();
    expect(points.map(({ id: _id, ...rest }) => rest)).toEqual(
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

  it('REP_HISTORY_FILE is the one file used (its directory made), 0600, and nothing goes to the state dir', () => {
    const root = tempDir();
    const file = join(root, 'ci-cache', 'scores.jsonl');
    const stateDir = join(root, 'state');
    const { deps } = historyDeps({ REP_HISTORY_FILE: file }, stateDir);
    expect(historyFile(deps.env, stateDir)).toBe(file);
    openAuditHistory(deps, BASE).record('Blue Bottle', answer(80));
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => readdirSync(stateDir)).toThrow(/ENOENT/);
  });

  it('a history file brought back 0644 (a CI cache) is made 0600 again by the next point', () => {
    const file = join(tempDir(), 'history.jsonl');
    writeFileSync(file, `${JSON.stringify(point('a', T0, 1))}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    openHistory(file).append([point('a', T0 + DAY, 2)]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('without REP_HISTORY_FILE the file is history.jsonl in the state dir', () => {
    expect(historyFile({}, '/state/rep')).toBe('/state/rep/history.jsonl');
    expect(historyFile({ REP_HISTORY_FILE: '' }, '/state/rep')).toBe('/state/rep/history.jsonl');
  });

  it('corrupt lines are skipped with one warning; the lines around them and a line glued to a torn write still count', () => {
    const file = join(tempDir(), 'history.jsonl');
    const [a, b, c] = [point('a', T0, 1), point('a', T0 + DAY, 2), point('a', T0 + 2 * DAY, 3)];
    writeFileSync(file, `${JSON.stringify(a)}\nnot json\n{"id":"x"}\n${JSON.stringify(b).slice(0, 30)}${JSON.stringify(b)}\n\n${JSON.stringify(c)}\n`);
    const warnings: string[] = [];
    const points = openHistory(file, { warn: (text) => warnings.push(text) }).read();
    expect(points.map((each) => each.score)).toEqual([1, 2, 3]);
    expect(warnings).toEqual([`skipped 2 corrupt lines in the history file ${file}`]);
  });

  it('a point written twice (a compaction raced its writer) is read once', () => {
    const file = join(tempDir(), 'history.jsonl');
    const a = point('a', T0, 1);
    openHistory(file).append([a, point('a', T0 + DAY, 2), a]);
    expect(
      openHistory(file)
        .read()
        .map((each) => each.score),
    ).toEqual([1, 2]);
  });

  it('bounded: past the size limit a compaction keeps at most perSeries points per (base URL, query), the newest, and the newest bytes', () => {
    const root = tempDir();
    const file = join(root, 'history.jsonl');
    const limits: HistoryLimits = { compactAtBytes: 4000, keepBytes: 2000, perSeries: 3 };
    const store = openHistory(file, { limits });
    for (let day = 0; day < 12; day++)
      store.append([point('Blue Bottle', T0 + day * DAY, day), point('Other', T0 + day * DAY, 100 + day, { base_url: 'https://other.test/api' })]);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(Buffer.byteLength(lines.join('\n'))).toBeLessThanOrEqual(limits.compactAtBytes);
    const points = store.read();
    const blue = pointsFor(points, 'blue bottle').map((each) => each.score);
    expect(blue.length).toBeLessThanOrEqual(limits.perSeries + 4); // appended since the last compaction
    expect(blue.at(-1)).toBe(11); // the newest are kept
    expect(blue).toEqual([...blue].sort((x, y) => x - y));
    expect(readdirSync(root).sort()).toEqual(['history.jsonl']); // no lock or temporary file left
  });

  it('a compaction drops points beyond perSeries, oldest first', () => {
    const file = join(tempDir(), 'history.jsonl');
    const store = openHistory(file, { limits: { compactAtBytes: 1, keepBytes: 1_000_000, perSeries: 2 } });
    for (let day = 0; day < 5; day++) store.append([point('Blue Bottle', T0 + day * DAY, day)]);
    expect(store.read().map((each) => each.score)).toEqual([3, 4]);
  });

  it('a compaction left by a dead process: a live lock waits, a stale lock and stale temporary files are cleared, other files stay', () => {
    const root = tempDir();
    const file = join(root, 'history.jsonl');
    const store = openHistory(file, { limits: { compactAtBytes: 1, keepBytes: 1_000_000, perSeries: 1 } });
    const lock = `${file}.lock`;
    writeFileSync(lock, '12345\n');
    const deadTemp = `${file}.12345.abcd1234.tmp`;
    writeFileSync(deadTemp, 'half a compaction');
    writeFileSync(join(root, 'other.tmp'), 'not ours');
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(deadTemp, hourAgo, hourAgo);
    utimesSync(join(root, 'other.tmp'), hourAgo, hourAgo);
    store.append([point('a', T0, 1)]);
    store.append([point('a', T0 + DAY, 2)]);
    expect(store.read().map((each) => each.score)).toEqual([1, 2]); // a live lock: no compaction yet
    utimesSync(lock, hourAgo, hourAgo);
    store.append([point('a', T0 + 2 * DAY, 3)]); // clears the stale lock
    store.append([point('a', T0 + 3 * DAY, 4)]); // compacts
    expect(store.read().map((each) => each.score)).toEqual([4]);
    expect(readdirSync(root).sort()).toEqual(['history.jsonl', 'other.tmp']);
  });

  it('a history path that is a directory or a FIFO is an error to the caller, not a hang', () => {
    const root = tempDir();
    mkdirSync(join(root, 'dir.jsonl'));
    expect(() => openHistory(join(root, 'dir.jsonl')).read()).toThrow();
    expect(() => openHistory(join(root, 'dir.jsonl')).append([point('a', T0, 1)])).toThrow();
  });

  it.each([[{ oneName: false }], [{ oneName: true }]])(
    'an audit run (%j) never sees its own points: a name audited twice compares both times with the same point',
    (options) => {
      const stateDir = join(tempDir(), 'state');
      const { deps, clock } = historyDeps({}, stateDir);
      openAuditHistory(deps, BASE).record('Blue Bottle', answer(80));
      clock.now += DAY;
      const run = openAuditHistory(deps, BASE, options);
      expect(run.previous('blue  BOTTLE')?.score).toBe(80);
      run.record('Blue Bottle', answer(70));
      expect(run.previous('Blue Bottle')?.score).toBe(80);
      expect(run.previous('blue bottle coffee')?.score).toBe(80); // by the company's name too
      expect(run.previous('Blue Bottle', undefined)).toBeDefined();
      expect(openAuditHistory(deps, 'https://elsewhere.test/api').previous('Blue Bottle')).toBeUndefined(); // per base URL
    },
  );

  it('an answer without a score records nothing; a history that cannot be read or written is a warning each, not a failure', () => {
    const root = tempDir();
    writeFileSync(join(root, 'state'), 'a file where the state directory should be');
    const { deps, warnings } = historyDeps({}, join(root, 'state'));
    const run = openAuditHistory(deps, BASE);
    expect(run.record('x', { sources: [] })).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(run.record('x', answer(50))).toBeUndefined();
    expect(run.previous('x')).toBeUndefined();
    const file = join(root, 'state', 'history.jsonl');
    expect(warnings).toEqual([
      `cannot record the score in the history file ${file} (not a directory)`,
      `cannot read the history file ${file} (not a directory): no previous scores to compare with`,
    ]);
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

  it('text in the file is scrubbed when read too (a file from elsewhere), and a bad time or score makes a line corrupt', () => {
    const file = join(tempDir(), 'history.jsonl');
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
    writeFileSync(
      file,
      `${JSON.stringify(line)}\n${JSON.stringify({ ...line, id: 'a2', at: 'yesterday' })}\n${JSON.stringify({ ...line, id: 'a3', score: '5' })}\n`,
    );
    const warnings: string[] = [];
    expect(openHistory(file, { warn: (text) => warnings.push(text) }).read()).toEqual([
      { id: 'a1', at: '2026-11-01T08:00:00.000Z', base_url: BASE, query: 'q', name: 'evil', score: 5, sources: [{ source: 'G' }] },
    ]);
    expect(warnings).toHaveLength(1);
  });

  it('latestPoints gives the newest point of the query; only where it has none, of a matching query or company name; at its base URL', () => {
    const points = [
      point('blue', T0, 1, { name: 'Blue Bottle' }),
      point('Blue Bottle Coffee', T0 + DAY, 2, { name: 'Blue Bottle Coffee' }),
      point('blue', T0 + 2 * DAY, 3, { name: 'Blue Bottle Coffee' }),
    ];
    expect(latestPoints(points, BASE)('blue', 'Blue Bottle Coffee')?.score).toBe(3);
    expect(latestPoints(points.slice(0, 2), BASE)('BLUE', 'blue bottle coffee')?.score).toBe(1); // its own query's, though older
    expect(latestPoints(points.slice(0, 2), BASE)('bottle', 'blue bottle coffee')?.score).toBe(2); // a new query: by the name
    expect(latestPoints(points.slice(0, 2), BASE)('blue')?.score).toBe(1);
    expect(latestPoints(points.slice(0, 2), BASE)('blue bottle')?.score).toBe(1); // by the company name of the first
    expect(latestPoints(points, BASE)('nothing')).toBeUndefined();
    expect(latestPoints(points, 'https://elsewhere.test/api')('blue')).toBeUndefined();
  });

  it('latestPoints with a time: the newest point recorded strictly before it (a cached answer skips its own point)', () => {
    const points = [point('blue', T0, 1), point('blue', T0 + DAY, 2), point('blue', T0 + 2 * DAY, 3)];
    const lookup = latestPoints(points, BASE);
    expect(lookup('blue', undefined, T0 + 2 * DAY)?.score).toBe(2);
    expect(lookup('blue', undefined, T0 + 2 * DAY + 1)?.score).toBe(3);
    expect(lookup('blue', undefined, T0 + DAY - 1)?.score).toBe(1);
    expect(lookup('blue', undefined, T0)).toBeUndefined();
  });

  it('historyNames: the recorded names and queries starting with a prefix, each once, sorted; none from a missing file', () => {
    const root = tempDir();
    const file = join(root, 'history.jsonl');
    const store = openHistory(file);
    store.append([
      point('blue', T0, 1, { name: 'Blue Bottle Coffee' }),
      point('Кофейня Ромашка', T0, 2, { name: 'Кофейня Ромашка' }),
      point('BLUE', T0 + DAY, 3, { name: 'Blue Bottle Coffee' }),
    ]);
    expect(historyNames(file)).toEqual(['BLUE', 'Blue Bottle Coffee', 'Кофейня Ромашка']);
    expect(historyNames(file, 'blue b')).toEqual(['Blue Bottle Coffee']);
    expect(historyNames(file, 'коф')).toEqual(['Кофейня Ромашка']);
    expect(historyNames(join(root, 'missing.jsonl'))).toEqual([]);
  });
});

describe('parallel rep processes', () => {
  let bundle: string;
  let worker: string;
  let bundleDir: string;
  beforeAll(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), 'rep-history-bundle-'));
    bundle = join(bundleDir, 'history.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '../src/state/history.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'warning',
    });
    worker = join(bundleDir, 'append.mjs');
    // One process: `count` points, one append each, into one shared file, with the given limits.
    writeFileSync(
      worker,
      `const { openHistory } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
const [file, proc, count, compactAt] = process.argv.slice(2);
const store = openHistory(file, { limits: { compactAtBytes: Number(compactAt), keepBytes: 1 << 30, perSeries: 1e9 } });
for (let i = 0; i < Number(count); i++) {
  store.append([{ id: proc + '-' + i, at: new Date().toISOString(), base_url: 'https://api.example.test/api', query: 'q' + proc, score: i, sources: [] }]);
}
`,
    );
  });
  afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

  function appendFrom(file: string, proc: number, count: number, compactAt: number): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [worker, file, String(proc), String(count), String(compactAt)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it.each([
    ['without compaction', 8 * 1024 * 1024],
    ['compacting all the while', 3000],
  ])(
    '20 processes appending at once lose no point (%s)',
    async (_label, compactAt) => {
      const root = tempDir();
      const file = join(root, 'history.jsonl');
      const processes = 20;
      const each = 25;
      const results = await Promise.all(Array.from({ length: processes }, (_, proc) => appendFrom(file, proc, each, compactAt)));
      expect(results).toEqual(Array.from({ length: processes }, () => ({ code: 0, stderr: '' })));
      const warnings: string[] = [];
      const ids = openHistory(file, { warn: (text) => warnings.push(text) })
        .read()
        .map((each) => each.id);
      const expected = Array.from({ length: processes }, (_, proc) => Array.from({ length: each }, (_, i) => `${proc}-${i}`)).flat();
      expect(ids.sort()).toEqual(expected.sort());
      expect(warnings).toEqual([]);
      expect(readdirSync(root)).toEqual(['history.jsonl']);
      appendFileSync(file, ''); // still a plain file we can write
    },
    120_000,
  );
});

describe('reading for one name (HistoryStore.readFor)', () => {
  /** Lines of every kind a history file may hold: plain ones, other spellings, escapes, scrubbed text, cut text, damage. */
  function mixedHistory(file: string) {
    const line = (query: string, day: number, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ ...point(query, T0 + day * DAY, day), query, name: query, ...extra }); // the texts as given, not cleaned
    const long = `${'x '.repeat(249)}xe\u0301tude`; // cut at 500 code points between the e and its accent
    const lines = [
      line('Blue Bottle Coffee', 0),
      line('blue   BOTTLE coffee', 1),
      line('Ｂｌｕｅ Ｂｏｔｔｌｅ Ｃｏｆｆｅｅ', 2), // fullwidth: NFKC makes it plain
      line('bbc', 3, { name: 'Blue Bottle Coffee' }), // matched by its company name
      line('Кофейня Ромашка', 4),
      line('КОФЕЙНЯ  РОМАШКА', 5),
      line('ΟΔΟΣ', 6),
      line('Joe\'s "Bar"', 7), // escaped quotes
      line('Blue\u200eBottle Coffee', 8), // a mark that scrubbing removes
      line('Blue\u007fBottle Coffee', 9),
      line(long, 10),
      line(' ', 17), // a name that nameKey makes empty
      line('Other Place', 11, { name: 'Another Coffee' }),
      line('Blue Bottle Coffee', 12, { base_url: 'https://elsewhere.test/api' }),
      '{"id":"zz"}',
      'not json at all',
      `${line('Blue Bottle Coffee', 13).slice(0, 40)}${line('Blue Bottle Coffee', 14)}`, // glued to a torn write
      '',
    ];
    // `\\u00e9` as another tool may write it: an escape in the file.
    lines.push(line('Café Bleu', 15).replace('Café', 'Caf\\u00e9'), line('café bleu', 16));
    writeFileSync(file, `${lines.join('\n')}\n`);
    return long;
  }

  it.each([['as written'], ['in ASCII, every other character escaped']])(
    'finds every point read() finds for a name, however the file spells it (%s)',
    (kind) => {
      const file = join(tempDir(), 'history.jsonl');
      const long = mixedHistory(file);
      if (kind !== 'as written') {
        const escaped = readFileSync(file, 'utf8').replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
        writeFileSync(file, escaped);
      }
      const store = openHistory(file);
      const all = store.read();
      const names = [
        'Blue Bottle Coffee',
        'BLUE bottle  Coffee',
        'Ｂｌｕｅ Ｂｏｔｔｌｅ Ｃｏｆｆｅｅ',
        'bbc',
        'кофейня ромашка',
        'οδος',
        'ΟΔΟΣ',
        'Joe\'s "Bar"',
        'BlueBottle Coffee',
        'Blue Bottle',
        'Another Coffee',
        'Café Bleu',
        'Cafe\u0301 Bleu',
        long,
        `${'x '.repeat(249)}xe`,
        '  ',
        'nowhere',
      ];
      for (const name of names) {
        const expected = pointsFor(all, name);
        expect(pointsFor(store.readFor([name]), name), name).toEqual(expected);
        expect(pointsFor(store.readFor(['nowhere', name]), name), name).toEqual(expected);
      }
      // Spot checks that the names above do find what they should.
      expect(pointsFor(all, 'Blue Bottle Coffee').map((each) => each.score)).toEqual([0, 1, 2, 3, 12, 14]);
      expect(pointsFor(all, 'кофейня ромашка').map((each) => each.score)).toEqual([4, 5]);
      expect(pointsFor(all, 'Café Bleu').map((each) => each.score)).toEqual([15, 16]);
      expect(pointsFor(all, `${'x '.repeat(249)}xe`).map((each) => each.score)).toEqual([10]);
    },
  );

  it('leaves out plain lines without the name, unparsed: a corrupt one among them goes unreported, unlike in read()', () => {
    const file = join(tempDir(), 'history.jsonl');
    const wanted = point('Blue Bottle Coffee', T0, 1);
    writeFileSync(file, `${JSON.stringify(point('Other Place', T0, 2, { name: 'Other Place' }))}\n{"id":"zz"}\n${JSON.stringify(wanted)}\n`);
    const warnings: string[] = [];
    const store = openHistory(file, { warn: (text) => warnings.push(text) });
    expect(store.readFor(['blue bottle coffee'])).toEqual([wanted]);
    expect(warnings).toEqual([]);
    expect(store.read()).toHaveLength(2);
    expect(warnings).toEqual([`skipped a corrupt line in the history file ${file}`]);
  });
});
