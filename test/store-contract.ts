// The store contract: the same tests for every implementation of the store port (src/store/port.ts).
// A test file calls storeContract with a factory: `open()` gives a store on a fresh place, `again()` a
// second store on the same place (another process, or machine, sharing it), `cleanup()` removes it.
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryPoint, LedgerScope, Store } from '../src/store/port.js';
import { MARKET_SERIES } from '../src/store/port.js';

export interface StoreFactory {
  /** A store on a fresh, empty place. */
  open(): Promise<Store>;
  /** Another store on the place the last open() made. */
  again(): Promise<Store>;
  cleanup(): Promise<void>;
}

const BASE = 'https://api.example.test/api';
const OTHER = 'https://other.example.test/api';
/** Near the real clock: a store may date its own pruning of the ledger by it. */
const T0 = Math.floor(Date.now() / 60_000) * 60_000;
const DAY = 24 * 60 * 60 * 1000;

let counter = 0;
export function point(query: string, at: number, score: number, extra: Partial<HistoryPoint> = {}): HistoryPoint {
  counter += 1;
  return { id: `p${counter}-${Math.random().toString(16).slice(2, 8)}`, at: new Date(at).toISOString(), base_url: BASE, query, score, sources: [], ...extra };
}

const answerKey = (query: string, keyFingerprint = 'aaaa000011112222') => ({ baseUrl: BASE, endpoint: 'audit' as const, query, keyFingerprint });
const stored = (body: unknown, storedAt = T0, extra = {}) => ({
  status: 200,
  bodyText: JSON.stringify(body),
  contentType: 'application/json',
  storedAt,
  ...extra,
});

export function storeContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    const opened: Store[] = [];
    const open = async () => {
      const store = await factory.open();
      opened.push(store);
      return store;
    };
    const again = async () => {
      const store = await factory.again();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await factory.cleanup();
    });

    describe('answers', () => {
      it('keeps an answer and gives it back while fresh, with its age; a miss after maxAge, for maxAge 0, and past freshUntil', async () => {
        const store = await open();
        expect(await store.answers.put(answerKey('Blue Bottle'), stored({ score: 80 }, T0, { freshUntil: T0 + 10 * 60_000 }))).toEqual({ stored: true });
        const hit = await store.answers.get(answerKey('Blue Bottle'), { maxAgeMs: 15 * 60_000, now: T0 + 60_000 });
        expect(hit).toMatchObject({ bodyText: '{"score":80}', status: 200, headers: { 'content-type': 'application/json' }, storedAt: T0, ageMs: 60_000 });
        expect(await store.answers.get(answerKey('Blue Bottle'), { maxAgeMs: 60_000, now: T0 + 60_000 })).toBeUndefined();
        expect(await store.answers.get(answerKey('Blue Bottle'), { maxAgeMs: 0, now: T0 })).toBeUndefined();
        expect(await store.answers.get(answerKey('Blue Bottle'), { maxAgeMs: 15 * 60_000, now: T0 + 11 * 60_000 })).toBeUndefined();
      });

      it('keys answers by exact query, endpoint, base URL and key fingerprint: one key never sees another key’s answer', async () => {
        const store = await open();
        await store.answers.put(answerKey('Blue Bottle', 'aaaa000011112222'), stored({ score: 1 }));
        const fresh = { maxAgeMs: 60_000, now: T0 };
        expect(await store.answers.get(answerKey('Blue Bottle', 'bbbb000011112222'), fresh)).toBeUndefined();
        expect(await store.answers.get(answerKey('blue bottle'), fresh)).toBeUndefined();
        expect(await store.answers.get({ ...answerKey('Blue Bottle'), endpoint: 'search' }, fresh)).toBeUndefined();
        expect(await store.answers.get({ ...answerKey('Blue Bottle'), baseUrl: OTHER }, fresh)).toBeUndefined();
        expect(await store.answers.get(answerKey('Blue Bottle'), fresh)).toMatchObject({ bodyText: '{"score":1}' });
      });

      it('getMany answers many keys at once, each in its place: a miss, a stale one or another key’s answer is undefined', async () => {
        const store = await open();
        await store.answers.put(answerKey('a'), stored({ v: 1 }, T0 - 30_000));
        await store.answers.put(answerKey('b'), stored({ v: 2 }, T0 - 120_000));
        await store.answers.put(answerKey('c', 'bbbb000011112222'), stored({ v: 3 }));
        await store.answers.put({ ...answerKey('c'), endpoint: 'search' }, stored({ v: 4 }));
        const fresh = { maxAgeMs: 60_000, now: T0 };
        expect(await store.answers.getMany([], fresh)).toEqual([]);
        const keys = [answerKey('c'), answerKey('a'), answerKey('b'), answerKey('missing'), answerKey('a'), answerKey('c', 'bbbb000011112222')];
        const found = await store.answers.getMany(keys, fresh);
        expect(found.map((hit) => hit?.bodyText)).toEqual([undefined, '{"v":1}', undefined, undefined, '{"v":1}', '{"v":3}']);
        expect(found[1]).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' }, storedAt: T0 - 30_000, ageMs: 30_000 });
        const again = await store.answers.getMany([{ ...answerKey('c'), endpoint: 'search' }, answerKey('b')], { maxAgeMs: 0, now: T0 });
        expect(again).toEqual([undefined, undefined]);
        const many = Array.from({ length: 300 }, (_, i) => answerKey(i % 2 === 0 ? 'a' : `none ${i}`));
        expect((await store.answers.getMany(many, fresh)).filter((hit) => hit?.bodyText === '{"v":1}')).toHaveLength(150);
      });

      it('a query is any text: quotes, backslashes, dollars, SQL and non-ASCII letters are kept and found exactly', async () => {
        const store = await open();
        const queries = ["O'Brien's \\' Café", 'back\\slash\\\\', "x'); drop table rep_answers; --", '$$dollar$$ $q$', '東京 🍣', "E'\\x41'"];
        for (const [i, query] of queries.entries()) await store.answers.put(answerKey(query), stored({ i }));
        const fresh = { maxAgeMs: 60_000, now: T0 };
        const found = await store.answers.getMany([...queries.map((query) => answerKey(query)), answerKey("O'Brien's")], fresh);
        expect(found.map((hit) => hit?.bodyText)).toEqual([...queries.map((_, i) => `{"i":${i}}`), undefined]);
        expect(await store.answers.get(answerKey(queries[2]!), fresh)).toMatchObject({ bodyText: '{"i":2}' });
      });

      it('put replaces, forget removes one, stats counts, clear removes all and says how many', async () => {
        const store = await open();
        await store.answers.put(answerKey('a'), stored({ v: 1 }));
        await store.answers.put(answerKey('a'), stored({ v: 2 }));
        await store.answers.put(answerKey('b'), stored({ v: 3 }));
        await store.answers.put(answerKey('c'), stored({ v: 4 }));
        expect(await store.answers.get(answerKey('a'), { maxAgeMs: 60_000, now: T0 })).toMatchObject({ bodyText: '{"v":2}' });
        await store.answers.forget(answerKey('c'));
        expect(await store.answers.get(answerKey('c'), { maxAgeMs: 60_000, now: T0 })).toBeUndefined();
        const stats = await store.answers.stats();
        expect(stats.entries).toBe(2);
        expect(stats.bytes).toBeGreaterThan(0);
        expect(stats.where).toEqual(expect.any(String));
        expect(await store.answers.clear()).toBe(2);
        expect((await store.answers.stats()).entries).toBe(0);
      });

      it('a second store on the same place sees the first one’s answers', async () => {
        const first = await open();
        await first.answers.put(answerKey('shared'), stored({ v: 1 }));
        const second = await again();
        expect(await second.answers.get(answerKey('shared'), { maxAgeMs: 60_000, now: T0 })).toMatchObject({ bodyText: '{"v":1}' });
      });
    });

    describe('ledger', () => {
      const scope: LedgerScope = { keyFingerprint: 'aaaa000011112222', baseUrl: BASE };
      it('counts the requests of the last hour per (key fingerprint, base URL), the oldest one’s minute, across stores', async () => {
        const first = await open();
        await first.ledger.record(scope, T0 - 50 * 60_000);
        await first.ledger.record(scope, T0 - 10 * 60_000);
        await first.ledger.record(scope, T0 - 2 * 60 * 60_000); // outside the hour
        await first.ledger.record({ ...scope, keyFingerprint: 'bbbb000011112222' }, T0);
        await first.ledger.record({ ...scope, baseUrl: OTHER }, T0);
        expect(await first.ledger.count(scope, T0 - 60 * 60_000, T0)).toMatchObject({ requests: 2, oldestAt: T0 - 50 * 60_000 });
        const second = await again();
        await second.ledger.record(scope, T0 - 60_000);
        expect(await second.ledger.settle()).toBeUndefined();
        expect(await first.ledger.settle()).toBeUndefined();
        const third = await again();
        const count = await third.ledger.count(scope, T0 - 60 * 60_000, T0);
        expect(count).toMatchObject({ requests: 3, oldestAt: T0 - 50 * 60_000 });
        if (count.contributors !== undefined) expect(count.contributors).toBe(2);
        expect((await third.ledger.count({ ...scope, keyFingerprint: 'bbbb000011112222' }, T0 - 60 * 60_000, T0)).requests).toBe(1);
        expect((await third.ledger.count({ ...scope, baseUrl: OTHER }, T0 - 60 * 60_000, T0)).requests).toBe(1);
        expect((await third.ledger.count({ keyFingerprint: 'cccc000011112222', baseUrl: BASE }, T0 - 60 * 60_000, T0)).requests).toBe(0);
      });

      it('keeps the newest rate-limit facts per scope', async () => {
        const store = await open();
        await store.ledger.noteRateLimit(scope, { limit: 100, remaining: 40, resetAt: T0 + 600_000, seenAt: T0 - 1000 });
        await store.ledger.noteRateLimit(scope, { limit: 100, remaining: 39, seenAt: T0 });
        await store.ledger.settle();
        const second = await again();
        expect(await second.ledger.lastRateLimit(scope)).toEqual({ limit: 100, remaining: 39, seenAt: T0 });
        expect(await second.ledger.lastRateLimit({ ...scope, keyFingerprint: 'bbbb000011112222' })).toBeUndefined();
      });
    });

    describe('history', () => {
      it('appends many points at once, idempotently by id; a range gives one series oldest first, within since/until', async () => {
        const store = await open();
        const points = [point('Blue Bottle', T0 + 2 * DAY, 82), point('Blue Bottle', T0, 80), point('Blue Bottle', T0 + DAY, 81), point('Tartine', T0, 70)];
        await store.history.append(points);
        await store.history.append([points[0]!, points[1]!]);
        const range = await store.history.range({ key: 'blue bottle', baseUrl: BASE });
        expect(range.map((p) => p.score)).toEqual([80, 81, 82]);
        expect((await store.history.range({ key: 'blue bottle', since: T0 + DAY })).map((p) => p.score)).toEqual([81, 82]);
        expect((await store.history.range({ key: 'blue bottle', until: T0 + DAY })).map((p) => p.score)).toEqual([80]);
        expect(await store.history.range({ key: 'blue bottle', baseUrl: OTHER })).toEqual([]);
        expect((await store.history.stats()).points).toBe(4);
      });

      it('a point keeps every field it was given', async () => {
        const store = await open();
        const full = point('Blue Bottle', T0, 80, { name: 'Blue Bottle Coffee', scale: 100, sources: [{ source: 'Google', rating: 4.5, reviews: 1200 }] });
        await store.history.append([full]);
        expect(await store.history.range({ key: 'blue bottle' })).toEqual([full]);
      });

      it('range finds a series by its company name too', async () => {
        const store = await open();
        await store.history.append([point('bb', T0, 80, { name: 'Blue Bottle' })]);
        expect((await store.history.range({ key: 'blue bottle' })).map((p) => p.query)).toEqual(['bb']);
      });

      it('previous: the newest point of the same query before the time, many questions at once', async () => {
        const store = await open();
        await store.history.append([point('Blue Bottle', T0, 80), point('Blue Bottle', T0 + DAY, 81), point('Tartine', T0, 70)]);
        const answers = await store.history.previous([
          { baseUrl: BASE, queryKey: 'blue bottle', before: T0 + 2 * DAY },
          { baseUrl: BASE, queryKey: 'blue bottle', before: T0 + DAY },
          { baseUrl: BASE, queryKey: 'blue bottle', before: T0 },
          { baseUrl: BASE, queryKey: 'tartine', before: T0 + DAY },
          { baseUrl: OTHER, queryKey: 'blue bottle', before: T0 + 2 * DAY },
          { baseUrl: BASE, queryKey: 'nobody', before: T0 + 2 * DAY },
        ]);
        expect(answers.map((p) => p?.score)).toEqual([81, 80, undefined, 70, undefined, undefined]);
      });

      it('previous: names with quotes and backslashes are asked and found exactly', async () => {
        const store = await open();
        const names = ["O'Brien's \\' Pub", 'back\\slash', "x'); delete from rep_history; --"];
        await store.history.append(names.map((name, i) => point(name, T0, 60 + i)));
        const answers = await store.history.previous(names.map((name) => ({ baseUrl: BASE, queryKey: name.toLowerCase(), before: T0 + DAY })));
        expect(answers.map((p) => [p?.query, p?.score])).toEqual(names.map((name, i) => [name, 60 + i]));
        expect((await store.history.stats()).points).toBe(3);
      });

      it('previous: the company name is a fallback only where the query has none (a chain’s branches do not mix)', async () => {
        const store = await open();
        await store.history.append([
          point('Blue Bottle Oakland', T0, 60, { name: 'Blue Bottle' }),
          point('Blue Bottle SF', T0 + DAY, 90, { name: 'Blue Bottle' }),
        ]);
        const [own, byName, byQueryText] = await store.history.previous([
          { baseUrl: BASE, queryKey: 'blue bottle oakland', nameKey: 'blue bottle', before: T0 + 3 * DAY },
          { baseUrl: BASE, queryKey: 'bb', nameKey: 'blue bottle', before: T0 + 3 * DAY },
          { baseUrl: BASE, queryKey: 'blue bottle', before: T0 + 3 * DAY },
        ]);
        expect(own?.score).toBe(60);
        expect(byName?.score).toBe(90);
        expect(byQueryText?.score).toBe(90);
      });

      it('previous: points a run excludes (its own) and points not before the time are not seen', async () => {
        const store = await open();
        const mine = point('Blue Bottle', T0 + DAY, 99);
        await store.history.append([point('Blue Bottle', T0, 80), mine, point('Blue Bottle', T0 + 30 * DAY, 10)]);
        const [answer] = await store.history.previous([{ baseUrl: BASE, queryKey: 'blue bottle', before: T0 + 2 * DAY, excludeIds: [mine.id] }]);
        expect(answer?.score).toBe(80);
      });

      it('names: recorded queries and company names by prefix key, newest spelling each, sorted; never the market', async () => {
        const store = await open();
        await store.history.append([
          point('blue bottle coffee', T0, 1),
          point('BLUE', T0 + DAY, 2, { name: 'Blue Bottle Coffee' }),
          point('Кофейня Ромашка', T0, 3),
          point(MARKET_SERIES, T0, 50),
        ]);
        expect(await store.history.names('')).toEqual(['BLUE', 'Blue Bottle Coffee', 'Кофейня Ромашка']);
        expect(await store.history.names('blue b')).toEqual(['Blue Bottle Coffee']);
        expect(await store.history.names('коф')).toEqual(['Кофейня Ромашка']);
      });

      it('the market is a series of its base URL like any other', async () => {
        const store = await open();
        await store.history.append([point(MARKET_SERIES, T0, 50), point(MARKET_SERIES, T0 + DAY, 52), point(MARKET_SERIES, T0, 40, { base_url: OTHER })]);
        expect((await store.history.range({ key: MARKET_SERIES, baseUrl: BASE })).map((p) => p.score)).toEqual([50, 52]);
      });

      it('prune removes the points before a time and says how many; stats give points, bytes and the oldest point', async () => {
        const store = await open();
        await store.history.append([point('a', T0, 1), point('a', T0 + DAY, 2), point('b', T0 - DAY, 3), point('b', T0 + 2 * DAY, 4)]);
        expect(await store.history.stats()).toMatchObject({ points: 4, oldest: new Date(T0 - DAY).toISOString() });
        expect(await store.history.prune(T0 + DAY)).toBe(2);
        expect(await store.history.prune(T0 + DAY)).toBe(0);
        const stats = await store.history.stats();
        expect(stats).toMatchObject({ points: 2, oldest: new Date(T0 + DAY).toISOString() });
        if (stats.bytes !== undefined) expect(stats.bytes).toBeGreaterThan(0);
        expect((await store.history.range({ key: 'a' })).map((p) => p.score)).toEqual([2]);
      });

      it('two stores on the same place see each other’s points, appended at once', async () => {
        const first = await open();
        const second = await again();
        await Promise.all([
          first.history.append(Array.from({ length: 20 }, (_, i) => point('shared', T0 + i * 1000, i))),
          second.history.append(Array.from({ length: 20 }, (_, i) => point('shared', T0 + i * 1000 + 1, 100 + i))),
        ]);
        expect(await first.history.range({ key: 'shared' })).toHaveLength(40);
        expect(await second.history.range({ key: 'shared' })).toHaveLength(40);
      });

      it('a store that has read the history sees a series another store adds after, and one pruned away', async () => {
        const first = await open();
        const second = await again();
        await first.history.append([point('old', T0, 1)]);
        expect(await first.history.names('')).toEqual(['old']);
        expect(await first.history.range({ key: 'new' })).toEqual([]);
        await second.history.append([point('new', T0 + DAY, 2)]);
        expect(await first.history.names('')).toEqual(['new', 'old']);
        expect((await first.history.range({ key: 'new' })).map((p) => p.score)).toEqual([2]);
        expect(await second.history.prune(T0 + DAY)).toBe(1);
        expect(await first.history.range({ key: 'old' })).toEqual([]);
      });
    });

    it('describes itself without a secret', async () => {
      const store = await open();
      const description = store.describe();
      expect(['local', 'postgres']).toContain(description.kind);
      expect(description.details.length).toBeGreaterThan(0);
      expect(JSON.stringify(description)).not.toMatch(/password|secret/i);
    });
  });
}
