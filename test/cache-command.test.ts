// `rep cache clear`, the cache line of `rep status`, and where --max-age / REP_MAX_AGE and
// REP_CACHE_DIR come from. In-process: the command's run(opts, deps) over a test IO.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheStatus, run as clearCache } from '../src/commands/cache.js';
import { describeCacheStats } from '../src/output/cache.js';
import { cacheDirFrom, DEFAULT_MAX_AGE_MS, maxAgeFrom } from '../src/config/cache-settings.js';
import { createDeps } from '../src/context.js';
import type { GlobalOptions } from '../src/deps.js';
import { ConfigError, describeError, UsageError } from '../src/errors.js';
import { testIO } from '../src/io.js';
import { parseDuration } from '../src/options.js';
import { openAnswerCache } from '../src/state/answer-cache.js';
import { testGlobals } from './helpers/globals.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-cache-command-'));
  dir = join(root, 'answers');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function depsFor(globals: Partial<GlobalOptions> = {}, env: NodeJS.ProcessEnv = { REP_CACHE_DIR: dir }) {
  const io = testIO();
  const all = testGlobals(globals);
  const { deps } = createDeps({ globals: all, io, env, signal: new AbortController().signal });
  return { deps, io };
}

async function storeAnswers(n: number): Promise<void> {
  const cache = openAnswerCache(dir);
  for (let i = 0; i < n; i++) {
    const outcome = await cache.put(
      { baseUrl: 'https://api.example.test/api', endpoint: 'audit', query: `name ${i}`, apiKey: 'k' },
      { status: 200, headers: {}, bodyText: `{"i":${i}}`, receivedAt: Date.now() },
    );
    expect(outcome).toEqual({ stored: true });
  }
}

describe('rep cache clear', () => {
  it('removes every cached answer and says how many, then that there are none', async () => {
    await storeAnswers(3);
    const first = depsFor();
    await clearCache({}, first.deps);
    expect(first.io.stderrText()).toBe(`Removed 3 cached answers from ${dir}\n`);
    expect(first.io.stdoutText()).toBe('');
    expect(readdirSync(dir)).toEqual([]);

    await storeAnswers(1);
    const second = depsFor();
    await clearCache({}, second.deps);
    expect(second.io.stderrText()).toBe(`Removed 1 cached answer from ${dir}\n`);
    const third = depsFor();
    await clearCache({}, third.deps);
    expect(third.io.stderrText()).toBe(`No cached answers in ${dir}\n`);
  });

  it('says nothing under --quiet, and still clears', async () => {
    await storeAnswers(2);
    const { deps, io } = depsFor({ quiet: true });
    await clearCache({}, deps);
    expect(io.stderrText()).toBe('');
    expect(openAnswerCache(dir).stats().entries).toBe(0);
  });

  it('refuses under --sandbox (which reads and writes no cache), touching nothing', async () => {
    await storeAnswers(1);
    const { deps } = depsFor({ sandbox: true });
    const error = await clearCache({}, deps).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toMatchObject({ exitCode: 2, message: '--sandbox does not clear the answer cache: it neither reads nor writes it' });
    expect(openAnswerCache(dir).stats().entries).toBe(1);
  });

  it('a cache directory that cannot be read: exit 1 naming it and why', async () => {
    writeFileSync(dir, 'a file where the cache directory should be');
    const { deps } = depsFor();
    const error = await clearCache({}, deps).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(describeError(error)).toEqual(
      expect.objectContaining({ exitCode: 1, message: `cannot clear the answer cache in ${dir}: not a directory`, hint: `check the permissions of ${dir}` }),
    );
  });
});

describe('the cache in rep status', () => {
  it('where it is, how many answers, their size', async () => {
    const { deps } = depsFor();
    expect(await cacheStatus(deps)).toEqual({ dir, entries: 0, bytes: 0 });
    expect(describeCacheStats({ dir, entries: 0, bytes: 0 })).toBe(`${dir}, 0 cached answers, 0 B`);
    await storeAnswers(3);
    const stats = await cacheStatus(deps);
    expect(stats).toMatchObject({ dir, entries: 3 });
    expect(stats?.bytes).toBeGreaterThan(3 * '{"i":0}'.length);
    expect(describeCacheStats({ dir, entries: 1, bytes: 1023 })).toBe(`${dir}, 1 cached answer, 1023 B`);
    expect(describeCacheStats({ dir, entries: 12, bytes: 48 * 1024 + 300 })).toBe(`${dir}, 12 cached answers, 48 KB`);
    expect(describeCacheStats({ dir, entries: 4999, bytes: 1.25 * 1024 * 1024 })).toBe(`${dir}, 4999 cached answers, 1.3 MB`);
  });

  it('an unreadable cache: a warning naming it, no crash', async () => {
    writeFileSync(dir, 'not a directory');
    const { deps, io } = depsFor();
    expect(await cacheStatus(deps)).toBeUndefined();
    expect(io.stderrText()).toBe(`rep: warning: cannot read the answer cache in ${dir} (not a directory)\n`);
  });
});

describe('--max-age, REP_MAX_AGE and REP_CACHE_DIR', () => {
  it('the flag wins over the environment, which wins over 15 minutes; 0 is accepted both ways', () => {
    expect(DEFAULT_MAX_AGE_MS).toBe(15 * 60 * 1000);
    expect(maxAgeFrom(undefined, {})).toBe(DEFAULT_MAX_AGE_MS);
    expect(maxAgeFrom(undefined, { REP_MAX_AGE: '  ' })).toBe(DEFAULT_MAX_AGE_MS);
    expect(maxAgeFrom(undefined, { REP_MAX_AGE: '90s' })).toBe(90_000);
    expect(maxAgeFrom(undefined, { REP_MAX_AGE: '1h' })).toBe(3_600_000);
    expect(maxAgeFrom(undefined, { REP_MAX_AGE: '0' })).toBe(0);
    expect(maxAgeFrom(parseDuration('0'), { REP_MAX_AGE: '1h' })).toBe(0);
    expect(maxAgeFrom(parseDuration('5m'), { REP_MAX_AGE: 'not even read' })).toBe(300_000);
  });

  it.each(['soon', '-5', '15 minutes', '1d'])('REP_MAX_AGE=%j is a usage error naming the variable', (value) => {
    let error: unknown;
    try {
      maxAgeFrom(undefined, { REP_MAX_AGE: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toEqual({
      exitCode: 2,
      message: `REP_MAX_AGE is not a duration (${JSON.stringify(value)}): expected a duration such as 90, 90s, 15m or 1h`,
      hint: 'set it like --max-age (0 always fetches), or unset it for the default of 15m',
      debug: expect.any(String),
    });
  });

  it('REP_CACHE_DIR wins over the platform cache dir; empty is unset', () => {
    expect(cacheDirFrom({ REP_CACHE_DIR: '/somewhere/rep-cache' }, { cacheDir: '/home/me/.cache/rep' })).toBe('/somewhere/rep-cache');
    expect(cacheDirFrom({ REP_CACHE_DIR: '' }, { cacheDir: '/home/me/.cache/rep' })).toBe('/home/me/.cache/rep');
    expect(cacheDirFrom({}, { cacheDir: '/home/me/.cache/rep' })).toBe('/home/me/.cache/rep');
  });
});
