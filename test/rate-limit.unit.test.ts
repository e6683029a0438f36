// The rate-limit headers' patterns and bounds (src/api/rate-limit.ts), in tests that load the module
// afresh: its patterns and its furthest reset are made as it loads, and the mutation run ties them only
// to the tests that load it (test/rate-limit.test.ts has what the headers mean).
import { describe, expect, it, vi } from 'vitest';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const fresh = async () => {
  vi.resetModules();
  return await import('../src/api/rate-limit.js');
};

describe('Retry-After and reset values', () => {
  it('reads seconds as whole or decimal numbers of any length, spaces around them; nothing else is a number of seconds', async () => {
    const { parseRetryAfter, parseReset } = await fresh();
    expect(['7', '120', ' 12 ', '1.5', '10.25'].map((text) => parseRetryAfter(text, NOW))).toEqual([7, 120, 12, 1.5, 10.25].map((s) => NOW + s * 1000));
    expect(['x120', '120x', '1.', '.5', '1.5.2', '-5', '+5', '1e3', '1.x'].map((text) => parseRetryAfter(text, NOW))).toEqual(Array(9).fill(undefined));
    expect(['30', '2.5'].map((text) => parseReset(text, NOW))).toEqual([NOW + 30_000, NOW + 2_500]);
    expect(['30s', 'x30', '2.'].map((text) => parseReset(text, NOW))).toEqual([undefined, undefined, undefined]);
  });

  it('keeps a reset as far as a thousand years ahead, and no further', async () => {
    const { MAX_RESET_MS, parseRetryAfter } = await fresh();
    expect(MAX_RESET_MS).toBe(1000 * 365 * 86_400_000);
    expect(parseRetryAfter(String(1000 * 365 * 86_400 - 1), NOW)).toBe(NOW + MAX_RESET_MS - 1000);
    expect(parseRetryAfter('9'.repeat(20), NOW)).toBe(NOW + MAX_RESET_MS);
  });
});

describe('which headers are rate-limit headers', () => {
  it('finds each convention alone in a plain header object, its name in any case', async () => {
    const { parseRateLimitHeaders } = await fresh();
    expect(parseRateLimitHeaders({ 'ratelimit-limit': '100' }, NOW)).toEqual({ limit: 100 });
    expect(parseRateLimitHeaders({ 'X-RateLimit-Remaining': '4' }, NOW)).toEqual({ remaining: 4 });
    expect(parseRateLimitHeaders({ RateLimit: 'limit=60, remaining=2' }, NOW)).toEqual({ limit: 60, remaining: 2 });
    expect(parseRateLimitHeaders({ 'retry-after': '30' }, NOW)).toEqual({ resetAt: NOW + 30_000 });
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '100;w=3600' }, NOW)).toEqual({ limit: 100, windowSeconds: 3600 });
  });

  it('reads a header given several times as one list, joined with commas', async () => {
    const { parseRateLimitHeaders } = await fresh();
    expect(parseRateLimitHeaders({ ratelimit: ['limit=100', 'remaining=5'] }, NOW)).toEqual({ limit: 100, remaining: 5 });
  });
});
