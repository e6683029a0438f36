// `rep history prune --before` (the only way a point goes), the history line of `rep status` and what
// `rep history import` refuses, in-process through main() on a temp home: how many went on stderr,
// exit 2 on a bad time or source.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localHistory, recordAnswers } from './helpers/history.js';
import { makeTempHome, runInProcess } from './helpers/cli.js';

const BASE = 'https://api.example.test/api';
const DAY = 24 * 60 * 60 * 1000;

/** A temp home whose history holds Blue Bottle at 400, 200 and 10 days ago, and Tartine 300 days ago. */
async function homeWithHistory() {
  const home = makeTempHome();
  const stateDir = join(home.dir, 'state', 'rep');
  const now = Date.now();
  const answer = (score: number, name: string) => ({ name, score, sources: [] });
  await recordAnswers(localHistory(home.env, stateDir), BASE, [
    { query: 'Blue Bottle', at: now - 400 * DAY, answer: answer(70, 'Blue Bottle') },
    { query: 'Blue Bottle', at: now - 200 * DAY, answer: answer(75, 'Blue Bottle') },
    { query: 'Blue Bottle', at: now - 10 * DAY, answer: answer(80, 'Blue Bottle') },
    { query: 'Tartine', at: now - 300 * DAY, answer: answer(60, 'Tartine') },
  ]);
  return { home, env: { REP_BASE_URL: BASE } };
}

describe('rep history prune', () => {
  it('also removes temporary files a killed prune left in the series folder, once they are an hour old', async () => {
    const { home, env } = await homeWithHistory();
    const series = join(home.dir, 'state', 'rep', 'history', 'series');
    const before = readdirSync(series).sort();
    const old = join(series, '.0123456789abcdef0123456789abcdef.jsonl.1a2b-c3d4e5f6.tmp');
    const fresh = join(series, '.fedcba9876543210fedcba9876543210.jsonl.1a2b-0a0b0c0d.tmp');
    for (const path of [old, fresh]) writeFileSync(path, '{"partial":', { mode: 0o600 });
    const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    const pruned = await runInProcess(['history', 'prune', '--before', '1y'], { home, env });
    expect(pruned.code).toBe(0);
    // The old leftover went; one that may still be a live prune's stays; no series file went.
    expect(readdirSync(series).sort()).toEqual([...before, '.fedcba9876543210fedcba9876543210.jsonl.1a2b-0a0b0c0d.tmp'].sort());
  });

  it('removes the points before a duration back, every company, and says how many on stderr; the rest stay', async () => {
    const { home, env } = await homeWithHistory();
    const pruned = await runInProcess(['history', 'prune', '--before', '1y'], { home, env });
    expect([pruned.code, pruned.stdout]).toEqual([0, '']);
    expect(pruned.stderr).toMatch(/^Removed 1 point dated before .+ from .+history\n$/);
    const again = await runInProcess(['history', 'prune', '--before', '150d'], { home, env });
    expect(again.stderr).toMatch(/^Removed 2 points dated before /);
    const kept = await runInProcess(['history', 'Blue Bottle', '--format', 'json'], { home, env });
    expect((JSON.parse(kept.stdout) as Array<{ score: number }>).map((point) => point.score)).toEqual([80]);
    const none = await runInProcess(['history', 'prune', '--before', '2000-01-01'], { home, env });
    expect([none.code, none.stderr]).toEqual([0, expect.stringMatching(/^No points before /)]);
    expect((await runInProcess(['--quiet', 'history', 'prune', '--before', '1d'], { home, env })).stderr).toBe('');
  });

  it('a bad or missing --before is a usage error (exit 2) and removes nothing; --format does not apply', async () => {
    const { home, env } = await homeWithHistory();
    const bad = await runInProcess(['history', 'prune', '--before', 'soon'], { home, env });
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'rep: invalid --before "soon": expected a duration or a date']);
    // Two lines (a retention file read with "$(cat …)") were read as no time back: every point went.
    const twoLines = await runInProcess(['history', 'prune', '--before', '2y\nkeep two years'], { home, env });
    expect([twoLines.code, twoLines.stderr.split('\n')[0]]).toEqual([2, 'rep: invalid --before "2y\\nkeep two years": expected a duration or a date']);
    const missing = await runInProcess(['history', 'prune'], { home, env });
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([2, 'rep: rep history prune needs --before']);
    const json = await runInProcess(['history', 'prune', '--before', '1y', '--format', 'json'], { home, env });
    expect([json.code, json.stderr.split('\n')[0]]).toEqual([2, 'rep: --format does not apply to rep history prune: it prints no data to format']);
    const kept = await runInProcess(['history', 'Blue Bottle', '--format', 'json'], { home, env });
    expect(JSON.parse(kept.stdout)).toHaveLength(3);
  });

  it('rep status shows the history: points, size and oldest point, in every format', async () => {
    const { home, env } = await homeWithHistory();
    const oldest = new Date(Date.now() - 400 * DAY).toISOString();
    const json = await runInProcess(['status', '--format', 'json'], { home, env: { ...env, REP_API_KEY: 'k-status-0001' } });
    const view = JSON.parse(json.stdout) as { history: { dir: string; points: number; bytes: number; oldest: string } };
    expect(view.history).toMatchObject({ dir: join(home.dir, 'state', 'rep', 'history'), points: 4 });
    expect(view.history.oldest.slice(0, 10)).toBe(oldest.slice(0, 10));
    expect(view.history.bytes).toBeGreaterThan(0);
    const table = await runInProcess(['status', '--format', 'table'], { home, env: { ...env, REP_API_KEY: 'k-status-0001' } });
    expect(table.stdout).toMatch(new RegExp(`^History +.+history, 4 points, [\\d.]+ (B|KB), oldest ${oldest.slice(0, 10)}$`, 'm'));
    const csv = await runInProcess(['status', '--format', 'csv'], { home, env: { ...env, REP_API_KEY: 'k-status-0001' } });
    expect(csv.stdout.split('\n')[0]).toContain('history.dir,history.points,history.bytes,history.oldest');
    const markdown = await runInProcess(['status', '--format', 'markdown'], { home, env: { ...env, REP_API_KEY: 'k-status-0001' } });
    expect(markdown.stdout).toMatch(/\| History +\| .+4 points/);
    const sandbox = await runInProcess(['--sandbox', 'status', '--format', 'json'], { home });
    // The sandbox's own history, not the real one.
    expect((JSON.parse(sandbox.stdout) as { history: unknown }).history).toEqual({
      dir: join(home.dir, 'state', 'rep', 'sandbox', 'history'),
      points: 0,
      bytes: 0,
      oldest: null,
    });
  });
});

describe('rep history import', () => {
  it('refuses a source that is not there, or a folder that is no history folder, saying which (exit 2)', async () => {
    const { home, env } = await homeWithHistory();
    const folder = join(home.dir, 'notes');
    mkdirSync(folder);
    const missing = await runInProcess(['history', 'import', join(home.dir, 'nothing')], { home, env });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      `rep: no history at ${join(home.dir, 'nothing')}\nhint: give the history.jsonl or history folder to import\n`,
    ]);
    const notHistory = await runInProcess(['history', 'import', folder], { home, env });
    expect([notHistory.code, notHistory.stderr]).toEqual([
      2,
      `rep: ${folder} is no history folder: it has no series folder\nhint: give the history.jsonl or history folder to import\n`,
    ]);
  });
});
