// Bodies at the edge of what a renderer meets: very long wide-character text and very deep nesting.
// They must render (or be shown as details), never crash, in time linear in what is shown.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { testIO } from '../src/io.js';
import { createBatchWriter } from '../src/output/batch.js';
import { MAX_INDENTED_DEPTH } from '../src/text.js';
import { writeResult } from '../src/output/render.js';
import { auditView } from '../src/views/index.js';
import { displayWidth, truncateToWidth } from '../src/output/text-width.js';

/** Long enough that width work quadratic in the text's length would run for tens of minutes. */
const LONG = 2_000_000;

/** Every line fits: one assertion naming the lines that do not (one per line cost seconds on 20,000 lines). */
function expectFits(text: string, width: number): void {
  expect(text.split('\n').filter((line) => displayWidth(line) > width)).toEqual([]);
}

describe('edge bodies', () => {
  it('a search result named with 50,000 wide characters fits an 80-column table', async () => {
    const io = testIO({ columns: 80 });
    await writeResult(io, 'search', { companies: [{ name: '漢'.repeat(50_000), score: 50 }] }, 'table');
    const lines = io.stdoutText().split('\n');
    expect(lines.some((line) => line.includes('漢'))).toBe(true);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  it('sources nested 10,000 deep become details instead of overflowing the stack', async () => {
    let body: unknown = { rating: 4.5, reviews: 10 };
    for (let depth = 0; depth < 10_000; depth++) body = { sources: body };
    expect(() => auditView(body)).not.toThrow();
    const io = testIO({ columns: 80 });
    await writeResult(io, 'audit', body, 'table');
    expect(io.stdoutText()).toContain('Reputation Score');
  });

  it.each([
    ['audit', { name: 'N'.repeat(LONG), score: 50, note: 'd'.repeat(LONG) }],
    ['search', { companies: [{ name: 'N'.repeat(LONG), score: 50 }] }],
    ['pulse', { index: 50, label: 'N'.repeat(LONG) }],
  ] as const)('%s: 2,000,000-character strings are cut to an 80-column table', async (kind, body) => {
    const io = testIO({ columns: 80 });
    await writeResult(io, kind, body, 'table');
    const text = io.stdoutText();
    expectFits(text, 80);
    expect(text).toContain('NNNNNNNNNN');
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(10_000);
  });

  it('a batch summary with a 2,000,000-character company name fits 80 columns', async () => {
    const io = testIO({ columns: 80 });
    const writer = createBatchWriter(io, 'table');
    writer.write({ query: 'q'.repeat(LONG), result: { name: 'N'.repeat(LONG), score: 50 } });
    await writer.end();
    expectFits(io.stdoutText(), 80);
    expect(io.stdoutText()).toContain('NNNNN');
  });

  it.each([
    ['search', { companies: Array.from({ length: 5_000 }, (_, index) => ({ name: `c${index}`, [`own${index}`]: index })) }],
    ['audit', { score: 1, sources: Array.from({ length: 5_000 }, (_, index) => ({ source: `s${index}`, rating: 1, [`own${index}`]: index })) }],
  ] as const)('%s: 5,000 rows each with a field of its own: a table in linear time; csv refuses 5,000 columns', async (kind, body) => {
    const io = testIO({ columns: 80 });
    await writeResult(io, kind, body, 'table');
    expectFits(io.stdoutText(), 80);
    expect(io.stdoutText()).toContain('Own4999');
    const csv = writeResult(testIO(), kind, body, 'csv');
    await expect(csv).rejects.toThrow(UsageError);
    await expect(csv).rejects.toThrow(/^the answer has 5,00\d different fields, too many for CSV columns \(at most 1,000\)$/);
  });

  it.each([
    ['Latin', 'a'],
    ['wide', '漢'],
    ['emoji with a modifier', '👍🏽'],
    ['combining marks', 'e\u0301'],
    ['zero-width spaces between letters', 'a\u200b'],
  ])('%s text is cut at 2,000,000 characters and measured at 200,000 like short text', (_name, unit) => {
    const short = unit.repeat(50);
    expect(truncateToWidth(unit.repeat(LONG / unit.length), 40)).toBe(truncateToWidth(short, 40));
    expect(displayWidth(unit.repeat(LONG / 10 / unit.length))).toBe((displayWidth(short) * LONG) / 10 / short.length);
  });

  it.each([
    ['zero-width spaces', '\u200b'],
    ['combining marks without a base (one grapheme)', '\u0301'],
  ])('2,000,000 %s are cut after a bounded number of characters, within the width', (_name, unit) => {
    const cut = truncateToWidth(unit.repeat(LONG), 40);
    expect(cut.length).toBeLessThan(LONG / 100);
    expect(cut.endsWith('…')).toBe(true);
    expect(displayWidth(cut)).toBeLessThanOrEqual(40);
  });
});

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
