// What the rate-limit headers mean to a user: which limit binds, when it resets, and how the 429
// message words it (src/api/rate-limit.ts), and how long a retry waits (retryDelay in src/api/retry.ts).
// How waits and clock times read is time.ts's: test/time.test.ts.
import { describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, retryDelay } from '../src/api/retry.js';
import { RateLimitError } from '../src/errors.js';
import {
  describeReset,
  estimateReset,
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

  it('finds nothing in an answer without any of the headers, and each header alone, its name in any case', () => {
    expect(parseRateLimitHeaders({ 'content-type': 'application/json', 'x-ratelimited': '5', 'x-rate-limit-remaining': '5' }, NOW)).toEqual({});
    expect(parseRateLimitHeaders({ 'Content-Type': 'application/json', 'X-RateLimit-Remaining': '5' }, NOW)).toEqual({ remaining: 5 });
    expect(parseRateLimitHeaders({ 'RateLimit-Limit': '60' }, NOW)).toEqual({ limit: 60 });
    expect(parseRateLimitHeaders({ 'Retry-After': '30' }, NOW)).toEqual({ resetAt: NOW + 30_000 });
    expect(parseRateLimitHeaders({ RateLimit: '"d";r=2;t=9' }, NOW)).toEqual({ remaining: 2, resetAt: NOW + 9_000 });
    expect(parseRateLimitHeaders({ 'x-ratelimit-reset': '60', other: undefined }, NOW)).toEqual({ resetAt: NOW + 60_000 });
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

describe('parseRetryAfter', () => {
  it('reads delta seconds', () => {
    expect(parseRetryAfter('30', NOW)).toBe(NOW + 30_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(NOW);
    expect(parseRetryAfter('1.5', NOW)).toBe(NOW + 1500);
  });
  it('reads an HTTP date', () => {
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:05:00 GMT', NOW)).toBe(NOW + 5 * 60_000);
  });
  it('rejects past dates, negatives and garbage', () => {
    expect(parseRetryAfter('Sun, 01 Jun 2025 11:59:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('12abc', NOW)).toBeUndefined();
    expect(parseRetryAfter('1e3', NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
  it('clamps huge values', () => {
    expect(parseRetryAfter('99999999999999999999', NOW)).toBe(NOW + MAX_RESET_MS);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', NOW)).toBe(Date.UTC(2100, 0, 1)); // far, but as said
  });
});

describe('parseReset tells epoch ms, epoch seconds and deltas apart by magnitude', () => {
  it('epoch seconds', () => expect(parseReset(String(NOW / 1000 + 840), NOW)).toBe(NOW + 840_000));
  it('epoch milliseconds', () => expect(parseReset(String(NOW + 840_000), NOW)).toBe(NOW + 840_000));
  it('delta seconds', () => expect(parseReset('840', NOW)).toBe(NOW + 840_000));
  it('past epochs are unknown', () => {
    expect(parseReset(String(NOW / 1000 - 10), NOW)).toBeUndefined();
    expect(parseReset(String(NOW - 10), NOW)).toBeUndefined();
  });
  it('garbage is unknown', () => {
    expect(parseReset('tomorrow', NOW)).toBeUndefined();
    expect(parseReset('-3', NOW)).toBeUndefined();
  });
});

describe('parseRateLimitHeaders', () => {
  it('reads X-RateLimit-* with any casing', () => {
    const info = parseRateLimitHeaders({ 'X-RateLimit-Limit': '100', 'x-ratelimit-REMAINING': '7', 'X-RATELIMIT-RESET': String(NOW / 1000 + 60) }, NOW);
    expect(info).toEqual({ limit: 100, remaining: 7, resetAt: NOW + 60_000 });
  });
  it('reads RateLimit-* (delta seconds)', () => {
    expect(parseRateLimitHeaders({ 'ratelimit-limit': '50', 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }, NOW)).toEqual({
      limit: 50,
      remaining: 0,
      resetAt: NOW + 30_000,
    });
  });
  it('reads the IETF structured form with its policy', () => {
    const info = parseRateLimitHeaders({ RateLimit: '"default";r=0;t=30', 'RateLimit-Policy': '"default";q=100;w=3600' }, NOW);
    expect(info).toEqual({ limit: 100, remaining: 0, resetAt: NOW + 30_000, windowSeconds: 3600 });
  });
  it('picks the binding policy among several', () => {
    const info = parseRateLimitHeaders(
      { ratelimit: '"burst";r=8;t=1, "hourly";r=2;t=900', 'ratelimit-policy': '"burst";q=10;w=1, "hourly";q=100;w=3600' },
      NOW,
    );
    expect(info).toEqual({ limit: 100, remaining: 2, resetAt: NOW + 900_000, windowSeconds: 3600 });
  });
  it('reads the older dictionary form and a bare-number policy', () => {
    expect(parseRateLimitHeaders({ ratelimit: 'limit=100, remaining=0, reset=30', 'ratelimit-policy': '100;w=3600' }, NOW)).toEqual({
      limit: 100,
      remaining: 0,
      resetAt: NOW + 30_000,
      windowSeconds: 3600,
    });
  });
  it('prefers Retry-After for the reset', () => {
    expect(parseRateLimitHeaders({ 'retry-after': '5', 'x-ratelimit-reset': '900' }, NOW).resetAt).toBe(NOW + 5000);
  });
  it('falls back when Retry-After is garbage', () => {
    expect(parseRateLimitHeaders({ 'retry-after': 'later', 'x-ratelimit-reset': '900' }, NOW).resetAt).toBe(NOW + 900_000);
  });
  it('ignores garbage counts and reads Headers objects', () => {
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1' }, NOW)).toEqual({});
    expect(parseRateLimitHeaders(new Headers({ 'X-RateLimit-Remaining': '3' }), NOW)).toEqual({ remaining: 3 });
  });
  it('gives nothing for no headers', () => {
    expect(parseRateLimitHeaders({}, NOW)).toEqual({});
  });
});

describe('rate-limit wording', () => {
  it('names the limit, the reset and the way on', () => {
    const error = rateLimitError({ limit: 100, windowSeconds: 3600 }, { resetAt: NOW + 14 * 60_000, fromServer: true }, NOW);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(5);
    expect(error.message).toMatch(/^rate limit reached: 100 requests per hour; resets in 14 min \(at \d{1,2}:\d\d(:\d\d)?(\s[AP]M)?\)$/);
    expect(error.hint).toBe('wait for the reset (the wait option does), or ask the service operator for a higher tier');
    expect(error.resetAt).toBe(NOW + 14 * 60_000);
    expect(error.limit).toBe(100);
  });
  it('falls back to the free tier and says "about" for an estimate', () => {
    const error = rateLimitError({}, { resetAt: NOW + 90_000, fromServer: false }, NOW);
    expect(error.message).toMatch(
      /^rate limit reached: the free tier's 100 requests per hour; resets in about 2 min \(at about \d{1,2}:\d\d(:\d\d)?(\s[AP]M)?\)$/,
    );
    expect(error.resetFromServer).toBe(false);
  });
  it('says when the reset is unknown', () => {
    expect(rateLimitError({ limit: 10, windowSeconds: 60 }, { fromServer: false }, NOW).message).toBe(
      'rate limit reached: 10 requests per minute; the reset time is unknown',
    );
    // A window is stated exactly, never rounded like a time to wait.
    expect(rateLimitError({ limit: 5, windowSeconds: 12 }, { fromServer: false }, NOW).message).toBe(
      'rate limit reached: 5 requests per 12 s; the reset time is unknown',
    );
    expect(rateLimitError({ limit: 5, windowSeconds: 5400 }, { fromServer: false }, NOW).message).toBe(
      'rate limit reached: 5 requests per 90 min; the reset time is unknown',
    );
  });
  it('says now for a reset just past', () => {
    expect(describeReset(NOW - 1, NOW, false)).toBe('resets now');
  });
});

describe('retryDelay', () => {
  it('uses full jitter under an exponential ceiling', () => {
    expect(retryDelay(1, undefined, () => 0.999)).toBeLessThan(300);
    expect(retryDelay(3, undefined, () => 0.5)).toBe(600);
    expect(retryDelay(20, undefined, () => 0.999)).toBeLessThan(BACKOFF_CAP_MS);
  });
  it('honours Retry-After, but not one too far away', () => {
    expect(retryDelay(1, 2000)).toBe(2000);
    expect(retryDelay(1, 3_600_000)).toBeUndefined();
  });
});

describe('reset clock', () => {
  it('shows seconds only when the reset is less than two minutes away', () => {
    const now = new Date(2026, 10, 22, 17, 44, 10).getTime();
    // The locale's own form (17:44:15, or 5:44:15 PM), as `rep status` shows it too.
    const clock = (at: number, seconds: boolean) =>
      new Date(at).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
    expect(describeReset(now + 5_000, now, false)).toBe(`resets in 5 s (at ${clock(now + 5_000, true)})`);
    expect(describeReset(now + 14 * 60_000, now, false)).toBe(`resets in 14 min (at ${clock(now + 14 * 60_000, false)})`);
    expect(describeReset(now + 14 * 60_000, now, true)).toBe(`resets in about 14 min (at about ${clock(now + 14 * 60_000, false)})`);
    expect(describeReset(Date.UTC(2036, 0, 15, 12), Date.UTC(2026, 0, 18, 12), false)).toBe('resets in 3649 days (on 2036-01-15)');
    expect(clock(now, true)).toMatch(/^(17:44:10|5:44:10\sPM)$/);
  });
});
