import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../src/errors.js';
import { BACKOFF_CAP_MS, retryDelay } from '../src/api/client.js';
import { describeReset, formatRelative, MAX_RESET_MS, parseRateLimitHeaders, parseReset, parseRetryAfter, rateLimitError } from '../src/api/rate-limit.js';
import { formatCountdown } from '../src/progress.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0); // 1748779200000

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
  it('formats durations', () => {
    expect(formatRelative(400)).toBe('1 s');
    expect(formatRelative(9_000)).toBe('9 s');
    expect(formatRelative(42_000)).toBe('40 s');
    // Whole-second reset headers overshoot by up to a second: a 20 s window still reads 20 s, an hour 1 h.
    expect(formatRelative(20_900)).toBe('20 s');
    expect(formatRelative(19_990)).toBe('20 s');
    expect(formatRelative(57_600)).toBe('1 min');
    expect(formatRelative(3_600_900)).toBe('1 h');
    expect(formatRelative(3_599_100)).toBe('1 h');
    expect(formatRelative(14 * 60_000)).toBe('14 min');
    expect(formatRelative(125 * 60_000)).toBe('2 h 5 min');
    expect(formatCountdown(252_000)).toBe('4m 12s');
    expect(formatCountdown(9_000)).toBe('9s');
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
