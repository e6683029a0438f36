// The answer cache end to end: the built rep against a request-counting strict server in a temp home.
// A repeated question is answered from the cache with the same stdout; what must fetch, fetches.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

const { home, rep, track } = useRep();
const KEY = 'rk_test_cache_0123456789abcdef';
const BODIES = {
  audit: { name: 'Blue Bottle Coffee', score: 4.4, sources: [] },
  search: { companies: [{ name: 'Blue Bottle Coffee' }], cities: [], categories: [] },
  pulse: { index: 57 },
};

async function server(headers: Record<string, string> = {}): Promise<FaultServer> {
  const started = track(await startFaultServer());
  for (const [endpoint, body] of Object.entries(BODIES))
    started.always(`/api/${endpoint}`, { headers: { 'content-type': 'application/json', ...headers }, body });
  return started;
}

const env = (api: FaultServer, extra: Record<string, string> = {}) => ({ env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: KEY, ...extra } });
const QUESTIONS = [['audit', 'Blue Bottle Coffee'], ['search', 'coffee'], ['pulse']];

describe('a repeated question is answered from the cache', () => {
  it.each(QUESTIONS)('rep %s twice sends one request, prints the same, and says it is cached', async (...args) => {
    const api = await server();
    const first = await rep([...args, '--format', 'json'], env(api));
    const second = await rep([...args, '--format', 'json'], env(api));
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(api.count()).toBe(1);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stderr).not.toMatch(/cached/);
    expect(second.stderr).toMatch(/^rep: cached answer from .+ \(--max-age 0 to refresh\)\n$/);
  });

  it('another format of the same question is from the cache too, and --quiet says nothing', async () => {
    const api = await server();
    await rep(['audit', 'Blue Bottle Coffee', '--format', 'json'], env(api));
    const csv = await rep(['--quiet', 'audit', 'Blue Bottle Coffee', '--format', 'csv'], env(api));
    expect(csv.code).toBe(0);
    expect(api.count()).toBe(1);
    expect(csv.stderr).toBe('');
  });

  it('--debug shows the miss, then the hit and its age', async () => {
    const api = await server();
    const first = await rep(['--debug', 'pulse'], env(api));
    const second = await rep(['--debug', 'pulse'], env(api));
    expect(first.stderr).toMatch(/debug: cache: miss for pulse/);
    expect(second.stderr).toMatch(/debug: cache: hit for pulse, \d+ s old/);
    expect(api.count()).toBe(1);
  });

  it('another key or another base URL sends its own request', async () => {
    const api = await server();
    const other = await server();
    await rep(['pulse'], env(api));
    await rep(['pulse'], env(api, { REP_API_KEY: `${KEY}X` }));
    await rep(['pulse'], env(other));
    expect(api.count()).toBe(2);
    expect(other.count()).toBe(1);
  });
});

describe('what must fetch, fetches', () => {
  it.each([
    ['--max-age 0', ['--max-age', '0'], {}],
    ['REP_MAX_AGE=0', [], { REP_MAX_AGE: '0' }],
    ['--no-cache', ['--no-cache'], {}],
  ] as const)('%s fetches every time', async (_name, flags, extra) => {
    const api = await server();
    await rep(['pulse'], env(api));
    const again = await rep([...flags, 'pulse'], env(api, extra));
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/cached/);
    expect(api.count()).toBe(2);
  });

  it('--max-age 0 stores the fresh answer; --no-cache stores nothing', async () => {
    const api = await server();
    await rep(['--no-cache', 'pulse'], env(api));
    expect(cacheFiles()).toEqual([]);
    await rep(['--max-age', '0', 'pulse'], env(api));
    await rep(['pulse'], env(api));
    expect(api.count()).toBe(2);
  });

  it('Cache-Control: no-store is fetched every time', async () => {
    const api = await server({ 'cache-control': 'no-store' });
    await rep(['pulse'], env(api));
    await rep(['pulse'], env(api));
    expect(api.count()).toBe(2);
    expect(cacheFiles()).toEqual([]);
  });

  it('an error answer is fetched every time', async () => {
    const api = track(await startFaultServer()).always('/api/audit', { status: 500, body: { error: 'boom' } });
    expect((await rep(['audit', 'x'], env(api))).code).not.toBe(0);
    expect((await rep(['audit', 'x'], env(api))).code).not.toBe(0);
    expect(api.count()).toBe(2);
    expect(cacheFiles()).toEqual([]);
  });

  it('--sandbox keeps its answers in a cache of its own, never the real one', async () => {
    expect((await rep(['--sandbox', 'pulse'])).code).toBe(0);
    const again = await rep(['--sandbox', 'pulse']);
    expect(again.stderr).toMatch(/^rep: cached answer from .+ \(--max-age 0 to refresh\)\n$/);
    const sandboxDir = join(home().env.XDG_CACHE_HOME as string, 'rep', 'sandbox');
    expect(cacheFiles().filter((path) => !path.startsWith(`${sandboxDir}${sep}`))).toEqual([]);
    // The answer in the sandbox's journal (one shard file), not in an entry file of its own.
    expect(cacheFiles().filter((path) => path.endsWith('.answer') || path.includes(`${sep}journal${sep}`))).toHaveLength(1);
  });
});

it('no cache file holds the key, and each is 0600', async () => {
  const api = await server();
  for (const args of QUESTIONS) await rep(args, env(api));
  const files = cacheFiles();
  // The three answers are three records of the journal, in one to three of its shards (by their hashes).
  expect(files.flatMap((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean))).toHaveLength(3);
  for (const file of files) {
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }
});

/** Every file under the cache directory. */
function cacheFiles(): string[] {
  const dir = join(home().env.XDG_CACHE_HOME as string, 'rep');
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

describe('rep status and rep cache clear', () => {
  it('status shows the cache place, answer count and size; cache clear empties it and the next ask fetches', async () => {
    const api = await server();
    for (const args of QUESTIONS) await rep(args, env(api));
    const dir = join(home().env.XDG_CACHE_HOME as string, 'rep');
    const status = JSON.parse((await rep(['status', '--json'], env(api))).stdout) as { cache: { dir: string; entries: number; bytes: number } };
    expect(status.cache).toMatchObject({ dir, entries: 3 });
    expect(status.cache.bytes).toBeGreaterThan(0);
    const table = await rep(['status', '--format', 'table'], env(api));
    expect(table.stdout).toMatch(/^Answer cache +.+, 3 cached answers, \d.* \(at most 512 MB\)$/m);
    const csv = await rep(['status', '--format', 'csv'], env(api));
    expect(csv.stdout.split('\n')[0]).toMatch(/cache\.dir,cache\.entries,cache\.bytes,cache\.max_bytes,history\.dir/);
    const cleared = await rep(['cache', 'clear'], env(api));
    expect(cleared).toMatchObject({ code: 0, stdout: '' });
    expect(cleared.stderr).toBe(`Removed 3 cached answers from ${dir}\n`);
    await rep(['pulse'], env(api));
    expect(api.count()).toBe(4);
  });
});
