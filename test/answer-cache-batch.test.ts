// Batches and the answer cache: each answer is kept as it arrives, so a rerun sends only the names not
// yet answered; before a batch bigger than the hour's quota, rep says so once, before any request.
import { describe, expect, it } from 'vitest';
import { auditBody } from './helpers/batch-server.js';
import { closeAfterEach, useTempHome } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';

const { rep } = useTempHome();
const track = closeAfterEach();
const names = (count: number) => Array.from({ length: count }, (_, i) => `Company ${i + 1}`);

describe('a batch cut off by the rate limit, run again', () => {
  it('re-sends none of the names already answered and prints every record in input order', async () => {
    let answered = 0;
    let limited = true;
    const api = track(await startFaultServer()).always('/api/audit', (request) => {
      if (limited && answered >= 30) return { status: 429, headers: { 'retry-after': '600' }, body: {} };
      answered += 1;
      return { body: auditBody(request.q ?? '') };
    });
    const input = names(40);
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_cache_0001' } };
    const first = await rep(['--format', 'ndjson', 'audit', '--concurrency', '1', ...input], env);
    expect(first.code).toBe(5);
    expect(first.stderr.split('\n')[0]).toBe('40 names: 30 audited, 10 rate limited');
    const sentBefore = api.requests.map((request) => request.q);
    limited = false;
    const second = await rep(['--format', 'ndjson', 'audit', '--concurrency', '1', ...input], env);
    expect(second.code).toBe(0);
    const resent = api.requests.slice(sentBefore.length).map((request) => request.q);
    expect(resent).toEqual(input.slice(30));
    const records = second.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    expect(records).toEqual(input.map((name) => ({ query: name, result: auditBody(name) })));
    expect(second.stderr.split('\n')[0]).toBe('40 names: 40 audited (30 from the cache)');
  });
});
