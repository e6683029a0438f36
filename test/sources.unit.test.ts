// The per-source summary as src/views/sources.ts reads it, in tests that load the module afresh: its key
// lists are made as it loads, and the mutation run ties them only to the tests that load it.
import { describe, expect, it, vi } from 'vitest';

const fresh = async () => {
  vi.resetModules();
  return await import('../src/views/sources.js');
};

/** `[{source: 'A'}]` under `levels` nested `sources` keys. */
const nested = (levels: number): unknown => {
  let value: unknown = [{ source: 'A', rating: 4 }];
  for (let i = 0; i < levels; i++) value = { sources: value };
  return value;
};

describe('sourceRows', () => {
  it('looks under the plain keys first, then the loose ones', async () => {
    const { SOURCE_KEYS } = await fresh();
    expect(SOURCE_KEYS[0]).toBe('sources');
    expect(SOURCE_KEYS).toContain('by_source');
    expect(SOURCE_KEYS.at(-1)).toBe('sites');
  });

  it('finds sources up to four `sources` keys further in, and no deeper', async () => {
    const { sourceRows } = await fresh();
    expect([0, 1, 2, 3, 4].map((levels) => sourceRows(nested(levels))?.rows.map((row) => row.source))).toEqual([['A'], ['A'], ['A'], ['A'], ['A']]);
    // One more, and the outer map is read as a map of sources: one named `sources`.
    expect(sourceRows(nested(5))?.rows.map((row) => row.source)).toEqual(['sources']);
    // Further in, a plain list of names is sources as it is at the top.
    expect(sourceRows({ sources: ['Google', 'Yelp'] })?.rows.map((row) => row.source)).toEqual(['Google', 'Yelp']);
  });

  it('takes a map of no source-like values for no sources, and a loose key only where a record looks like a source', async () => {
    const { sourceRows } = await fresh();
    expect(sourceRows({ note: 'x' })).toBeUndefined();
    expect(sourceRows({ positive: 10, negative: 2 }, 'summary')).toBeUndefined();
    expect(sourceRows([{ source: 'A', rating: 4 }, { other: 1 }], 'summary')?.rows.map((row) => row.source)).toEqual(['A', '']);
    expect(sourceRows([{ other: 1 }], 'summary')).toBeUndefined();
  });

  it('names a source of a map by its key, and keeps a name field of its record as a detail', async () => {
    const { sourceRows } = await fresh();
    expect(sourceRows({ google: { name: 'G', rating: 4.5 } })?.rows).toEqual([{ source: 'google', rating: 4.5, reviews: undefined, extra: [['name', 'G']] }]);
  });
});
