// The sandbox teaches the whole tool: `--sandbox` keeps a history (and cache) of its own under the
// sandbox/ folder of the state and cache dirs, keyed by one identity whatever its port, and its data
// moves a little each UTC day, so history and gates show a real trend. The clock is injected (main's
// `now`): two days pass with no waiting.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testIO } from '../src/io.js';
import { main } from '../src/main.js';
import { findCompany, sandboxDataOn, SANDBOX_UPDATED_AT } from '../src/sandbox/data.js';
import { makeTempHome, type TempHome } from './helpers/cli.js';

const DAY = 86_400_000;
const NAME = 'Кофейня Ромашка';

async function repOn(home: TempHome, at: number, args: string[], env: Record<string, string> = {}) {
  const io = testIO();
  const code = await main(['node', 'rep', '--retries', '0', ...args], {
    io,
    env: { ...home.env, ...env },
    signal: new AbortController().signal,
    now: () => at,
  });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** Two days a week apart (noon UTC) over which the company's score fell, from the data set's own day on. */
function daysOfADrop(): [number, number] {
  const first = Date.parse(SANDBOX_UPDATED_AT) + DAY / 2;
  for (let day = 0; day < 120; day++) {
    const [a, b] = [first + day * DAY, first + (day + 7) * DAY];
    if (findCompany(sandboxDataOn(b), NAME)!.score <= findCompany(sandboxDataOn(a), NAME)!.score - 0.5) return [a, b];
  }
  throw new Error('no drop in 120 days: the drift does not move');
}

describe('--sandbox keeps a store of its own', () => {
  it('two audits on two days show a change; --fail-on-drop fires; history lists the points; nothing lands outside sandbox/', async () => {
    const home = makeTempHome();
    try {
      const [dayOne, dayTwo] = daysOfADrop();
      const [before, after] = [findCompany(sandboxDataOn(dayOne), NAME)!.score, findCompany(sandboxDataOn(dayTwo), NAME)!.score];
      // A real history file named by the environment is never the sandbox's.
      const env = { REP_HISTORY_FILE: join(home.dir, 'real-history') };

      const first = await repOn(home, dayOne, ['--sandbox', 'audit', NAME, '--format', 'json'], env);
      expect(first).toMatchObject({ code: 0 });
      expect(JSON.parse(first.stdout).score).toBe(before);

      const second = await repOn(home, dayTwo, ['--sandbox', 'audit', NAME, '--fail-on-drop', '0.3', '--format', 'table'], { ...env, NO_COLOR: '1' });
      expect(second.code).toBe(7);
      const drop = Math.round((before - after) * 10) / 10;
      expect(second.stdout).toContain(`▼ ${drop.toFixed(1)} since`);
      expect(second.stderr).toContain(`${NAME}: fell ${drop.toFixed(1)} (from ${before.toFixed(1)} to ${after.toFixed(1)}), more than 0.3`);

      const history = await repOn(home, dayTwo + 1000, ['--sandbox', 'history', NAME, '--format', 'json'], env);
      expect(history.code).toBe(0);
      const points = JSON.parse(history.stdout) as Array<{ score: number; at: string }>;
      expect(points.map((point) => point.score)).toEqual([before, after]);
      expect(points.map((point) => point.at)).toEqual([new Date(dayOne).toISOString(), new Date(dayTwo).toISOString()]);

      // Only the sandbox's folders: no config, no real history, no real state or cache.
      expect(readdirSync(join(home.dir, 'state', 'rep'))).toEqual(['sandbox']);
      const cacheDir = join(home.dir, 'cache', 'rep');
      if (existsSync(cacheDir)) expect(readdirSync(cacheDir)).toEqual(['sandbox']);
      expect(existsSync(home.configDir)).toBe(false);
      expect(existsSync(env.REP_HISTORY_FILE)).toBe(false);
    } finally {
      home.cleanup();
    }
  });

  it('its points are keyed by one identity, not the port it happened to listen on', async () => {
    const home = makeTempHome();
    try {
      const day = Date.parse(SANDBOX_UPDATED_AT) + DAY / 2;
      await repOn(home, day, ['--sandbox', 'audit', NAME]);
      await repOn(home, day + DAY, ['--sandbox', 'audit', NAME]);
      const history = await repOn(home, day + DAY, ['--sandbox', 'history', NAME, '--format', 'json']);
      const points = JSON.parse(history.stdout) as Array<{ base_url: string }>;
      expect(points.map((point) => point.base_url)).toEqual(['http://sandbox/api', 'http://sandbox/api']);
    } finally {
      home.cleanup();
    }
  });

  it('caches its answers like the service: a second audit within five minutes is cached, --max-age 0 asks again', async () => {
    const home = makeTempHome();
    try {
      const day = Date.parse(SANDBOX_UPDATED_AT) + DAY / 2;
      const first = await repOn(home, day, ['--sandbox', 'audit', NAME, '--format', 'json']);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      const again = await repOn(home, day + 60_000, ['--sandbox', 'audit', NAME, '--format', 'json']);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toBe('rep: cached answer from 1 min ago (--max-age 0 to refresh)\n');
      const fresh = await repOn(home, day + 60_000, ['--sandbox', 'audit', NAME, '--format', 'json', '--max-age', '0']);
      expect(fresh).toMatchObject({ code: 0, stderr: '' });
      // The server's max-age (five minutes) wins over rep's default of 15.
      const later = await repOn(home, day + 6 * 60_000, ['--sandbox', 'audit', NAME, '--format', 'json']);
      expect(later).toMatchObject({ code: 0, stderr: '' });
      const status = await repOn(home, day + 6 * 60_000, ['--sandbox', 'status', '--format', 'json']);
      const view = JSON.parse(status.stdout) as { cache: { dir: string; entries: number }; requests_last_hour: number };
      expect(view.cache).toMatchObject({ dir: join(home.dir, 'cache', 'rep', 'sandbox'), entries: 1 });
      expect(view.requests_last_hour).toBe(3); // the sandbox's own count: the cached answer sent nothing
    } finally {
      home.cleanup();
    }
  });

  it('records its market and reports from its own history', async () => {
    const home = makeTempHome();
    try {
      const day = Date.parse(SANDBOX_UPDATED_AT) + DAY / 2;
      for (const at of [day, day + DAY]) {
        expect((await repOn(home, at, ['--sandbox', 'pulse', '--format', 'json'])).code).toBe(0);
        expect((await repOn(home, at, ['--sandbox', 'audit', NAME, '--format', 'json'])).code).toBe(0);
      }
      const market = await repOn(home, day + DAY, ['--sandbox', 'history', '--market', '--format', 'json']);
      expect(market.code).toBe(0);
      const points = JSON.parse(market.stdout) as Array<{ base_url: string; score: number }>;
      expect(points.map((point) => point.base_url)).toEqual(['http://sandbox/api', 'http://sandbox/api']);
      const report = await repOn(home, day + DAY, ['--sandbox', 'report', '--format', 'markdown']);
      expect(report.code).toBe(0);
      expect(report.stdout).toContain('1 company at sandbox,');
      expect(report.stdout).toContain(`| ${NAME} |`);
      expect(report.stdout).toMatch(/\nMarket: \S+ [\d.]+\n$/);
    } finally {
      home.cleanup();
    }
  });

  it('with no point yet, history exits 3 and says how to record one in the sandbox', async () => {
    const home = makeTempHome();
    try {
      const result = await repOn(home, Date.now(), ['--sandbox', 'history', NAME]);
      expect(result).toMatchObject({ code: 3, stdout: '' });
      expect(result.stderr).toBe(`rep: no history for ${NAME}\nhint: run \`rep --sandbox audit '${NAME}'\` to record a point\n`);
    } finally {
      home.cleanup();
    }
  });
});

describe('the sandbox data moves by date', () => {
  it('is the generated data on its own day, and a little different the next', () => {
    const day = Date.parse(SANDBOX_UPDATED_AT);
    const [one, two] = [sandboxDataOn(day), sandboxDataOn(day + DAY)];
    expect(one.updatedAt).toBe(SANDBOX_UPDATED_AT);
    expect(two.updatedAt).toBe('2026-11-02T00:00:00Z');
    const moved = one.companies.filter((company, index) => company.score !== two.companies[index]!.score);
    expect(moved.length).toBeGreaterThan(one.companies.length / 2);
    const steps = one.companies.map((company, index) => Math.abs(company.score - two.companies[index]!.score));
    expect(Math.max(...steps)).toBeLessThanOrEqual(2);
    // Deterministic: the same day gives the same scores.
    expect(sandboxDataOn(day + DAY + 3600_000).companies.map((c) => c.score)).toEqual(two.companies.map((c) => c.score));
  });
});
