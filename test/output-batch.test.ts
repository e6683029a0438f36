import { describe, expect, it } from 'vitest';
import type { Format } from '../src/deps.js';
import { testIO } from '../src/io.js';
import { batchShowsChange, createBatchWriter, type BatchRecord } from '../src/output/batch.js';
import { batchItem, batchSummary } from '../src/output/batch-record.js';
import { serializeJson } from '../src/text.js';

const RECORDS: BatchRecord[] = [
  {
    query: 'Ромашка',
    result: {
      company: { name: 'Кофейня Ромашка' },
      score: 87.4,
      score_scale: 100,
      sources: [
        { source: 'Google', rating: 4.6, reviews: 12 },
        { source: 'Yandex', rating: 4.2, reviews: 3 },
      ],
    },
  },
  { query: 'Bare', result: { data: { name: 'Bare Co', rating: 3.5 } } },
  { query: 'Nope', error: { exit: 3, message: 'company not found: Nope' } },
  { query: '=evil', error: { exit: 1, message: 'server error\u001b[31m (500)' } },
  { query: 'Ромашка', result: { name: 'Dup', score: 1 } },
];

async function writeAll(format: Format, records: readonly BatchRecord[], columns = 80, csvSources = false): Promise<{ text: string; afterEach: string[] }> {
  const io = testIO({ columns });
  const writer = createBatchWriter(io, format, { csvSources });
  const afterEach: string[] = [];
  for (const record of records) {
    expect(writer.write(record)).toBe(true);
    afterEach.push(io.stdoutText());
  }
  await writer.end();
  return { text: io.stdoutText(), afterEach };
}

describe('batchShowsChange', () => {
  it("is true exactly where the writer's output differs when it is given a change (the history is read for no other)", async () => {
    const change = { previous: 90, delta: -2.6, at: '2026-11-01T00:00:00Z', direction: 'down' as const };
    const written = async (format: Format, csvSources: boolean, withChange: boolean) => {
      const io = testIO({ columns: 120 });
      const writer = createBatchWriter(io, format, { csvSources });
      writer.write(RECORDS[0]!, withChange ? change : undefined);
      await writer.end();
      return io.stdoutText();
    };
    const shown: string[] = [];
    for (const format of ['table', 'json', 'ndjson', 'csv', 'markdown'] as const) {
      for (const csvSources of [false, true]) {
        const differs = (await written(format, csvSources, true)) !== (await written(format, csvSources, false));
        expect(batchShowsChange(format, { csvSources }), `${format} csvSources=${csvSources}`).toBe(differs);
        if (differs) shown.push(`${format}${csvSources ? ' --csv-sources' : ''}`);
      }
    }
    expect(shown).toEqual(['table', 'table --csv-sources', 'csv', 'markdown', 'markdown --csv-sources']);
  });
});

describe('createBatchWriter', () => {
  it('ndjson: streams one compact record a line, in input order, duplicates included', async () => {
    const { text, afterEach } = await writeAll('ndjson', RECORDS);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(RECORDS);
    expect(afterEach[0]).toBe(`${JSON.stringify(RECORDS[0])}\n`);
  });

  it('json: streams a valid array, and writes [] for no records', async () => {
    const { text, afterEach } = await writeAll('json', RECORDS);
    expect(JSON.parse(text)).toEqual(RECORDS);
    expect(afterEach[0]).toBe(`[\n${JSON.stringify(RECORDS[0])}`);
    expect((await writeAll('json', [])).text).toBe('[]\n');
  });

  it('json and ndjson: escape C1 controls so a record cannot drive the terminal', async () => {
    const record: BatchRecord = { query: 'x\u009b2J', result: { name: 'a\u202eb' } };
    for (const format of ['json', 'ndjson'] as const) {
      const { text } = await writeAll(format, [record]);
      expect(text).toContain('\\u009b2J');
      expect(text).toContain('\\u202e');
    }
  });

  it('csv: one row per company by default (city and category where the body gives them), one per error', async () => {
    const records: BatchRecord[] = [
      {
        query: 'Ромашка',
        result: {
          company: { name: 'Кофейня Ромашка', city: 'Москва', category: 'Кофейня' },
          score: 87.4,
          sources: [
            { source: 'Google', rating: 4.6, reviews: 12 },
            { source: 'Yandex', rating: 4.2, reviews: 3 },
          ],
        },
      },
      ...RECORDS.slice(1),
    ];
    const { text, afterEach } = await writeAll('csv', records);
    expect(text).toBe(
      'query,name,city,category,score,reviews,change,error\n' +
        'Ромашка,Кофейня Ромашка,Москва,Кофейня,87.4,15,,\n' +
        'Bare,Bare Co,,,3.5,,,\n' +
        'Nope,,,,,,,company not found: Nope\n' +
        "'=evil,,,,,,,server error (500)\n" +
        'Ромашка,Dup,,,1,,,\n',
    );
    expect(afterEach[0]?.split('\n')).toHaveLength(3);
    expect((await writeAll('csv', [])).text).toBe('query,name,city,category,score,reviews,change,error\n');
  });

  it('csv with --csv-sources: a header, a row per source, one row for a company without sources and one per error', async () => {
    const { text, afterEach } = await writeAll('csv', RECORDS, 80, true);
    expect(text).toBe(
      'query,company,score,source,rating,reviews,error\n' +
        'Ромашка,Кофейня Ромашка,87.4,Google,4.6,12,\n' +
        'Ромашка,Кофейня Ромашка,87.4,Yandex,4.2,3,\n' +
        'Bare,Bare Co,3.5,,,,\n' +
        'Nope,,,,,,company not found: Nope\n' +
        "'=evil,,,,,,server error (500)\n" +
        'Ромашка,Dup,1,,,,\n',
    );
    expect(afterEach[0]?.split('\n')).toHaveLength(4);
    expect((await writeAll('csv', [], 80, true)).text).toBe('query,company,score,source,rating,reviews,error\n');
  });

  it('table: buffers, then draws one summary row per input name', async () => {
    const { text, afterEach } = await writeAll('table', RECORDS);
    expect(afterEach.every((written) => written === '')).toBe(true);
    expect(text).toMatch(/│ Company +│ +Score │ Sources │ Status +│/);
    expect(text).toMatch(/│ Кофейня Ромашка \(query: Ромашка\) +│ +87\.4 \/ 100 │ +2 │ ok +│/);
    expect(text).toMatch(/│ Bare Co \(query: Bare\) +│ +3\.5 │ +0 │ ok +│/);
    expect(text).toMatch(/│ Dup \(query: Ромашка\) +│ +1\.0 │ +0 │ ok +│/); // scores share their decimals
    expect(text).toMatch(/│ Nope +│ +— │ +— │ not found +│/);
    expect(text).toMatch(/│ =evil +│ +— │ +— │ server error \(500\) +│/);
    expect(text).not.toContain('\u001b');
    expect(Math.max(...text.split('\n').map((line) => Array.from(line).length))).toBeLessThanOrEqual(80);
  });

  it('table: one column for a name the company answers to, and the status words of the summary line', async () => {
    const { text } = await writeAll('table', [
      { query: 'blue  bottle COFFEE', result: { company: { name: 'Blue Bottle Coffee' }, score: 90 } },
      { query: 'Late', error: { exit: 5, message: 'not audited: rate limit reached' } },
    ]);
    expect(text).toMatch(/│ Blue Bottle Coffee +│ +90\.0 │ +0 │ ok +│/);
    expect(text).toMatch(/│ Late +│ +— │ +— │ rate limited +│/);
  });

  it('table: a card per name where the columns do not fit, the query noted where it differs', async () => {
    const { text } = await writeAll('table', RECORDS, 40);
    expect(Math.max(...text.split('\n').map((line) => Array.from(line).length))).toBeLessThanOrEqual(40);
    expect(text).toContain(
      '│ Company │ Кофейня Ромашка │\n│ Query   │ Ромашка         │\n│ Score   │ 87.4 / 100      │\n' +
        '│ Sources │ 2               │\n│ Status  │ ok              │\n',
    );
    expect(text).toContain('│ Company │ Nope      │\n│ Status  │ not found │\n');
  });

  it('stops streaming and reports false once stdout is closed', async () => {
    const io = testIO();
    let writes = 0;
    io.out = () => {
      writes += 1;
      return false;
    };
    const writer = createBatchWriter(io, 'ndjson');
    expect(writer.write(RECORDS[0]!)).toBe(false);
    expect(writer.write(RECORDS[1]!)).toBe(false);
    await writer.end();
    expect(writes).toBe(1);
  });
});

describe('batch records (output/batch-record.ts)', () => {
  it('a batch record becomes the summary a table shows', () => {
    expect(batchSummary(batchItem({ query: 'a', result: { name: 'A', score: 3, score_scale: 5, sources: [{ source: 'g' }] } }))).toEqual({
      query: 'a',
      company: 'A',
      score: 3,
      scoreMax: 5,
      sources: 1,
    });
    expect(batchSummary(batchItem({ query: 'b', error: { exit: 3, message: 'no company' } }))).toEqual({
      query: 'b',
      error: { exit: 3, message: 'no company' },
    });
  });
});

describe("a record's result given as JSON text", () => {
  const nested = (depth: number): unknown => (depth === 0 ? 'end' : { [`l${depth}`]: [nested(depth - 1)] });
  const results: unknown[] = [
    ...RECORDS.flatMap((record) => ('result' in record ? [record.result] : [])),
    { text: 'csi \u009b[31m, next line \u0085, separators \u2028\u2029, bidi \u202e, emoji 😀, quote " and \\' },
    [1, -0, 1e21, null, true, { '': [] }],
    nested(40),
  ];

  it('is written byte for byte as the result serialized again (ndjson, json, json in colour)', async () => {
    for (const [format, colorOut] of [
      ['ndjson', false],
      ['json', false],
      ['json', true],
    ] as const) {
      const records = results.map((result, i) => ({ query: `q${i} \u009b`, result }));
      const written = async (withText: boolean) => {
        const io = testIO({ colorOut });
        const writer = createBatchWriter(io, format);
        for (const record of records) writer.write(record, undefined, withText ? serializeJson(record.result) : undefined);
        await writer.end();
        return io.stdoutText();
      };
      const plain = await written(false);
      expect(plain).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202e]/);
      expect(await written(true), `${format}${colorOut ? ' in colour' : ''}`).toBe(plain);
    }
  });
});
