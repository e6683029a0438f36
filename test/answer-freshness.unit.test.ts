// How long the server lets the answer cache reuse an answer (src/state/answer-freshness.ts).
import { describe, expect, it } from 'vitest';
import { freshnessOf } from '../src/state/answer-freshness.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const httpDate = (ms: number) => new Date(ms).toUTCString();

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
});
