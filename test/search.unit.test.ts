// The search view (src/views/search.ts) as `rep search` shows it: companies, cities and categories
// (the server sends at most 5 of each), grouped or flat, inside envelopes or not, and every field that
// is no result kept as a detail. The module is loaded anew in each test: the order of the groups is a
// table made as it loads, and the mutation run ties it only to the tests that load it (CONTRIBUTING.md).
import { describe, expect, it, vi } from 'vitest';

const fresh = async () => {
  vi.resetModules();
  return await import('../src/views/search.js');
};

describe('searchView: the order of the groups', () => {
  it('puts companies, cities and categories first, in that order, then other groups as they came', async () => {
    const { searchView } = await fresh();
    const body = {
      widgets: [{ id: 1 }],
      categories: [{ name: 'Tea' }],
      suggestions: [{ text: 'tea shop' }],
      cities: [{ name: 'Tver' }],
      companies: [{ name: 'Tea House' }],
    };
    expect(searchView(body).groups.map((group) => group.type)).toEqual(['company', 'city', 'category', 'widgets', 'suggestions']);
  });

  it('orders a flat list the same way, whatever order its results came in', async () => {
    const { searchView } = await fresh();
    const body = {
      results: [
        { type: 'region', name: 'North' },
        { type: 'category', name: 'Tea' },
        { type: 'city', name: 'Tver' },
        { type: 'company', name: 'Tea House' },
        { type: 'category', name: 'Coffee' },
      ],
    };
    expect(searchView(body).groups).toEqual([
      { type: 'company', rows: [{ name: 'Tea House' }] },
      { type: 'city', rows: [{ name: 'Tver' }] },
      { type: 'category', rows: [{ name: 'Tea' }, { name: 'Coffee' }] },
      { type: 'region', rows: [{ name: 'North' }] },
    ]);
  });
});

describe('searchView: groups', () => {
  it('gathers one type from every key that names it, an empty list dropping none of them', async () => {
    const { searchView } = await fresh();
    const body = {
      results: [{ type: 'company', name: 'A' }],
      companies: [],
      businesses: [{ name: 'B' }],
      firms: [{ name: 'C' }],
    };
    expect(searchView(body).groups).toEqual([{ type: 'company', rows: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] }]);
  });

  it('makes a row of a result that is no record: text, numbers, true, false and null as names, a list as a value', async () => {
    const { searchView } = await fresh();
    expect(searchView({ results: ['Lyon', 3, true, false, null, [1, 2]] }).groups).toEqual([
      { type: 'result', rows: [{ name: 'Lyon' }, { name: 3 }, { name: true }, { name: false }, { name: null }, { value: [1, 2] }] },
    ]);
    expect(searchView({ cities: ['Omsk', null] }).groups).toEqual([{ type: 'city', rows: [{ name: 'Omsk' }, { name: null }] }]);
  });

  it('takes an unknown list of records as a group, but keeps an empty or mixed one as details', async () => {
    const { searchView } = await fresh();
    expect(searchView({ companies: [{ name: 'A' }], suggestions: [{ text: 'tea' }, { text: 'teas' }], tags: [], extras: [{ id: 1 }, 'cafe'] })).toEqual({
      groups: [
        { type: 'company', rows: [{ name: 'A' }] },
        { type: 'suggestions', rows: [{ text: 'tea' }, { text: 'teas' }] },
      ],
      details: [
        ['tags', '[]'],
        ['extras[0].id', 1],
        ['extras[1]', 'cafe'],
      ],
      query: undefined,
    });
  });

  it('reads results nested three records deep, and keeps a fourth level as details', async () => {
    const { searchView } = await fresh();
    expect(searchView({ results: { results: { results: { cities: ['Omsk'] } } } }).groups).toEqual([{ type: 'city', rows: [{ name: 'Omsk' }] }]);
    expect(searchView({ results: { results: { results: { results: { cities: ['Omsk'] } } } } })).toEqual({
      groups: [],
      details: [['results.results.results.results.cities', 'Omsk']],
      query: undefined,
    });
  });
});

describe('searchView: envelopes and the fields around the results', () => {
  it('reads groups where they are, leaving an envelope-like key beside them as details', async () => {
    const { searchView } = await fresh();
    expect(searchView({ companies: [{ name: 'A' }], result: { total: 1 } })).toEqual({
      groups: [{ type: 'company', rows: [{ name: 'A' }] }],
      details: [['result.total', 1]],
      query: undefined,
    });
    expect(searchView({ results: [{ type: 'city', name: 'Tver' }], response: { took: 3 } })).toEqual({
      groups: [{ type: 'city', rows: [{ name: 'Tver' }] }],
      details: [['response.took', 3]],
      query: undefined,
    });
  });

  it('opens `data` and other envelopes down to the results, keeping what was beside them', async () => {
    const { searchView } = await fresh();
    expect(searchView({ data: [{ type: 'city', name: 'Omsk' }], meta: { total: 1 } })).toEqual({
      groups: [{ type: 'city', rows: [{ name: 'Omsk' }] }],
      details: [['meta.total', 1]],
    });
    expect(searchView({ response: { payload: { q: 'tea', categories: [{ name: 'Tea' }] } }, status: 'ok' })).toEqual({
      query: 'tea',
      groups: [{ type: 'category', rows: [{ name: 'Tea' }] }],
      details: [['status', 'ok']],
    });
  });

  it('keeps an envelope that holds no record or list as a field, not as the answer', async () => {
    const { searchView } = await fresh();
    expect(searchView({ data: 'no matches', took: 3 })).toEqual({
      groups: [],
      details: [
        ['data', 'no matches'],
        ['took', 3],
      ],
      query: undefined,
    });
  });
});
