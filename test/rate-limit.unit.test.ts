// What the rate-limit headers mean to a user: which limit binds, when it resets, and how the 429
// message words it (src/api/rate-limit.ts), and how long a retry waits (retryDelay in src/api/client.ts).
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../src/api/client.js';
import {
  describeReset,
  estimateReset,
  formatClock,
  formatRelative,
  hasRateLimitInfo,
  MAX_RESET_MS,
  parseRateLimitHeaders,
  parseReset,
  parseRetryAfter,
  rateLimitError,
  type LedgerFacts,
} from '../src/api/rate-limit.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The message for a limit of 10 in a window of `seconds`, the reset unknown. */
const perWindow = (seconds: number) => rateLimitError({ limit: 10, windowSeconds: seconds }, { fromServer: false }, NOW).message;

describe('the IETF RateLimit header: the policy with the fewest requests left binds', () => {
  const policies = '"burst";q=10;w=1, "hourly";q=100;w=3600, "daily";q=1000;w=86400';
  it.each([
    ['first', '"hourly";r=2;t=900, "burst";r=8;t=1, "daily";r=500;t=40000'],
    ['in the middle', '"burst";r=8;t=1, "hourly";r=2;t=900, "daily";r=500;t=40000'],
    ['last', '"daily";r=500;t=40000, "burst";r=8;t=1, "hourly";r=2;t=900'],
  ])('whether it is listed %s', (_, ratelimit) => {
    expect(parseRateLimitHeaders({ ratelimit, 'ratelimit-policy': policies }, NOW)).toEqual({
      limit: 100,
      remaining: 2,
      resetAt: NOW + 900_000,
      windowSeconds: 3600,
    });
  });

  it('a policy that states what is left beats one that does not', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"daily";t=40000, "hourly";r=3;t=900' }, NOW)).toEqual({ remaining: 3, resetAt: NOW + 900_000 });
  });

  it('of two with as many left, the first listed binds', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"a";r=3;t=10, "b";r=3;t=20' }, NOW)).toEqual({ remaining: 3, resetAt: NOW + 10_000 });
  });

  it('reads quoted policy names holding commas, semicolons and escaped quotes', () => {
    const headers = { ratelimit: '"per user, \\"free\\"; tier";r=4;t=60, "x";r=9', 'ratelimit-policy': '"x";q=50, "per user, \\"free\\"; tier";q=20;w=900' };
    expect(parseRateLimitHeaders(headers, NOW)).toEqual({ limit: 20, remaining: 4, resetAt: NOW + 60_000, windowSeconds: 900 });
  });

  it('a comma or an escaped quote inside a quoted name does not split it', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"x,r=0";r=5' }, NOW)).toEqual({ remaining: 5 });
    expect(parseRateLimitHeaders({ ratelimit: '"say \\"hi, r=0\\"";r=2' }, NOW)).toEqual({ remaining: 2 });
  });

  it('gives a library user only the facts it found, no empty fields', () => {
    expect(Object.keys(parseRateLimitHeaders({ 'x-ratelimit-remaining': '3' }, NOW))).toEqual(['remaining']);
  });

  it('reads parameter values that are quoted, and names in any case', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"d";R="7";T="30"' }, NOW)).toEqual({ remaining: 7, resetAt: NOW + 30_000 });
  });

  it('takes the limit of the only policy, even under another name', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"default";r=1;t=5', 'ratelimit-policy': '"other";q=60;w=60' }, NOW)).toEqual({
      limit: 60,
      remaining: 1,
      resetAt: NOW + 5000,
      windowSeconds: 60,
    });
  });

  it('takes no limit from several policies when none is the binding one', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"default";r=1', 'ratelimit-policy': '"a";q=60;w=60, "b";q=1000;w=86400' }, NOW)).toEqual({ remaining: 1 });
  });

  it('ignores a window of 0 seconds and a bare policy that is no number', () => {
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '100;w=0' }, NOW)).toEqual({ limit: 100 });
    expect(parseRateLimitHeaders({ 'ratelimit-policy': '"named";w=60' }, NOW)).toEqual({ windowSeconds: 60 });
  });

  it('skips empty members', () => {
    expect(parseRateLimitHeaders({ ratelimit: ' , "d";r=7' }, NOW)).toEqual({ remaining: 7 });
  });

  it('reads the dictionary form whatever the order and case of its keys', () => {
    expect(parseRateLimitHeaders({ ratelimit: 'Reset=60, REMAINING=3, Limit=50' }, NOW)).toEqual({ limit: 50, remaining: 3, resetAt: NOW + 60_000 });
    expect(parseRateLimitHeaders({ ratelimit: 'remaining=3' }, NOW)).toEqual({ remaining: 3 });
  });

  it('prefers the IETF header over RateLimit-* and X-RateLimit-*, and RateLimit-* over X-RateLimit-*', () => {
    const all = {
      ratelimit: 'limit=10, remaining=1, reset=5',
      'ratelimit-limit': '20',
      'ratelimit-remaining': '2',
      'ratelimit-reset': '50',
      'x-ratelimit-limit': '30',
      'x-ratelimit-remaining': '3',
      'x-ratelimit-reset': '500',
    };
    expect(parseRateLimitHeaders(all, NOW)).toEqual({ limit: 10, remaining: 1, resetAt: NOW + 5000 });
    const { ratelimit: _, ...older } = all;
    expect(parseRateLimitHeaders(older, NOW)).toEqual({ limit: 20, remaining: 2, resetAt: NOW + 50_000 });
  });

  it('reads a header given several times as one list, and skips an absent one', () => {
    expect(parseRateLimitHeaders({ RateLimit: ['"a";r=5;t=10', '"b";r=1;t=99'], 'x-ratelimit-limit': undefined }, NOW)).toEqual({
      remaining: 1,
      resetAt: NOW + 99_000,
    });
  });
});

describe('counts and reset times that are not believed', () => {
  it('a count too large to be exact, or with a sign or a fraction, is no count', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '99999999999999999999' }, NOW)).toEqual({});
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '+5', 'x-ratelimit-limit': '2.5' }, NOW)).toEqual({});
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': ' 5 ' }, NOW)).toEqual({ remaining: 5 });
  });

  it('a reset text that Date.parse takes but that names no date is unknown', () => {
    expect(parseReset('1 2 2030', NOW)).toBeUndefined(); // no word in it
    expect(parseReset('Jun 1 30', NOW)).toBeUndefined(); // no four-digit year
    expect(parseReset('Sun, 01 Jun 2025 12:00:30 GMT', NOW)).toBe(NOW + 30_000);
  });

  it('a reset at this very moment or before is unknown; a far one is kept as said, up to MAX_RESET_MS', () => {
    expect(parseReset(String(NOW), NOW)).toBeUndefined();
    expect(parseReset(String(NOW / 1000), NOW)).toBeUndefined();
    expect(parseReset(String(NOW + 2 * MAX_RESET_MS), NOW)).toBe(NOW + MAX_RESET_MS);
    expect(parseReset(String(NOW / 1000 + 2 * 86_400), NOW)).toBe(NOW + 2 * 86_400_000);
    expect(parseReset(String(2 * 86_400), NOW)).toBe(NOW + 2 * 86_400_000);
    expect(parseReset('9'.repeat(400), NOW)).toBeUndefined(); // no epoch at all
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(NOW + MAX_RESET_MS);
  });

  it('the smallest epoch values are read as epochs, not as seconds to wait', () => {
    // 1e12 is epoch ms (2001), 1e9 epoch seconds (2001): both long past, so unknown; below, a delta of 31 years.
    expect(parseReset('1000000000000', NOW)).toBeUndefined();
    expect(parseReset('1000000000', NOW)).toBeUndefined();
    expect(parseReset('999999999', NOW)).toBe(NOW + 999_999_999_000);
  });

  it('an empty or blank header says nothing', () => {
    expect(parseReset('  ', NOW)).toBeUndefined();
    expect(parseReset(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('  ', NOW)).toBeUndefined();
  });

  it('a Retry-After of exactly 60 s', () => {
    expect(parseRetryAfter('60', NOW)).toBe(NOW + 60_000);
  });
});

describe('hasRateLimitInfo', () => {
  it('is true when any one fact is known', () => {
    expect(hasRateLimitInfo({})).toBe(false);
    expect(hasRateLimitInfo({ windowSeconds: 60 })).toBe(false);
    expect(hasRateLimitInfo({ limit: 0 })).toBe(true);
    expect(hasRateLimitInfo({ remaining: 0 })).toBe(true);
    expect(hasRateLimitInfo({ resetAt: 0 })).toBe(true);
  });
});

describe('estimateReset: the server, then its earlier word, then the local count', () => {
  const counter = (last: number | undefined, oldest: number | undefined): LedgerFacts => ({
    ...(last === undefined ? {} : { last: { resetAt: last } }),
    ...(oldest === undefined ? {} : { oldestAt: oldest }),
  });

  it('takes the reset the answer gave', () => {
    expect(estimateReset({ resetAt: NOW + 5000 }, counter(NOW + 9000, NOW - MINUTE), NOW)).toEqual({ resetAt: NOW + 5000, fromServer: true });
  });

  it('else the reset an earlier answer gave, if it is still ahead', () => {
    expect(estimateReset({}, counter(NOW + 9000, NOW - MINUTE), NOW)).toEqual({ resetAt: NOW + 9000, fromServer: true });
    expect(estimateReset({}, counter(NOW, NOW - MINUTE), NOW)).toEqual({ resetAt: NOW - MINUTE + HOUR, fromServer: false });
  });

  it('else an hour after the oldest request of the last hour', () => {
    expect(estimateReset({}, counter(undefined, NOW - 50 * MINUTE), NOW)).toEqual({ resetAt: NOW + 10 * MINUTE, fromServer: false });
  });

  it('else nothing: no requests in the hour, or no count at all', () => {
    expect(estimateReset({}, counter(undefined, NOW - HOUR), NOW)).toEqual({ fromServer: false });
    expect(estimateReset({}, counter(undefined, undefined), NOW)).toEqual({ fromServer: false });
    expect(estimateReset({}, undefined, NOW)).toEqual({ fromServer: false });
  });
});

describe('the 429 message', () => {
  it('names the window in words', () => {
    expect(perWindow(86_400)).toBe('rate limit reached: 10 requests per day; the reset time is unknown');
    expect(perWindow(1)).toBe('rate limit reached: 10 requests per second; the reset time is unknown');
    expect(perWindow(60)).toBe('rate limit reached: 10 requests per minute; the reset time is unknown');
    expect(perWindow(3600)).toBe('rate limit reached: 10 requests per hour; the reset time is unknown');
    expect(rateLimitError({ limit: 10 }, { fromServer: false }, NOW).message).toBe('rate limit reached: 10 requests per hour; the reset time is unknown');
  });

  it('states any other window exactly: hours, minutes or seconds', () => {
    expect(perWindow(900)).toBe('rate limit reached: 10 requests per 15 min; the reset time is unknown');
    expect(perWindow(7200)).toBe('rate limit reached: 10 requests per 2 h; the reset time is unknown');
    expect(perWindow(90)).toBe('rate limit reached: 10 requests per 90 s; the reset time is unknown');
  });

  it('carries what it knows, and no reset or limit it does not', () => {
    const known = rateLimitError({ limit: 0 }, { resetAt: NOW + 5000, fromServer: true }, NOW);
    expect([known.resetAt, known.resetFromServer, known.limit]).toEqual([NOW + 5000, true, 0]);
    expect(known.message).toMatch(/^rate limit reached: 0 requests per hour; resets in 5 s \(at /);
    const unknown = rateLimitError({}, { fromServer: false }, NOW);
    expect([unknown.resetAt, unknown.resetFromServer, unknown.limit]).toEqual([undefined, false, undefined]);
    expect(unknown.hint).toBe('wait for the reset (the wait option does), or ask the service operator for a higher tier');
  });

  it('says "now" for a reset that has come', () => {
    expect(describeReset(NOW, NOW, false)).toBe('resets now');
    expect(describeReset(NOW, NOW, true)).toBe('resets about now');
  });
});

describe('how long a wait reads', () => {
  it.each([
    [0, '1 s'],
    [1_400, '1 s'],
    [1_600, '2 s'],
    [9_400, '9 s'],
    [9_500, '10 s'],
    [12_400, '10 s'],
    [12_600, '15 s'],
    [57_400, '55 s'],
    [57_500, '1 min'],
    [89_000, '1 min'],
    [91_000, '2 min'],
    [59 * MINUTE + 29_000, '59 min'],
    [59 * MINUTE + 30_000, '1 h'],
    [2 * HOUR, '2 h'],
    [90 * MINUTE, '1 h 30 min'],
    [3 * HOUR + 59 * MINUTE, '3 h 59 min'],
  ])('%i ms is %s', (ms, text) => {
    expect(formatRelative(ms)).toBe(text);
  });
});

describe('the clock time of a reset', () => {
  const at = new Date(2026, 10, 22, 17, 44, 10).getTime();
  const clock = (seconds: boolean) =>
    new Date(at).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
  it('has seconds only when the time is less than two minutes ahead', () => {
    expect(formatClock(at, at - 119_999)).toBe(clock(true));
    expect(formatClock(at, at - 120_000)).toBe(clock(false));
    expect(formatClock(at)).toBe(clock(false));
    expect(clock(true)).not.toBe(clock(false));
  });
});

describe('the wait before a retry', () => {
  it('grows from 300 ms, doubling, up to 8 s, of which a random share is waited', () => {
    const half = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((retry) => retryDelay(retry, undefined, half))).toEqual([150, 300, 600, 1200, 2400, 4000, 4000]);
    expect(retryDelay(0, undefined, half)).toBe(150);
    expect(retryDelay(1, undefined, () => 0.999)).toBe(299);
    expect(retryDelay(1, undefined, () => 0)).toBe(0);
  });

  it('waits as long as Retry-After asks, up to a minute', () => {
    expect(retryDelay(1, 60_000)).toBe(60_000);
    expect(retryDelay(1, 60_001)).toBeUndefined();
    expect(retryDelay(1, -500)).toBe(0);
  });
});
