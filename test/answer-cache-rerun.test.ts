// A batch run again within --max-age sends nothing: every answer of the running batch is kept, under
// the default bound and past REP_CACHE_MAX_BYTES too. (The cache once kept 5,000 answers by write
// order, so a 6,000-name batch sent everything twice: cache-limits.unit.test.ts shows the default
// bound holds 100,000, and `npm run bench` re-runs 10,000 names against a counting server.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditBody } from './helpers/companies.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';

const { rep, track, home } = useRep();
const names = (count: number) => Array.from({ length: count }, (_, i) => `Company ${i + 1}`);

describe('a batch run again within --max-age', () => {
  it('sends no request the second time, and every answer comes from the cache', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    const input = names(1500);
    const file = join(home().dir, 'names.txt');
    writeFileSync(file, `${input.join('\n')}\n`);
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_cache_0003', REP_MAX_AGE: '1h' } };
    const first = await rep(['--format', 'ndjson', '--quiet', 'audit', '--file', file], env);
    expect(first.code).toBe(0);
    expect(api.requests.length).toBe(1500);
    const second = await rep(['--format', 'ndjson', 'audit', '--file', file], env);
    expect(second.code).toBe(0);
    expect(api.requests.length).toBe(1500);
    expect(second.stderr.split('\n')[0]).toBe('1500 names: 1500 audited (1500 from the cache)');
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
