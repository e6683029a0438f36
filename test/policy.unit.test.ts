// The store's shared policy (src/store/policy.ts), pure: when a kept answer is fresh, how names match,
// which points are from a wrong clock, whose key asked, what may be kept, and how a store's part is named.
import { describe, expect, it } from 'vitest';
import {
  admitAnswer,
  CLOCK_SLACK_MS,
  compareNames,
  FUTURE_SLACK_MS,
  isFresh,
  isFuture,
  isJsonDocument,
  keyFingerprint,
  nameKey,
  placeOf,
  pointKeys,
} from '../src/store/policy.js';
import type { StoreDescription } from '../src/store/port.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const HOUR = 60 * 60 * 1000;

describe('isFresh', () => {
  const fresh = (storedAt: number, maxAgeMs: number, freshUntil?: number) =>
    isFresh({ storedAt, ...(freshUntil === undefined ? {} : { freshUntil }) }, { maxAgeMs, now: NOW });

  it('answers younger than the max age, not one of exactly that age or older', () => {
    expect(fresh(NOW - HOUR + 1, HOUR)).toBe(true);
    expect(fresh(NOW - HOUR, HOUR)).toBe(false);
    expect(fresh(NOW - 2 * HOUR, HOUR)).toBe(false);
    expect(fresh(NOW, HOUR)).toBe(true);
  });

  it('never answers with a max age of 0, a negative one or NaN', () => {
    for (const maxAgeMs of [0, -1, Number.NaN]) expect(fresh(NOW, maxAgeMs)).toBe(false);
    expect(fresh(NOW, 1)).toBe(true);
  });

  it('takes an answer stored a little in the future as age 0, and refuses one past the clock slack', () => {
    expect(fresh(NOW + CLOCK_SLACK_MS, HOUR)).toBe(true);
    expect(fresh(NOW + CLOCK_SLACK_MS + 1, HOUR)).toBe(false);
    // Age 0, not negative: a tiny max age still answers an answer from a second ahead.
    expect(fresh(NOW + 1000, 1)).toBe(true);
  });

  it("keeps within the server's own limit: fresh strictly before it", () => {
    expect(fresh(NOW - 1000, HOUR, NOW + 1)).toBe(true);
    expect(fresh(NOW - 1000, HOUR, NOW)).toBe(false);
    expect(fresh(NOW - 1000, HOUR, NOW - 1)).toBe(false);
  });
});

describe('nameKey and pointKeys', () => {
  it('matches names whatever their case, spacing and Unicode form', () => {
    expect(nameKey('  Blue\t Bottle \n Coffee ')).toBe('blue bottle coffee');
    expect(nameKey('ＣＡＦＥ')).toBe('cafe'); // NFKC folds full-width letters
    expect(nameKey('Cafe\u0301')).toBe(nameKey('Café'));
    expect(nameKey('Кофейня  Ромашка')).toBe('кофейня ромашка');
  });

  it("gives a point its query's key, and its company name's when that differs", () => {
    expect(pointKeys({ query: 'Blue  Bottle' })).toEqual(['blue bottle']);
    expect(pointKeys({ query: 'blue bottle', name: 'Blue Bottle' })).toEqual(['blue bottle']);
    expect(pointKeys({ query: 'bbc', name: 'Blue Bottle Coffee' })).toEqual(['bbc', 'blue bottle coffee']);
  });
});

describe('compareNames', () => {
  it('orders by name key, then as written, the same on every machine', () => {
    const names = ['Кофейня Ромашка', 'blue bottle', 'Zeta', 'BLUE', 'Blue Bottle', 'alpha', 'Blue  Bottle'];
    expect([...names].sort(compareNames)).toEqual(['alpha', 'BLUE', 'Blue  Bottle', 'Blue Bottle', 'blue bottle', 'Zeta', 'Кофейня Ромашка']);
    expect(compareNames('a', 'a')).toBe(0);
    expect(compareNames('b', 'a')).toBe(1);
    expect(compareNames('a', 'B')).toBe(-1);
  });
});

describe('isFuture', () => {
  it('marks only points dated past the slack after now', () => {
    const at = (ms: number) => ({ at: new Date(ms).toISOString() });
    expect(isFuture(at(NOW), NOW)).toBe(false);
    expect(isFuture(at(NOW + FUTURE_SLACK_MS), NOW)).toBe(false);
    expect(isFuture(at(NOW + FUTURE_SLACK_MS + 1000), NOW)).toBe(true);
    expect(isFuture(at(NOW - 365 * 24 * HOUR), NOW)).toBe(false);
  });
});

describe('keyFingerprint', () => {
  it('is a short hash of the key, never the key, and "none" without one', () => {
    const print = keyFingerprint('rk_live_secret_0123456789');
    expect(print).toMatch(/^[0-9a-f]{16}$/);
    expect(print).not.toContain('secret');
    expect(keyFingerprint('rk_live_secret_0123456789')).toBe(print);
    expect(keyFingerprint('rk_live_secret_0123456788')).not.toBe(print);
    expect(keyFingerprint(undefined)).toBe('none');
    expect(keyFingerprint('')).toBe('none');
  });
});

describe('isJsonDocument', () => {
  it('is true only for a JSON object or array', () => {
    for (const text of ['{}', '[]', '{"a":1}', ' [1, 2] ', '\ufeff{"a":1}']) expect(isJsonDocument(text)).toBe(true);
    for (const text of ['null', '1', '"text"', 'true', '', '{', 'not json']) expect(isJsonDocument(text)).toBe(false);
  });
});

describe('admitAnswer', () => {
  const answer = (over: Partial<{ status: number; headers: Record<string, string>; bodyText: string }> = {}) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    bodyText: '{"score":62.9}',
    receivedAt: NOW,
    ...over,
  });

  it('keeps a 2xx JSON object with its content type and the time it arrived', async () => {
    // Strictly: no `freshUntil: undefined` where the server set no limit.
    expect(await admitAnswer('rk_key_0123456789', 'Blue Bottle', answer())).toStrictEqual({
      keep: { status: 200, bodyText: '{"score":62.9}', contentType: 'application/json', storedAt: NOW },
    });
    expect(await admitAnswer(undefined, 'x', answer({ status: 299, headers: {} }))).toStrictEqual({
      keep: { status: 299, bodyText: '{"score":62.9}', storedAt: NOW },
    });
  });

  it('refuses what is not a success, without forgetting an older answer', async () => {
    for (const status of [199, 300, 404, 500])
      expect(await admitAnswer(undefined, 'x', answer({ status }))).toEqual({ reason: `status ${status} is not a success`, forget: false });
  });

  it('refuses a body that is no JSON object or array', async () => {
    expect(await admitAnswer(undefined, 'x', answer({ bodyText: '"just text"' }))).toEqual({
      reason: 'the body is not a JSON object or array',
      forget: false,
    });
  });

  it('refuses an answer holding the key, in its body or in the question', async () => {
    const key = 'rk_live_secret_0123456789';
    const held = { reason: 'the answer holds the API key', forget: false };
    expect(await admitAnswer(key, 'x', answer({ bodyText: `{"echo":"${key}"}` }))).toEqual(held);
    expect(await admitAnswer(key, `name ${key}`, answer())).toEqual(held);
    expect((await admitAnswer(undefined, `name ${key}`, answer())).keep).toBeDefined();
  });

  it("follows the server's Cache-Control: no-store refuses and forgets, max-age sets the limit", async () => {
    const refused = await admitAnswer(undefined, 'x', answer({ headers: { 'cache-control': 'no-store' } }));
    expect(refused).toMatchObject({ forget: true });
    expect(refused.keep).toBeUndefined();
    const limited = await admitAnswer(undefined, 'x', answer({ headers: { 'cache-control': 'max-age=60' } }));
    expect(limited.keep?.freshUntil).toBe(NOW + 60_000);
  });
});

describe('placeOf', () => {
  const store = (description: StoreDescription) => ({ describe: () => description });

  it("names a part by its own place where the store has one, else the store's kind", () => {
    const local = store({
      kind: 'local',
      details: [
        { label: 'cache', value: '/home/u/.cache/rep' },
        { label: 'history', value: '/home/u/.local/state/rep/history' },
      ],
    });
    expect(placeOf(local, 'history')).toBe('/home/u/.local/state/rep/history');
    expect(placeOf(local, 'cache')).toBe('/home/u/.cache/rep');
    expect(placeOf(local, 'requests')).toBe('the local store');
    expect(placeOf(store({ kind: 'postgres', details: [{ label: 'host', value: 'db' }] }), 'history')).toBe('the postgres store');
  });
});
