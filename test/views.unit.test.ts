// Bodies of odd shapes as the views read them (src/views/): what becomes a field, a source or a
// detail row, and where each was read, as `--debug` and every format show it.
import { describe, expect, it } from 'vitest';
import { asNumber, asText, flatten, flattenRest, joinPath, unwrapEnvelopes } from '../src/views/fields.js';
import { auditView, fieldPaths, pulseView, searchView, viewOf } from '../src/views/index.js';
import { resultType } from '../src/views/search.js';
import { sourceRows } from '../src/views/sources.js';

describe('numbers and text from a body', () => {
  it('reads a number, or text that is exactly one', () => {
    expect(['87.4', ' -3 ', '+2', '.5', '1e3', '7.', '-1.5E-2'].map(asNumber)).toEqual([87.4, -3, 2, 0.5, 1000, 7, -0.015]);
  });

  it('takes no number from text that only starts with one, nor from what is not finite', () => {
    expect(['4.5 stars', '', ' ', 'e5', '1e', '0x10', 'NaN', '--1'].map(asNumber)).toEqual(Array(8).fill(undefined));
    expect([Infinity, NaN, null, true, {}].map(asNumber)).toEqual(Array(5).fill(undefined));
  });

  it('reads a name as text or a number, never blank', () => {
    expect([' A ', 7, '  ', NaN, true, null].map(asText)).toEqual([' A ', '7', undefined, undefined, undefined, undefined]);
  });

  it('joins a path the way detail labels read', () => {
    expect(joinPath('data', '[0]', 'score')).toBe('data[0].score');
    expect(joinPath('', 'score', '')).toBe('score');
    expect(joinPath('[0]', 'a')).toBe('[0].a');
  });
});

describe('flatten', () => {
  it('labels a bare value as "value", and shows null, booleans and empty containers', () => {
    expect(flatten(5)).toEqual([['value', 5]]);
    expect(flatten(null)).toEqual([['value', 'null']]);
    expect(flatten(undefined, 'x')).toEqual([['x', 'null']]);
    expect(flatten(false, 'ok')).toEqual([['ok', 'false']]);
    expect(flatten(12n, 'big')).toEqual([['big', '12']]);
    expect(flatten([])).toEqual([['value', '[]']]);
    expect(flatten({}, 'meta')).toEqual([['meta', '{}']]);
  });

  it('indexes an array that holds a record, scalars too', () => {
    expect(flatten([{ a: 1 }, 2, [3, 4]], 'list')).toEqual([
      ['list[0].a', 1],
      ['list[1]', 2],
      ['list[2]', '3, 4'],
    ]);
    expect(flatten([null, 'x', 1])).toEqual([['value', 'null, x, 1']]);
  });

  it('shows what lies deeper than 8 levels as compact JSON on one row', () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } };
    expect(flatten(deep)).toEqual([['a.b.c.d.e.f.g.h', '{"i":1}']]);
    expect(flatten({ a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } })).toEqual([['a.b.c.d.e.f.g.h', 1]]);
    expect(flatten({ a: { b: { c: { d: { e: { f: { g: { h: [1, 2] } } } } } } } })).toEqual([['a.b.c.d.e.f.g.h', '[1,2]']]);
  });
});

describe('flattenRest', () => {
  it('labels a field with an empty name as flatten does: value at the top, a trailing dot below', () => {
    expect(flattenRest({ '': 1, a: { '': 2 }, b: 'x', used: 3 }, ['used'])).toEqual([
      ['value', 1],
      ['a.', 2],
      ['b', 'x'],
    ]);
    expect(flattenRest({ '': 1 }, [], 'p')).toEqual([['p.', 1]]);
  });
});

describe('envelopes', () => {
  it('descends through up to six envelopes, keeping what sits beside them', () => {
    const body = { data: { result: { meta: 1, response: { score: 5 } } }, links: { self: '/x' } };
    expect(unwrapEnvelopes(body, (record) => 'score' in record)).toEqual({
      payload: { score: 5 },
      details: [
        ['links.self', '/x'],
        ['data.result.meta', 1],
      ],
      path: 'data.result.response',
    });
    let seven: unknown = { score: 1 };
    for (let i = 0; i < 7; i += 1) seven = { data: seven };
    expect(unwrapEnvelopes(seven, (record) => 'score' in record).path).toBe('data.data.data.data.data.data');
  });
});

describe('auditView', () => {
  it('reads an array of several records as details, never as one company', () => {
    expect(
      auditView([
        { name: 'A', score: 1 },
        { name: 'B', score: 2 },
      ]),
    ).toEqual({
      sources: [],
      details: [
        ['[0].name', 'A'],
        ['[0].score', 1],
        ['[1].name', 'B'],
        ['[1].score', 2],
      ],
      paths: {},
    });
  });

  it('reads the one record of a one-element array, saying where', () => {
    expect(auditView([{ data: { name: 'A', score: 3 } }])).toMatchObject({ name: 'A', score: 3, paths: { name: '[0].data.name', score: '[0].data.score' } });
  });

  it('looks up to four records deep for the present, no deeper', () => {
    expect(auditView({ current: { latest: { now: { today: { score: 4 } } } } }).paths).toEqual({ score: 'current.latest.now.today.score' });
    expect(auditView({ current: { latest: { now: { today: { summary: { score: 4 } } } } } })).toMatchObject({
      paths: {},
      details: [['current.latest.now.today.summary.score', 4]],
    });
  });

  it("takes the company's name over the body's, the company given as text, and a name record's text", () => {
    expect(auditView({ name: 'Outer', business: { name: 'Inner' } }).name).toBe('Inner');
    // The present is no company: a name in it does not win over the body's.
    expect(auditView({ name: 'Outer', current: { name: 'Inner', score: 5 } })).toMatchObject({ name: 'Outer', details: [['current.name', 'Inner']] });
    expect(auditView({ company: 'Acme Ltd', score: 2 })).toMatchObject({ name: 'Acme Ltd', paths: { name: 'company', score: 'score' } });
    expect(auditView({ name: 'Acme', company: 'Acme Ltd' })).toMatchObject({ name: 'Acme Ltd', details: [['name', 'Acme']] });
    expect(auditView({ displayName: { text: 'Café', languageCode: 'fr' } })).toMatchObject({
      name: 'Café',
      details: [['displayName.languageCode', 'fr']],
      paths: { name: 'displayName.text' },
    });
  });

  it('keeps a field as deep as the score in another record, and notes it', () => {
    const view = auditView({ company: { score: 1 }, current: { score: 2 } });
    expect(view).toMatchObject({ score: 1, alsoFound: { score: ['current.score'] } });
    expect(fieldPaths({ endpoint: 'audit', view })).toEqual(['score read from company.score', 'score also found at current.score']);
    // Found in three records: the others named in one line, in the body's order.
    const three = auditView({ company: { score: 1 }, current: { score: 2 }, latest: { score: 3 } });
    expect(fieldPaths({ endpoint: 'audit', view: three }).at(-1)).toBe('score also found at current.score, latest.score');
  });

  it('reads the scale inside the score record, beside it, or from a star rating', () => {
    expect(auditView({ score: { value: 4, max: 5, note: 'n' } })).toMatchObject({
      score: 4,
      scoreMax: 5,
      details: [['score.note', 'n']],
      paths: { scoreMax: 'score.max' },
    });
    expect(auditView({ rating: 4, max_score: 10 })).toMatchObject({ scoreMax: 10, paths: { scoreMax: 'max_score' } });
    expect(auditView({ stars: 4 }).scoreMax).toBe(5);
    expect(auditView({ score: { stars: 4 } }).scoreMax).toBe(5);
    expect(auditView({ rating: 4 }).scoreMax).toBeUndefined();
  });

  it('reads the total of reviews in the score record', () => {
    expect(auditView({ aggregateRating: { ratingValue: 4.5, reviewCount: 10 } })).toMatchObject({
      score: 4.5,
      reviews: 10,
      paths: { reviews: 'aggregateRating.reviewCount' },
    });
    // The score record is as deep as the score: a total there wins over a better name one record deeper.
    expect(auditView({ aggregateRating: { ratingValue: 4, reviewCount: 10 }, current: { review_count: 20 } })).toMatchObject({
      reviews: 10,
      details: [['current.review_count', 20]],
    });
  });
});

describe('sources', () => {
  it('reads an array of records, of names, and keeps what is neither', () => {
    expect(sourceRows([{ platform: 'G', stars: 4, total: 3, url: 'u' }, 'Yelp', 5])).toEqual({
      rows: [
        { source: 'G', rating: 4, reviews: 3, extra: [['url', 'u']] },
        { source: 'Yelp', extra: [] },
      ],
      details: [['[2]', 5]],
    });
  });

  it('reads a map of records or of ratings, and keeps what is neither', () => {
    expect(sourceRows({ google: { rating: 4.5 }, yelp: 3.9, note: 'x' })).toEqual({
      rows: [
        { source: 'google', rating: 4.5, reviews: undefined, extra: [] },
        { source: 'yelp', rating: 3.9, extra: [] },
      ],
      details: [['note', 'x']],
    });
    expect(sourceRows({})).toBeUndefined();
    expect(sourceRows('text')).toBeUndefined();
  });

  it('under a loose key, takes only entries that look like sources', () => {
    expect(sourceRows({ positive: 10, negative: 2 }, 'summary')).toBeUndefined();
    expect(sourceRows([{ positive: 10 }], 'summary')).toBeUndefined();
    expect(sourceRows({ google: { rating: 4 }, total: 10 }, 'breakdown')).toEqual({
      rows: [{ source: 'google', rating: 4, reviews: undefined, extra: [] }],
      details: [['total', 10]],
    });
  });

  it('finds sources one level further in, labelling what is beside them', () => {
    expect(sourceRows({ by_source: [{ source: 'G' }, 7], total: 10 }, 'summary')).toEqual({
      rows: [{ source: 'G', rating: undefined, reviews: undefined, extra: [] }],
      details: [
        ['by_source[1]', 7],
        ['total', 10],
      ],
    });
    expect(sourceRows({ sources: { note: 'n', google: { rating: 1 } } })).toEqual({
      rows: [{ source: 'google', rating: 1, reviews: undefined, extra: [] }],
      details: [['sources.note', 'n']],
    });
  });
});

describe('searchView and pulseView', () => {
  it('names result types in any case, and passes other words through trimmed', () => {
    expect(['Companies', ' cities ', 'CATEGORY', 'Widgets '].map(resultType)).toEqual(['company', 'city', 'category', 'Widgets']);
  });

  it('orders company, city and category first, then other groups as they came', () => {
    const view = searchView({ widgets: [{ id: 1 }], categories: [], cities: [{ name: 'X' }], companies: [{ name: 'A' }] });
    expect(view.groups.map((group) => group.type)).toEqual(['company', 'city', 'category', 'widgets']);
  });

  it('reads a flat list, values that are not records as rows, and an echoed query', () => {
    expect(searchView({ q: 'cof', hits: [{ kind: 'City', name: 'Paris' }, 'Lyon', 3, [1, 2], { name: 'x' }], took: 5 })).toEqual({
      query: 'cof',
      groups: [
        { type: 'city', rows: [{ name: 'Paris' }] },
        { type: 'result', rows: [{ name: 'Lyon' }, { name: 3 }, { value: [1, 2] }, { name: 'x' }] },
      ],
      details: [['took', 5]],
    });
  });

  it("keeps a row's own type when it says something else than its group", () => {
    expect(
      searchView({
        companies: [
          { name: 'A', type: 'franchise' },
          { name: 'B', type: 'Company' },
        ],
      }).groups,
    ).toEqual([{ type: 'company', rows: [{ name: 'A', item_type: 'franchise' }, { name: 'B' }] }]);
  });

  it('reads the pulse index a few levels down, no further', () => {
    expect(pulseView({ pulse: { index: { value: 50 } } })).toMatchObject({ index: 50, paths: { index: 'pulse.index.value' } });
    expect(pulseView({ pulse: { index: { value: { mean: 50 } } } }).index).toBeUndefined();
    expect(pulseView(42)).toEqual({ index: 42, details: [], paths: {} });
    expect(fieldPaths(viewOf('pulse', { index: 3 }))).toEqual(['index read from index']);
    expect(fieldPaths(viewOf('search', { companies: [] }))).toEqual([]);
  });
});
