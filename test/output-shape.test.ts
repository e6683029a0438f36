import { describe, expect, it } from 'vitest';
import { flatten } from '../src/views/fields.js';
import { auditView, pulseView, searchView } from '../src/views/index.js';
import { expectNothingLost } from './fixtures/nothing-lost.js';

const GARBAGE: unknown[] = [
  null,
  'oops',
  42,
  true,
  {},
  [],
  [1, 'two', null],
  { deeply: { nested: { a: [{ b: { c: { d: { e: { f: { g: { h: 1 } } } } } } }] } } },
];

describe('auditView', () => {
  it('reads the sandbox shape: company record, score with its scale, sources as records', () => {
    const body = {
      company: { id: 'c-1', name: 'Кофейня Ромашка', city: 'Москва', category: 'Кофейня' },
      score: 87.4,
      score_scale: 100,
      sources: [{ source: 'Google Maps', rating: 4.6, reviews: 1234 }],
      reviews_total: 1500,
      updated_at: '2026-11-01T00:00:00Z',
    };
    expect(auditView(body)).toEqual({
      name: 'Кофейня Ромашка',
      score: 87.4,
      scoreMax: 100,
      sources: [{ source: 'Google Maps', rating: 4.6, reviews: 1234, extra: [] }],
      details: [
        ['company.id', 'c-1'],
        ['company.city', 'Москва'],
        ['company.category', 'Кофейня'],
        ['reviews_total', 1500],
        ['updated_at', '2026-11-01T00:00:00Z'],
      ],
      paths: { name: 'company.name', score: 'score', scoreMax: 'score_scale', sources: 'sources' },
    });
  });

  it('reads a data envelope with a score record and sources as a map of records', () => {
    const body = {
      data: {
        name: 'Blue Bottle',
        score: { value: 4.2, max: 5, trend: 'up' },
        by_source: { google: { rating: 4.5, reviews: 10, url: 'https://g' }, yelp: { avg: 3.9, count: 7 } },
      },
      meta: { request_id: 'r-9' },
    };
    expect(auditView(body)).toEqual({
      name: 'Blue Bottle',
      score: 4.2,
      scoreMax: 5,
      sources: [
        { source: 'google', rating: 4.5, reviews: 10, extra: [['url', 'https://g']] },
        { source: 'yelp', rating: 3.9, reviews: 7, extra: [] },
      ],
      details: [
        ['meta.request_id', 'r-9'],
        ['score.trend', 'up'],
      ],
      paths: { name: 'data.name', score: 'data.score.value', scoreMax: 'data.score.max', sources: 'data.by_source' },
    });
  });

  it('reads JSON:API attributes, reputation_score and sources as a map of numbers', () => {
    const body = {
      data: { type: 'company', id: '7', attributes: { company_name: 'Acme', reputation_score: '72.5', sources: { google: 4.5, yandex: '4.1', note: 'n/a' } } },
    };
    expect(auditView(body)).toEqual({
      name: 'Acme',
      score: 72.5,
      scoreMax: undefined,
      sources: [
        { source: 'google', rating: 4.5, extra: [] },
        { source: 'yandex', rating: 4.1, extra: [] },
      ],
      details: [
        ['data.type', 'company'],
        ['data.id', '7'],
        ['sources.note', 'n/a'],
      ],
      paths: { name: 'data.attributes.company_name', score: 'data.attributes.reputation_score', sources: 'data.attributes.sources' },
    });
  });

  it('reads a result envelope with reputation.score and platforms under other field names', () => {
    const body = {
      result: {
        company: 'Café Zed',
        reputation: { score: 91, scale: 100 },
        platforms: [{ platform: '2GIS', score: 4.8, review_count: 300, extra: { verified: true } }, { provider: 'Yelp', reviews_count: 12 }, 'Tripadvisor', 5],
        tags: ['coffee', 'wifi'],
      },
    };
    const view = auditView(body);
    expect(view).toEqual({
      name: 'Café Zed',
      score: 91,
      scoreMax: 100,
      sources: [
        { source: '2GIS', rating: 4.8, reviews: 300, extra: [['extra.verified', 'true']] },
        { source: 'Yelp', rating: undefined, reviews: 12, extra: [] },
        { source: 'Tripadvisor', extra: [] },
      ],
      details: [
        ['platforms[3]', 5],
        ['tags', 'coffee, wifi'],
      ],
      paths: { name: 'result.company', score: 'result.reputation.score', scoreMax: 'result.reputation.scale', sources: 'result.platforms' },
    });
  });

  it('finds the score and sources inside the company record when they are not at the top', () => {
    const body = { company: { name: 'Nested', reputationScore: 3.3, bySource: [{ site: 'x', rating: 3 }] }, generated: 'now' };
    const view = auditView(body);
    expect(view).toMatchObject({ name: 'Nested', score: 3.3, sources: [{ source: 'x', rating: 3, extra: [] }] });
    expect(view.details).toEqual([['generated', 'now']]);
  });

  it('keeps a second score and a top-level name as details rather than losing them', () => {
    const body = { name: 'Top', company: { name: 'Inner', score: 1 }, score: 2, rating: 3 };
    const view = auditView(body);
    expect(view).toMatchObject({ name: 'Inner', score: 2 });
    expect(view.details).toEqual([
      ['company.score', 1],
      ['name', 'Top'],
      ['rating', 3],
    ]);
  });

  it('does not take a loose `summary` of counts for sources', () => {
    const view = auditView({ score: 50, summary: { positive: 10, negative: 2 } });
    expect(view.sources).toEqual([]);
    expect(view.details).toEqual([
      ['summary.positive', 10],
      ['summary.negative', 2],
    ]);
  });

  it.each(GARBAGE.map((body) => [JSON.stringify(body), body]))('never crashes and keeps everything for %s', (_label, body) => {
    const view = auditView(body);
    expect(view.sources).toEqual([]);
    expect(view.score).toBeUndefined();
    expectNothingLost(body, view);
  });

  it('survives a body nested far deeper than any real one', () => {
    let body: unknown = { score: 1 };
    for (let depth = 0; depth < 20_000; depth += 1) body = { next: body };
    expect(() => auditView({ score: 5, deep: body })).not.toThrow();
    expect(auditView({ score: 5, deep: body }).score).toBe(5);
  });

  it('keeps every element of a huge array', () => {
    const sources = Array.from({ length: 5000 }, (_, index) => ({ source: `s${index}`, rating: index }));
    expect(auditView({ sources }).sources).toHaveLength(5000);
  });
});

describe('searchView', () => {
  it('reads the sandbox shape: grouped arrays with the query echoed', () => {
    const body = {
      query: 'coffee',
      companies: [{ id: 'c-1', name: 'Coffee A', city: 'Москва', category: 'Кофейня', score: 87.4 }],
      cities: [{ name: 'Москва', companies: 12 }],
      categories: [{ name: 'Кофейня', companies: 40 }],
    };
    expect(searchView(body)).toEqual({
      query: 'coffee',
      groups: [
        { type: 'company', rows: [{ id: 'c-1', name: 'Coffee A', city: 'Москва', category: 'Кофейня', score: 87.4 }] },
        { type: 'city', rows: [{ name: 'Москва', companies: 12 }] },
        { type: 'category', rows: [{ name: 'Кофейня', companies: 40 }] },
      ],
      details: [],
    });
  });

  it('reads groups inside `results` inside a `data` envelope, with strings as names', () => {
    const body = { data: { results: { cities: ['Казань'], companies: [], total: 1 } }, took_ms: 3 };
    expect(searchView(body)).toEqual({
      groups: [
        { type: 'company', rows: [] },
        { type: 'city', rows: [{ name: 'Казань' }] },
      ],
      details: [
        ['took_ms', 3],
        ['results.total', 1],
      ],
      query: undefined,
    });
  });

  it('reads a flat `results` list with a type on each result', () => {
    const body = {
      q: 'tea',
      results: [
        { type: 'Category', name: 'Tea' },
        { type: 'company', name: 'Tea House', rating: 4 },
        { kind: 'city', name: 'Tver' },
        { type: 'region', name: 'North' },
      ],
    };
    expect(searchView(body)).toEqual({
      query: 'tea',
      groups: [
        { type: 'company', rows: [{ name: 'Tea House', rating: 4 }] },
        { type: 'city', rows: [{ name: 'Tver' }] },
        { type: 'category', rows: [{ name: 'Tea' }] },
        { type: 'region', rows: [{ name: 'North' }] },
      ],
      details: [],
    });
  });

  it('reads a top-level array, and results without a type', () => {
    const body = [{ type: 'city', name: 'Omsk' }, { name: 'Untyped' }, 7];
    expect(searchView(body)).toEqual({
      groups: [
        { type: 'city', rows: [{ name: 'Omsk' }] },
        { type: 'result', rows: [{ name: 'Untyped' }, { name: 7 }] },
      ],
      details: [],
    });
  });

  it('keeps a grouped result whose own `type` means something else, and unknown lists as groups', () => {
    const body = {
      companies: [
        { name: 'A', type: 'cafe' },
        { name: 'B', type: 'company' },
      ],
      suggestions: [{ text: 'coffee shop' }],
    };
    expect(searchView(body).groups).toEqual([
      { type: 'company', rows: [{ name: 'A', item_type: 'cafe' }, { name: 'B' }] },
      { type: 'suggestions', rows: [{ text: 'coffee shop' }] },
    ]);
  });

  it('takes a key or type word named like an Object method (constructor, toString) as a word, not a group', () => {
    const body = { constructor: [{ name: 'A' }], results: [{ type: 'toString', name: 'B' }] };
    expect(searchView(body).groups).toEqual([
      { type: 'constructor', rows: [{ name: 'A' }] },
      { type: 'toString', rows: [{ name: 'B' }] },
    ]);
  });

  it.each(GARBAGE.map((body) => [JSON.stringify(body), body]))('never crashes and keeps everything for %s', (_label, body) => {
    const view = searchView(body);
    expectNothingLost(body, view);
  });
});

describe('pulseView', () => {
  it.each([
    [
      'the sandbox shape',
      { index: 71.234, companies: 2400, updated_at: 'x' },
      71.234,
      [
        ['companies', 2400],
        ['updated_at', 'x'],
      ],
      { index: 'index' },
    ],
    ['a data envelope with market_index', { data: { market_index: '64.5' }, meta: { v: 2 } }, 64.5, [['meta.v', 2]], { index: 'data.market_index' }],
    [
      'a result envelope with a nested pulse record',
      { result: { pulse: { value: 3.9, max: 5 }, as_of: 'today' } },
      3.9,
      [
        ['pulse.max', 5],
        ['as_of', 'today'],
      ],
      { index: 'result.pulse.value' },
    ],
    ['mean beside other numbers', { mean: 55, count: 10 }, 55, [['count', 10]], { index: 'mean' }],
    ['average', { average: 12 }, 12, [], { index: 'average' }],
    ['a bare number', 42.5, 42.5, [], {}],
  ])('reads %s', (_name, body, index, details, paths) => {
    expect(pulseView(body)).toEqual({ index, details, paths });
  });

  it('falls through an index that is not a number to the next candidate, keeping it as a detail', () => {
    expect(pulseView({ index: 'n/a', score: 61 })).toEqual({ index: 61, details: [['index', 'n/a']], paths: { index: 'score' } });
  });

  it.each(GARBAGE.filter((body) => typeof body !== 'number').map((body) => [JSON.stringify(body), body]))(
    'never crashes and keeps everything for %s',
    (_label, body) => {
      const view = pulseView(body);
      expect(view.index).toBeUndefined();
      expectNothingLost(body, view);
    },
  );
});

describe('flatten', () => {
  it('uses dotted keys, indexes arrays of records and joins arrays of scalars', () => {
    expect(flatten({ a: { b: 1, c: [{ d: null }], e: ['x', 2] }, f: {}, g: [] })).toEqual([
      ['a.b', 1],
      ['a.c[0].d', 'null'],
      ['a.e', 'x, 2'],
      ['f', '{}'],
      ['g', '[]'],
    ]);
  });
});
