// Bodies nested 20,000 deep, far past the engine's JSON.stringify: every format renders them, json
// indents only the first levels, and nothing overflows the stack. Edge bodies: output-edge.test.ts.
import { describe, expect, it } from 'vitest';
import { testIO } from '../src/io.js';
import { createBatchWriter } from '../src/output/batch.js';
import { writeResult } from '../src/output/render.js';
import { MAX_INDENTED_DEPTH } from '../src/text.js';
import { expectFits } from './helpers/fits.js';

/** `leaf` wrapped `depth` times. */
function nested(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = wrap(value);
  return value;
}

/** Far deeper than the engine's JSON.stringify can go (about 4,000 levels in the CLI). */
const DEEP = 20_000;
const DEEP_BODIES: Array<[string, () => unknown, string]> = [
  ['arrays', () => nested(DEEP, 1, (inner) => [inner]), `${'['.repeat(DEEP)}1${']'.repeat(DEEP)}`],
  ['objects', () => nested(DEEP, 1, (inner) => ({ a: inner })), `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`],
  ['companies', () => nested(DEEP, { name: 'x' }, (inner) => ({ company: inner })), `${'{"company":'.repeat(DEEP)}{"name":"x"}${'}'.repeat(DEEP)}`],
  ['envelopes', () => nested(DEEP, { score: 1 }, (inner) => ({ data: inner })), `${'{"data":'.repeat(DEEP)}{"score":1}${'}'.repeat(DEEP)}`],
  ['sources', () => ({ score: 1, sources: nested(DEEP, 1, (inner) => [inner]) }), `{"score":1,"sources":${'['.repeat(DEEP)}1${']'.repeat(DEEP)}}`],
  ['results', () => nested(DEEP, [], (inner) => ({ results: inner })), `${'{"results":'.repeat(DEEP)}[]${'}'.repeat(DEEP)}`],
];

describe('bodies nested 20,000 deep', () => {
  it.each(DEEP_BODIES)('%s: json is the same document, indented only 8 levels deep, so barely larger', async (_name, body, compact) => {
    expect(MAX_INDENTED_DEPTH).toBe(8);
    for (const kind of ['audit', 'search', 'pulse'] as const) {
      const io = testIO();
      await writeResult(io, kind, body(), 'json');
      const text = io.stdoutText();
      expect(text.replace(/\s+/g, '')).toBe(compact);
      expect(text.length).toBeLessThan(compact.length + 500);
      expect(text.startsWith(compact.slice(0, 1))).toBe(true);
    }
  });

  it.each(DEEP_BODIES)('%s: ndjson, csv and table render too', async (_name, body, compact) => {
    for (const kind of ['audit', 'search', 'pulse'] as const) {
      const ndjson = testIO();
      await writeResult(ndjson, kind, body(), 'ndjson');
      if (kind !== 'search') expect(ndjson.stdoutText()).toBe(`${compact}\n`);
      for (const format of ['csv', 'table'] as const) {
        const io = testIO({ columns: 80 });
        await writeResult(io, kind, body(), format);
        expect(io.stdoutText()).not.toBe('');
        if (format === 'table') expectFits(io.stdoutText(), 80);
      }
    }
  });

  it('a batch record holding one is written in every format', async () => {
    const [, body, compact] = DEEP_BODIES[0]!;
    for (const format of ['json', 'ndjson', 'csv', 'table'] as const) {
      const io = testIO();
      const writer = createBatchWriter(io, format);
      writer.write({ query: 'deep', result: body() });
      await writer.end();
      expect(io.stdoutText()).toContain(format === 'json' || format === 'ndjson' ? compact : 'deep');
    }
  });

  it.each(['audit', 'search'] as const)('%s: 100,000 unrecognised records become details, capped in a table', async (kind) => {
    // 200,000 detail rows: appending them with push(...rows) overflowed the stack.
    const body = { stuff: { list: Array.from({ length: 100_000 }, (_, index) => ({ id: index, label: `r${index}` })) } };
    const io = testIO({ columns: 80 });
    await writeResult(io, kind, body, 'table');
    expect(io.stdoutText()).toContain('Stuff list[0] label');
    expect(io.stdoutText()).toContain('199800 more fields');
  });

  it('a shallow body is indented exactly as JSON.stringify does', async () => {
    const body = { a: [1, { b: [[], {}, 'x\u009b'] }], c: { d: { e: { f: { g: { h: { i: { j: 1 } } } } } } } };
    const io = testIO();
    await writeResult(io, 'audit', body, 'json');
    expect(io.stdoutText()).toBe(`${JSON.stringify(body, null, 2).replace('\u009b', '\\u009b')}\n`);
  });
});
