// A reset further away than a day is told as the server said it, in days and on its date; the wait
// stays capped by --max-wait.
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';

const session = useRep({ env: () => ({ REP_API_KEY: 'test-key' }) });
const TEN_YEARS_S = 10 * 365 * 24 * 60 * 60;

describe('a far-away reset', () => {
  it('a Retry-After of ten years says 3650 days and the date, not "24 h"', async () => {
    const server = await session.server();
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': String(TEN_YEARS_S) }, body: {} });
    const result = await session.rep(['pulse'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(result.code).toBe(5);
    const year = new Date(Date.now() + TEN_YEARS_S * 1000).getFullYear();
    expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^rep: rate limit reached: .*; resets in 3650 days \\(on ${year}-\\d\\d-\\d\\d\\)$`));
    expect(result.stdout).toBe('');
  });

  it('--wait does not wait for it: it is further away than --max-wait allows', async () => {
    const server = await session.server();
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': String(TEN_YEARS_S) }, body: {} });
    const result = await session.rep(['--wait', '--max-wait', '500h', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/resets in 3650 days .*\nhint: the reset is further away than --max-wait allows/);
    expect(server.count('/api/pulse')).toBe(1);
  });
});
