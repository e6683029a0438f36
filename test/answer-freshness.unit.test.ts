// How long the server lets the answer cache reuse an answer (src/state/answer-freshness.ts), and its
// readings of Cache-Control and HTTP-date, where a malformed header keeps less, never more.
import { describe, expect, it, vi } from 'vitest';
import { freshnessOf, parseCacheControl, parseHttpDate } from '../src/store/answer-freshness.js';
import { admitAnswer } from '../src/store/policy.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const httpDate = (ms: number) => new Date(ms).toUTCString();
// The module loaded anew inside a test: its tables (month names, date forms, token characters and
// whitespace patterns) are made as it loads, and the mutation run ties them only to the tests that load it.
const fresh = async () => {
  vi.resetModules();
  return await import('../src/store/answer-freshness.js');
};

describe('freshnessOf', () => {
  it('keeps an answer without a limit when the server sets none', () => {
    expect(freshnessOf({}, NOW)).toEqual({ keep: true });
    expect(freshnessOf({ 'cache-control': 'public' }, NOW)).toEqual({ keep: true });
  });

  it.each([
    [{ 'cache-control': 'no-store' }, 'the server said Cache-Control: no-store'],
    [{ 'Cache-Control': 'private, no-store' }, 'the server said Cache-Control: no-store'],
    [{ 'cache-control': 'no-cache' }, 'the server said Cache-Control: no-cache'],
    [{ pragma: 'No-Cache' }, 'the server said Cache-Control: no-cache'],
    [{ vary: ' * ' }, 'the server said Vary: *'],
  ])('keeps nothing for %j', (headers, reason) => {
    expect(freshnessOf(headers, NOW)).toEqual({ keep: false, reason });
  });

  it('a Pragma does not override a Cache-Control, and a Vary on a header is fine', () => {
    expect(freshnessOf({ pragma: 'no-cache', 'cache-control': 'max-age=60' }, NOW)).toEqual({ keep: true, freshUntil: NOW + 60_000 });
    expect(freshnessOf({ vary: 'accept' }, NOW)).toEqual({ keep: true });
  });

  it('max-age caps the life, less the Age the answer came with', () => {
    expect(freshnessOf({ 'cache-control': 'max-age=60' }, NOW)).toEqual({ keep: true, freshUntil: NOW + 60_000 });
    expect(freshnessOf({ 'cache-control': 'max-age=60', age: ' 20 ' }, NOW)).toEqual({ keep: true, freshUntil: NOW + 40_000 });
    expect(freshnessOf({ 'cache-control': 'max-age=60', age: ['20'] }, NOW)).toEqual({ keep: true, freshUntil: NOW + 40_000 });
  });

  it('an answer as old as its max-age, or with an Age that is no number, is stale', () => {
    const stale = { keep: false, reason: 'the server said the answer is already stale (max-age, Expires or Age)' };
    expect(freshnessOf({ 'cache-control': 'max-age=60', age: '60' }, NOW)).toEqual(stale);
    expect(freshnessOf({ 'cache-control': 'max-age=60', age: 'soon' }, NOW)).toEqual(stale);
    expect(freshnessOf({ 'cache-control': 'max-age=60', age: ['1', '2'] }, NOW)).toEqual(stale);
    expect(freshnessOf({ 'cache-control': 'max-age=0' }, NOW)).toEqual(stale);
    expect(freshnessOf({ 'cache-control': 'max-age=abc' }, NOW)).toEqual(stale);
  });

  it('a Date in the past counts against the life, as the Age does, whichever is more', () => {
    expect(freshnessOf({ 'cache-control': 'max-age=60', date: httpDate(NOW - 30_000) }, NOW)).toEqual({ keep: true, freshUntil: NOW + 30_000 });
    expect(freshnessOf({ 'cache-control': 'max-age=60', date: httpDate(NOW - 10_000), age: '25' }, NOW)).toEqual({ keep: true, freshUntil: NOW + 35_000 });
    expect(freshnessOf({ 'cache-control': 'max-age=60', date: httpDate(NOW + 30_000) }, NOW)).toEqual({ keep: true, freshUntil: NOW + 60_000 });
    expect(freshnessOf({ 'cache-control': 'max-age=60', date: ` ${httpDate(NOW - 30_000)} ` }, NOW)).toEqual({ keep: true, freshUntil: NOW + 30_000 });
  });

  it("Expires caps the life from the server's Date, and max-age wins over it", () => {
    expect(freshnessOf({ expires: httpDate(NOW + 120_000) }, NOW)).toEqual({ keep: true, freshUntil: NOW + 120_000 });
    expect(freshnessOf({ expires: httpDate(NOW + 120_000), date: httpDate(NOW - 60_000) }, NOW)).toEqual({ keep: true, freshUntil: NOW + 120_000 });
    expect(freshnessOf({ expires: [httpDate(NOW + 120_000)] }, NOW)).toEqual({ keep: true, freshUntil: NOW + 120_000 });
    expect(freshnessOf({ expires: httpDate(NOW + 120_000), 'cache-control': 'max-age=10' }, NOW)).toEqual({ keep: true, freshUntil: NOW + 10_000 });
  });

  it('an Expires that is no date, or two, or in the past, means already expired', () => {
    for (const expires of ['0', 'tomorrow', [httpDate(NOW + 1000), httpDate(NOW + 2000)], httpDate(NOW - 1000)]) {
      expect(freshnessOf({ expires }, NOW)).toMatchObject({ keep: false });
    }
  });

  it('reads a Cache-Control sent as several header lines as one list', () => {
    expect(freshnessOf({ 'cache-control': ['max-age=60', 'no-store'] }, NOW)).toEqual({ keep: false, reason: 'the server said Cache-Control: no-store' });
    expect(freshnessOf({ 'cache-control': ['public', 'max-age=60'] }, NOW)).toEqual({ keep: true, freshUntil: NOW + 60_000 });
  });

  it('an Age that is no number makes even a long max-age stale', () => {
    const stale = { keep: false, reason: 'the server said the answer is already stale (max-age, Expires or Age)' };
    expect(freshnessOf({ 'cache-control': 'max-age=3600', age: 'soon' }, NOW)).toEqual(stale);
    expect(freshnessOf({ 'cache-control': 'max-age=86400', age: '-5' }, NOW)).toEqual(stale);
  });

  it('finds headers under any spelling, among others spelled as Node spells them', () => {
    const noStore = { keep: false, reason: 'the server said Cache-Control: no-store' };
    expect(freshnessOf({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, NOW)).toEqual(noStore);
    expect(freshnessOf({ 'x-request-id': '7', 'Cache-Control': 'no-store' }, NOW)).toEqual(noStore);
    expect(freshnessOf({ 'CACHE-CONTROL': 'NO-STORE' }, NOW)).toEqual(noStore);
    expect(freshnessOf({ 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60', Age: '20' }, NOW)).toEqual({
      keep: true,
      freshUntil: NOW + 40_000,
    });
  });
});

describe('parseCacheControl', () => {
  const none = { noStore: false, noCache: false };

  it('reads no-store, no-cache and max-age, in any case, among other directives', () => {
    expect(parseCacheControl('')).toEqual(none);
    expect(parseCacheControl('public, s-maxage=5, stale-while-revalidate=9')).toEqual(none);
    expect(parseCacheControl('No-Store')).toEqual({ ...none, noStore: true });
    expect(parseCacheControl('private, NO-CACHE, max-age=0')).toEqual({ noStore: false, noCache: true, maxAge: 0 });
    expect(parseCacheControl(' max-age=60 ,public')).toEqual({ ...none, maxAge: 60 });
    expect(parseCacheControl('max-age="60"')).toEqual({ ...none, maxAge: 60 });
  });

  it('a qualified no-cache, or one in a quoted list, is no-cache; a comma inside quotes splits nothing', () => {
    expect(parseCacheControl('no-cache="set-cookie"')).toEqual({ ...none, noCache: true });
    expect(parseCacheControl('no-cache="set-cookie, x-a", max-age=60')).toEqual({ ...none, noCache: true, maxAge: 60 });
    expect(parseCacheControl('ext="a, max-age=5", max-age=60')).toEqual({ ...none, maxAge: 60 });
    expect(parseCacheControl('ext="a \\" max-age=5", max-age=60')).toEqual({ ...none, maxAge: 60 });
  });

  it('a malformed no-store or no-cache still forbids keeping', async () => {
    const { parseCacheControl } = await fresh();
    expect(parseCacheControl('no-store;x')).toMatchObject({ noStore: true });
    expect(parseCacheControl('"no-store"')).toMatchObject({ noStore: true });
    expect(parseCacheControl('no-cache ="x"')).toMatchObject({ noCache: true });
    expect(parseCacheControl('ext="unclosed, no-store')).toMatchObject({ noStore: true });
    expect(parseCacheControl('no-storex')).toEqual(none); // another token
  });

  it('the smallest of several max-ages wins; a malformed one makes the answer stale', () => {
    expect(parseCacheControl('max-age=60, max-age=30')).toEqual({ ...none, maxAge: 30 });
    for (const header of [
      'max-age',
      'max-age=',
      'max-age=abc',
      'max-age=-1',
      'max-age=1.5',
      'max-age = 60',
      'max-age= 60',
      'max-age="60',
      'max-age=60, max-age=x',
      'max-age=x, max-age=60',
    ]) {
      expect(parseCacheControl(header), header).toEqual({ ...none, maxAge: 0 });
    }
    expect(parseCacheControl('max-age=99999999999999999999')).toEqual({ ...none, maxAge: 2_147_483_647 });
    // After a quote that never closes, a max-age is not one.
    expect(parseCacheControl('ext="x, max-age=60')).toEqual(none);
  });

  it('after a quote that never closes, no later max-age counts, however the text before it runs', () => {
    expect(parseCacheControl('ext=", max-age=60')).toEqual(none);
    expect(parseCacheControl('public, ext="x, max-age=60')).toEqual(none);
    // A quoted string that did close hides its commas still.
    expect(parseCacheControl('e="a, max-age=5", bbbbbbbbbbbbbbbbbbbb="x')).toEqual(none);
    expect(parseCacheControl('max-age=30, ext="x, max-age=60')).toEqual({ ...none, maxAge: 30 });
  });

  it('whitespace around a name, or after a value, is no part of it; inside a name it makes another', async () => {
    const { parseCacheControl } = await fresh();
    expect(parseCacheControl('public,  max-age=60')).toEqual({ ...none, maxAge: 60 });
    expect(parseCacheControl('\t max-age=60')).toEqual({ ...none, maxAge: 60 });
    expect(parseCacheControl('max-age=60 \t, public')).toEqual({ ...none, maxAge: 60 });
    expect(parseCacheControl('no-cache  , max-age=60')).toEqual({ ...none, noCache: true, maxAge: 60 });
    expect(parseCacheControl('max-age=  60')).toEqual({ ...none, maxAge: 0 });
    expect(parseCacheControl('max-age  =60')).toEqual({ ...none, maxAge: 0 });
    expect(parseCacheControl('max -age=60')).toEqual(none);
  });

  it('a name with characters no token has is another directive, unless it is a restrictive one', () => {
    expect(parseCacheControl('x;y')).toEqual(none);
    expect(parseCacheControl('"public"')).toEqual(none);
    expect(parseCacheControl('max -age=60')).toEqual(none);
    expect(parseCacheControl('no-st ore')).toMatchObject({ noStore: true });
  });
});

describe('parseHttpDate', () => {
  const at = Date.UTC(1994, 10, 6, 8, 49, 37);

  it("reads an HTTP-date's three forms", async () => {
    const { parseHttpDate } = await fresh();
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1))).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(at);
    expect(parseHttpDate('sun, 06 nov 1994 08:49:37 gmt')).toBe(at);
    expect(parseHttpDate(new Date(NOW).toUTCString())).toBe(NOW);
  });

  it('a two-digit year more than 50 years ahead is in the past century', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseHttpDate('Thursday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-77 00:00:00 GMT', now)).toBe(Date.UTC(1977, 0, 1));
  });

  it('reads every month, and the hours, minutes and seconds up to their last', async () => {
    const { parseHttpDate } = await fresh();
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    months.forEach((month, index) => {
      expect(parseHttpDate(`Mon, 01 ${month} 2029 00:00:00 GMT`), month).toBe(Date.UTC(2029, index, 1));
    });
    expect(parseHttpDate('Sun, 06 Nov 1994 23:59:59 GMT')).toBe(Date.UTC(1994, 10, 6, 23, 59, 59));
    // A leap second is read as the second before it.
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(Date.UTC(2016, 11, 31, 23, 59, 59));
  });

  it('anything else is no date', () => {
    for (const text of [
      '',
      '0',
      'tomorrow',
      '2026-11-23T10:00:00Z',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Foo 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:60:00 GMT',
      'Sun, 06 Nov 1994 08:49:61 GMT',
      'Sun, 06 Nov 1994 08:99:37 GMT',
      // A year before 100 is not 1994 (Date.UTC would read 94 as 1994).
      'Sun, 06 Nov 0094 08:49:37 GMT',
    ]) {
      expect(parseHttpDate(text), text).toBeUndefined();
    }
  });
});

describe('admitAnswer', () => {
  const answer = (bodyText: string) => ({ status: 200, headers: {}, bodyText, receivedAt: NOW });

  it('keeps a JSON object, refuses a body that is no JSON object or array', async () => {
    expect(await admitAnswer(undefined, 'q', answer('{"a":1}'))).toEqual({ keep: { status: 200, bodyText: '{"a":1}', storedAt: NOW } });
    expect(await admitAnswer(undefined, 'q', answer('42'))).toEqual({ reason: 'the body is not a JSON object or array', forget: false });
  });

  it('takes the caller at its word that the body is a JSON document (the client parsed it already)', async () => {
    // Not a document: shows the body was not parsed again, which the client's own parse made needless.
    expect(await admitAnswer(undefined, 'q', { ...answer('42'), jsonDocument: true })).toEqual({ keep: { status: 200, bodyText: '42', storedAt: NOW } });
  });

  it('still refuses an answer holding the key, parsed or not', async () => {
    const key = 'rk_live_0123456789';
    expect(await admitAnswer(key, 'q', { ...answer(`{"k":"${key}"}`), jsonDocument: true })).toEqual({ reason: 'the answer holds the API key', forget: false });
  });
});
