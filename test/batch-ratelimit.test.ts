// A rate limit in the middle of a batch: stop sending, keep every answer already fetched, give each
// name left unaudited an error record, exit 5. Under --wait the batch pauses and goes on instead.
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { auditBody, serveCompanyAudits, type CompanyAuditOptions, type CompanyAudits } from './helpers/companies.js';

const fixture = useRep();
let audits: CompanyAudits;

async function batch(options: CompanyAuditOptions, args: string[]) {
  const server = await fixture.server();
  audits = serveCompanyAudits(server, options);
  const result = await fixture.rep(['--format', 'ndjson', 'audit', ...args], { env: { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl.href } });
  return {
    ...result,
    records: result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `Company ${i + 1}`);
const NOT_AUDITED = { exit: 5, message: 'not audited: rate limit reached' };

describe('rep audit: a batch meets the rate limit', () => {
  it('keeps the answers fetched, marks the rest not audited, stops sending, exits 5', async () => {
    const input = names(8);
    const result = await batch({ companies: input, limit: 3 }, ['--concurrency', '1', ...input]);
    expect(result.code).toBe(5);
    expect(result.records).toEqual([
      ...input.slice(0, 3).map((name) => ({ query: name, result: auditBody(name) })),
      ...input.slice(3).map((name) => ({ query: name, error: NOT_AUDITED })),
    ]);
    // The fourth request met the limit; nothing was sent after it.
    expect(audits.received()).toEqual(input.slice(0, 4));
    const [summary, error, hint, ...rest] = result.stderr.split('\n');
    expect(summary).toBe('8 names: 3 audited, 5 rate limited');
    expect(error).toMatch(/^rep: rate limit reached: 5 of 8 names not audited; 3 requests per hour; resets in 10 min \(at \d{1,2}:\d\d(:\d\d)?(\s[AP]M)?\)$/);
    expect(hint).toMatch(/^hint: .*--wait/);
    expect(rest).toEqual(['']);
  });

  it('with requests in flight: records stay in input order, duplicates of answered names are still answered', async () => {
    const input = [...names(20), 'Company 1'];
    const result = await batch({ companies: input, limit: 5, maxDelayMs: 30 }, ['--concurrency', '4', ...input]);
    expect(result.code).toBe(5);
    expect(result.records.map((record) => record.query)).toEqual(input);
    const answered = result.records.filter((record) => 'result' in record);
    expect(answered).toHaveLength(5 + 1);
    for (const record of answered) expect(record.result).toEqual(auditBody(record.query as string));
    for (const record of result.records.filter((r) => 'error' in r)) expect(record.error).toEqual(NOT_AUDITED);
    expect(result.records.at(-1)).toEqual({ query: 'Company 1', result: auditBody('Company 1') });
    // At most the requests already in flight when the first 429 came back went out after it.
    expect(audits.received().length).toBeLessThanOrEqual(5 + 4);
    expect(result.stderr).toMatch(/^21 names: 6 audited, 15 rate limited\nrep: rate limit reached: 15 of 21 names not audited; /);
  });

  it('--wait: the batch pauses at the limit and goes on after the reset', async () => {
    const input = names(4);
    const result = await batch({ companies: input, limit: 2, resetSeconds: 1 }, ['--concurrency', '1', ...input, '--wait']);
    expect(result.code).toBe(0);
    expect(result.records).toEqual(input.map((name) => ({ query: name, result: auditBody(name) })));
    expect(result.stderr).toContain('4 names: 4 audited\n');
    // Off a terminal the pause is told in one line, not left to look like a hang.
    expect(result.stderr).toMatch(/^rate limited; waiting \d+ s \(until \d[^)]*\), then retrying$/m);
  });
});
