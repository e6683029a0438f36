// A batch bigger than the cache once was, run again within --max-age, sends nothing: every answer of
// the running batch is kept (6,000 names; past REP_CACHE_MAX_BYTES too). Apart from
// answer-cache-batch.test.ts so the suite's longest in-process test runs on a worker of its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditBody } from './helpers/companies.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';

const { rep, track, home } = useRep();
const names = (count: number) => Array.from({ length: count }, (_, i) => `Company ${i + 1}`);

describe('a batch bigger than the old cache, run again within --max-age', () => {
  // 6,000 names: past the 5,000 answers the cache once kept, which evicted each answer before its re-run.
  it('sends no request the second time, and every answer comes from the cache', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    const input = names(6000);
    const file = join(home().dir, 'names.txt');
    writeFileSync(file, `${input.join('\n')}\n`);
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_cache_0003', REP_MAX_AGE: '1h' } };
    const first = await rep(['--format', 'ndjson', '--quiet', 'audit', '--file', file], env);
    expect(first.code).toBe(0);
    expect(api.requests.length).toBe(6000);
    const second = await rep(['--format', 'ndjson', 'audit', '--file', file], env);
    expect(second.code).toBe(0);
    expect(api.requests.length).toBe(6000);
    expect(second.stderr.split('\n')[0]).toBe('6000 names: 6000 audited (6000 from the cache)');
    expect(second.stdout).toBe(first.stdout);
  }, 120_000);

  it('keeps what the running batch stored even past REP_CACHE_MAX_BYTES, so its re-run sends nothing', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    const input = names(300);
    // 300 answers of a disk block each against a bound of 100 blocks: each run spares its own.
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_cache_0004', REP_CACHE_MAX_BYTES: '400KB' } };
    expect((await rep(['--format', 'ndjson', '--quiet', 'audit', ...input], env)).code).toBe(0);
    expect(api.requests.length).toBe(300);
    const second = await rep(['--format', 'ndjson', 'audit', ...input], env);
    expect(second.stderr.split('\n')[0]).toBe('300 names: 300 audited (300 from the cache)');
    expect(api.requests.length).toBe(300);
  });
});
