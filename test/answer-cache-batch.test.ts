// Batches and the answer cache: each answer is kept as it arrives, so a rerun sends only the names not
// yet answered; before a batch bigger than the hour's quota, rep says so once, before any request.
// A batch bigger than the cache, run again: answer-cache-rerun.test.ts (its own file, for its own worker).
import { describe, expect, it } from 'vitest';
import { auditBody } from './helpers/companies.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';

const { rep, track } = useRep();
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
    const records = second.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
    expect(records).toEqual(input.map((name) => ({ query: name, result: auditBody(name) })));
    expect(second.stderr.split('\n')[0]).toBe('40 names: 40 audited (30 from the cache)');
  });
});

describe('a batch that hits the rate limit', () => {
  it('still answers the names it has in the cache after the limit, sending nothing more', async () => {
    let answered = 0;
    const api = track(await startFaultServer()).always('/api/audit', (request) => {
      if (answered >= 10) return { status: 429, headers: { 'retry-after': '600' }, body: {} };
      answered += 1;
      return { body: auditBody(request.q ?? '') };
    });
    const input = names(40);
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_cache_0002' } };
    expect((await rep(['--format', 'ndjson', 'audit', ...input.slice(30)], env)).code).toBe(0);
    const sent = api.requests.length;
    const result = await rep(['--format', 'ndjson', 'audit', '--concurrency', '1', ...input], env);
    expect(result.code).toBe(5);
    expect(api.requests.length).toBe(sent + 1); // the one 429; the cached names cost nothing
    expect(result.stderr.split('\n')[0]).toBe('40 names: 10 audited (10 from the cache), 30 rate limited');
    const records = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { query: string; result?: unknown });
    expect(records.map((record) => record.query)).toEqual(input);
    expect(records.slice(30)).toEqual(input.slice(30).map((name) => ({ query: name, result: auditBody(name) })));
  });
});

describe('the plan before a big batch', () => {
  it('a 150-name batch on a fresh home says it needs 150 requests and 100 are left, before its first request', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    let requestsWhenPlanned: number | undefined;
    const result = await rep(['--format', 'ndjson', 'audit', ...names(150), ...names(10)], {
      env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_plan_0001' },
      onStderr: (chunk) => {
        if (chunk.includes('this batch needs')) requestsWhenPlanned ??= api.requests.length;
      },
    });
    expect(result.code).toBe(0);
    const [plan] = result.stderr.split('\n');
    expect(plan).toMatch(
      /^rep: this batch needs 150 requests; 100 are left this hour \(free tier: 100 an hour\); with --wait it could finish around \d{1,2}:\d\d/,
    );
    expect(result.stderr.match(/this batch needs/g)).toHaveLength(1);
    expect(requestsWhenPlanned).toBe(0);
    expect(api.count()).toBe(150);
  });

  it("tells the CLI a long run starts before the plan reads ahead (V8's heap is kept small for the read-ahead too)", async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    let planned = false;
    let plannedWhenTold: boolean | undefined;
    const result = await rep(['--format', 'ndjson', 'audit', ...names(150)], {
      env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_plan_0004' },
      onStderr: (chunk) => {
        if (chunk.includes('this batch needs')) planned = true;
      },
      longRun: () => void (plannedWhenTold ??= planned),
    });
    expect(result.code).toBe(0);
    expect(planned).toBe(true);
    expect(plannedWhenTold).toBe(false);
  });

  it('counts the names the cache lacks over an input of many lookup chunks, each distinct name once', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_plan_0003' } };
    expect((await rep(['--quiet', '--format', 'ndjson', 'audit', '--concurrency', '8', ...names(1100)], env)).code).toBe(0);
    const result = await rep(['--format', 'ndjson', 'audit', '--concurrency', '8', ...names(1150), ...names(1150).reverse()], env);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toMatch(/^rep: this batch needs 50 requests; 0 are left this hour/);
    expect(api.count()).toBe(1150);
  });

  it('says nothing when the batch fits, or when its names are in the cache', async () => {
    const api = track(await startFaultServer()).always('/api/audit', (request) => ({ body: auditBody(request.q ?? '') }));
    const env = { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_batch_plan_0002' } };
    const small = await rep(['--format', 'ndjson', 'audit', ...names(60)], env);
    expect(small.stderr).not.toMatch(/this batch needs/);
    const again = await rep(['--format', 'ndjson', 'audit', ...names(100)], env); // 60 cached, 40 new of 40 left
    expect(again.stderr).not.toMatch(/this batch needs/);
    expect(api.count()).toBe(100);
  });
});
