// `rep history` through its run(), in-process: three recorded points in every format, oldest first
// with their changes; --since; exit 3 (with how to start a history) when there is none; valid GFM
// when a name holds a pipe. No request is sent: the history is local.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, type HistoryOptions } from '../src/commands/history.js';
import { createDeps, openStore } from '../src/context.js';
import type { Deps, Format } from '../src/deps.js';
import type { Store } from '../src/store/port.js';
import { localDateTime } from '../src/history/change.js';
import { testIO } from '../src/io.js';
import { localHistory, recordAnswers } from './helpers/history.js';
import { testGlobals } from './helpers/globals.js';

const BASE = 'https://api.example.test/api';
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-11-01T08:00:00Z');
const NOW = T0 + 10 * DAY;
const SCORES = [80, 73, 74.5];

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Setup {
  format?: Format | 'markdown';
  env?: NodeJS.ProcessEnv;
  sandbox?: boolean;
  columns?: number;
}

/** A temp home: config and state dirs, REP_BASE_URL set unless env says otherwise. */
function home() {
  root = mkdtempSync(join(tmpdir(), 'rep-history-cmd-'));
  return { stateDir: join(root, 'state'), env: { REP_CONFIG_DIR: join(root, 'config'), REP_BASE_URL: BASE } as NodeJS.ProcessEnv };
}

/** Records answers the way an audit run does, one day apart from T0. */
async function record(
  stateDir: string,
  env: NodeJS.ProcessEnv,
  query: string,
  scores: readonly number[],
  options: { name?: string; baseUrl?: string; start?: number } = {},
) {
  const answers = scores.map((score, day) => ({
    query,
    at: (options.start ?? T0) + day * DAY,
    answer: { name: options.name ?? 'Blue Bottle Coffee', score, scoreMax: 100, sources: [{ source: 'Google', rating: 4.5 }] },
  }));
  await recordAnswers(localHistory(env, stateDir), options.baseUrl ?? BASE, answers);
}

async function history(opts: HistoryOptions, stateDir: string, setup: Setup = {}) {
  const io = testIO({ columns: setup.columns ?? 80 });
  const globals = testGlobals({ sandbox: setup.sandbox ?? false });
  // 'markdown' is cast until the global Format has it (the lead adds it with --format markdown).
  if (setup.format) globals.format = setup.format as Format;
  const { deps, cleanup } = createDeps({ globals, io, env: setup.env ?? {}, signal: new AbortController().signal, now: () => NOW });
  const local: Deps = { ...deps, paths: () => ({ ...deps.paths(), stateDir }) };
  let store: Store | undefined;
  local.store = () => (store ??= openStore(local));
  try {
    await run(opts, local);
    return { stdout: io.stdoutText(), stderr: io.stderrText() };
  } finally {
    await cleanup();
  }
}

async function failure(promise: Promise<unknown>): Promise<{ exitCode: number; message: string; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { exitCode: number; message: string; hint?: string };
  }
  throw new Error('expected rep history to fail');
}

describe('rep history', () => {
  it('json: an array of the three points, oldest first, with change, name, query, base URL and sources', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES);
    const { stdout, stderr } = await history({ name: 'Blue  BOTTLE' }, stateDir, { env, format: 'json' });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual(
      SCORES.map((score, day) => ({
        at: new Date(T0 + day * DAY).toISOString(),
        score,
        scale: 100,
        change: [null, -7, 1.5][day],
        name: 'Blue Bottle Coffee',
        future: false,
        query: 'blue bottle',
        base_url: BASE,
        sources: [{ source: 'Google', rating: 4.5 }],
      })),
    );
  });

  it('ndjson: the same records, one compact line each; found by the company name too', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES);
    const json = JSON.parse((await history({ name: 'blue bottle' }, stateDir, { env, format: 'json' })).stdout) as unknown[];
    const { stdout } = await history({ name: 'Blue Bottle Coffee' }, stateDir, { env, format: 'ndjson' });
    expect(stdout.split('\n')).toHaveLength(4);
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(json);
  });

  it('csv: at, score, change, name, base_url', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES);
    const { stdout } = await history({ name: 'blue bottle' }, stateDir, { env, format: 'csv' });
    const at = (day: number) => new Date(T0 + day * DAY).toISOString();
    expect(stdout).toBe(
      'at,score,change,name,base_url\n' +
        `${at(0)},80,,Blue Bottle Coffee,${BASE}\n${at(1)},73,-7,Blue Bottle Coffee,${BASE}\n${at(2)},74.5,1.5,Blue Bottle Coffee,${BASE}\n`,
    );
  });

  it('table: name, base URL, the trend as a sparkline, then date, score and change (arrows, no colour needed), within 80 columns', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES);
    const { stdout } = await history({ name: 'blue bottle' }, stateDir, { env, format: 'table' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['Blue Bottle Coffee', BASE, 'Trend  █▁▃  3 points, 80.0 → 74.5']);
    const rows = lines.filter((line) => /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(line));
    expect(
      rows.map((line) =>
        line
          .split('│')
          .map((cell) => cell.trim())
          .filter(Boolean),
      ),
    ).toEqual([
      [localDateTime(new Date(T0).toISOString()), '80.0 / 100', '—'],
      [localDateTime(new Date(T0 + DAY).toISOString()), '73.0 / 100', '▼ 7.0'],
      [localDateTime(new Date(T0 + 2 * DAY).toISOString()), '74.5 / 100', '▲ 1.5'],
    ]);
    expect(stdout).not.toMatch(/\u001b/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  /** The table of 100 recorded points (scores 0..9, repeating) on a line of `columns`. */
  async function longHistoryTable(columns: number): Promise<string> {
    const { stateDir, env } = home();
    await record(
      stateDir,
      env,
      'blue bottle',
      Array.from({ length: 100 }, (_, i) => i % 10),
      { start: NOW - 100 * DAY },
    );
    return (await history({ name: 'blue bottle' }, stateDir, { env, format: 'table', columns })).stdout;
  }

  it('table: a long history draws the newest points that fit the line and says so', async () => {
    const stdout = await longHistoryTable(60);
    const trend = stdout.split('\n')[2]!;
    expect(trend).toMatch(/^Trend {2}[▁-█]+ {2}100 points, 0\.0 → 9\.0 \(the last \d+ drawn\)$/);
    expect([...trend].length).toBeLessThanOrEqual(60);
  });

  it('table: on a 40-column line the sparkline keeps the line to itself, the summary under it', async () => {
    const stdout = await longHistoryTable(40);
    const lines = stdout.split('\n');
    expect(lines[2]).toMatch(/^Trend {2}[▁-█]{33}$/);
    expect(lines[3]).toBe('100 points, 0.0 → 9.0, the last 33 drawn');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
  });

  it('markdown: a valid GFM table (a pipe in a name escaped, every row as many cells as the header) and the trend', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'joe', SCORES, { name: 'Joe | Sons\nCoffee' });
    const { stdout } = await history({ name: 'joe' }, stateDir, { env, format: 'markdown' });
    const [table, trend] = stdout.split('\n\n');
    const rows = table!.split('\n');
    expect(rows.slice(0, 2)).toEqual(['| Date | Score | Change | Name |', '| --- | ---: | --- | --- |']);
    for (const row of rows) expect(row.replace(/^\||\|$/g, '').split(/(?<!\\)\|/)).toHaveLength(4);
    expect(rows[3]).toBe(`| ${localDateTime(new Date(T0 + DAY).toISOString())} | 73.0 / 100 | ▼ 7.0 | Joe \\| Sons Coffee |`);
    expect(trend).toBe('Trend  █▁▃  3 points, 80.0 → 74.5\n');
  });

  it('--since keeps the points at or after it; the first kept row keeps its change from the point before', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES, { start: NOW - 3 * DAY });
    const recent = JSON.parse((await history({ name: 'blue bottle', since: '2d' }, stateDir, { env, format: 'json' })).stdout) as Array<{
      score: number;
      change: number;
    }>;
    expect(recent.map(({ score, change }) => [score, change])).toEqual([
      [73, -7],
      [74.5, 1.5],
    ]);
    const all = JSON.parse((await history({ name: 'blue bottle', since: '2026-01-01' }, stateDir, { env, format: 'json' })).stdout) as unknown[];
    expect(all).toHaveLength(3);
    const none = await failure(history({ name: 'blue bottle', since: '1h' }, stateDir, { env, format: 'json' }));
    expect(none).toMatchObject({ exitCode: 3, hint: 'its 3 points are older: give an earlier --since' });
    expect(none.message).toMatch(/^no history for blue bottle since \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(await failure(history({ name: 'blue bottle', since: 'last week' }, stateDir, { env }))).toMatchObject({ exitCode: 2 });
  });

  it('a name with no history exits 3 and says how to start one; stdout stays empty', async () => {
    const { stateDir, env } = home();
    const error = await failure(history({ name: "Joe's Coffee" }, stateDir, { env, format: 'json' }));
    expect(error).toMatchObject({ exitCode: 3, message: "no history for Joe's Coffee", hint: "run `rep audit 'Joe'\\''s Coffee'` to record a point" });
    await record(stateDir, env, 'blue bottle', SCORES);
    expect(await failure(history({ name: 'Blue' }, stateDir, { env }))).toMatchObject({ exitCode: 3, hint: 'run `rep audit Blue` to record a point' });
  });

  it("points are per base URL: with another in use, exit 3 names where they are; with none set, the newest point's base URL is used", async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', [50, 51], { baseUrl: 'https://old.example.test/api' });
    await record(stateDir, env, 'blue bottle', SCORES, { start: T0 + 5 * DAY });
    const elsewhere = await failure(history({ name: 'blue bottle' }, stateDir, { env: { ...env, REP_BASE_URL: 'https://new.example.test/api' } }));
    expect(elsewhere).toMatchObject({ exitCode: 3, hint: `its points are for another base URL: rep history --base-url ${BASE} 'blue bottle'` });
    const unset = JSON.parse(
      (await history({ name: 'blue bottle' }, stateDir, { env: { REP_CONFIG_DIR: env.REP_CONFIG_DIR }, format: 'json' })).stdout,
    ) as Array<{ base_url: string }>;
    expect(unset.map((point) => point.base_url)).toEqual([BASE, BASE, BASE]);
    const old = JSON.parse(
      (await history({ name: 'blue bottle' }, stateDir, { env: { ...env, REP_BASE_URL: 'https://old.example.test/api/' }, format: 'json' })).stdout,
    ) as unknown[];
    expect(old).toHaveLength(2);
  });

  it('REP_HISTORY_FILE is read instead of the state dir', async () => {
    const { stateDir, env } = home();
    const carried = { ...env, REP_HISTORY_FILE: join(root, 'carried.jsonl') };
    await record(stateDir, carried, 'blue bottle', SCORES);
    expect(JSON.parse((await history({ name: 'blue bottle' }, stateDir, { env: carried, format: 'json' })).stdout)).toHaveLength(3);
    expect(await failure(history({ name: 'blue bottle' }, stateDir, { env, format: 'json' }))).toMatchObject({ exitCode: 3 });
  });

  it('a corrupt line: one warning on stderr, the other points shown; an unreadable file: exit 1 naming it', async () => {
    const { stateDir, env } = home();
    await record(stateDir, env, 'blue bottle', SCORES);
    const dir = join(stateDir, 'history');
    const [shard] = readdirSync(join(dir, 'journal'));
    const file = join(dir, 'journal', shard!);
    const series = readFileSync(file, 'utf8').slice(0, 33); // a journal line starts with its series' name
    writeFileSync(file, `${series}{"torn\n`, { flag: 'a' });
    const { stdout, stderr } = await history({ name: 'blue bottle' }, stateDir, { env, format: 'json' });
    expect(JSON.parse(stdout)).toHaveLength(3);
    expect(stderr).toBe(`rep: warning: skipped a corrupt line in the history file ${file}\n`);
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'a file of the user\n');
    expect(await failure(history({ name: 'blue bottle' }, stateDir, { env }))).toMatchObject({
      exitCode: 1,
      message: `cannot read the history in ${dir} (the history path ${dir} is a file, not rep's history folder: it is left untouched)`,
    });
  });

  // The sandbox's own history: test/sandbox-store.test.ts.
  it('an empty name is a usage error', async () => {
    const { stateDir, env } = home();
    expect(await failure(history({ name: '  ' }, stateDir, { env }))).toMatchObject({ exitCode: 2, message: 'the company name is empty' });
  });
});
