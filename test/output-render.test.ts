import { describe, expect, it } from 'vitest';
import type { Format } from '../src/deps.js';
import { testIO } from '../src/io.js';
import type { Endpoint } from '../src/views/index.js';
import { showsChange, writeResult, writeView } from '../src/output/render.js';
import { viewOf } from '../src/views/index.js';

const AUDIT = {
  company: { id: 'c-1', name: 'Кофейня Ромашка', city: 'Москва', category: 'Кофейня' },
  score: 87.4,
  score_scale: 100,
  sources: [
    { source: 'Google Maps', rating: 4.6, reviews: 1234 },
    { source: 'Yandex', rating: 4.1, reviews: 266, url: 'https://example.com/a' },
  ],
  reviews_total: 1500,
  updated_at: '2026-11-01T00:00:00Z',
};
const SEARCH = {
  query: 'coffee',
  companies: [{ id: 'c-1', name: 'Coffee, "A"', city: 'Москва', category: 'Кофейня', score: 87.4 }],
  cities: [{ name: 'Москва', companies: 12 }],
  categories: [{ name: 'Кофейня', companies: 40 }],
};
const PULSE = { index: 71.234, companies: 2400, updated_at: '2026-11-01T00:00:00Z' };
const HOSTILE = {
  name: 'Evil\u001b]0;pwned\u0007 \u009b31m Co\u202e',
  score: 10,
  note: 'line\u0085break \u2066x\u2069',
  sources: [{ source: '\u001b[2J=cmd', rating: 1 }],
};

const SGR = /\u001b\[[0-9;]*m/g;
const TERMINAL_ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

async function render(kind: Endpoint, body: unknown, format: Format, options: { columns?: number; colorOut?: boolean } = {}): Promise<string> {
  const io = testIO(options);
  await writeResult(io, kind, body, format);
  expect(io.stderrText()).toBe('');
  return io.stdoutText();
}

function visibleWidths(text: string): number[] {
  return text
    .replace(SGR, '')
    .split('\n')
    .map((line) => Array.from(line).length);
}

describe('json', () => {
  it.each([
    ['audit', AUDIT],
    ['search', SEARCH],
    ['pulse', PULSE],
    ['audit', HOSTILE],
    ['audit', null],
    ['search', [1, 'x', { y: [] }]],
  ] as const)('writes the %s body unchanged in meaning, pretty, with a final newline', async (kind, body) => {
    const out = await render(kind, body, 'json');
    expect(JSON.parse(out)).toEqual(body);
    expect(out).toBe(`${out.trimEnd()}\n`);
    expect(out).not.toMatch(TERMINAL_ACTIVE);
  });

  it('escapes C1 controls and bidi marks as \\u escapes', async () => {
    const out = await render('audit', HOSTILE, 'json');
    expect(out).toContain('\\u009b31m');
    expect(out).toContain('\\u202e');
    expect(out).toContain('\\u0085');
    expect(out).toContain('\\u001b]0;pwned\\u0007');
  });

  it('is indented with two spaces', async () => {
    expect(await render('pulse', { index: 1 }, 'json')).toBe('{\n  "index": 1\n}\n');
  });
});

describe('ndjson', () => {
  it('writes audit and pulse bodies compact on one line', async () => {
    for (const [kind, body] of [
      ['audit', AUDIT],
      ['pulse', PULSE],
      ['audit', HOSTILE],
    ] as const) {
      const out = await render(kind, body, 'ndjson');
      expect(out.endsWith('\n')).toBe(true);
      expect(out.slice(0, -1)).not.toContain('\n');
      expect(JSON.parse(out)).toEqual(body);
      expect(out).not.toMatch(TERMINAL_ACTIVE);
    }
  });

  it('writes one search result a line, each with its type', async () => {
    const lines = (await render('search', SEARCH, 'ndjson'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { type: 'company', id: 'c-1', name: 'Coffee, "A"', city: 'Москва', category: 'Кофейня', score: 87.4 },
      { type: 'city', name: 'Москва', companies: 12 },
      { type: 'category', name: 'Кофейня', companies: 40 },
    ]);
  });

  it('writes nothing for a search without matches', async () => {
    expect(await render('search', { query: 'zzz', companies: [], cities: [], categories: [] }, 'ndjson')).toBe('');
  });

  it('stops writing once stdout is closed', async () => {
    const io = testIO();
    let lines = 0;
    io.out = () => {
      lines += 1;
      return false;
    };
    await writeResult(io, 'search', SEARCH, 'ndjson');
    expect(lines).toBe(1);
  });
});

describe('csv', () => {
  it('writes a header and a row per source, with extra source fields as extra columns (LF line ends)', async () => {
    expect(await render('audit', AUDIT, 'csv')).toBe(
      'company,score,source,rating,reviews,url\n' +
        'Кофейня Ромашка,87.4,Google Maps,4.6,1234,\n' +
        'Кофейня Ромашка,87.4,Yandex,4.1,266,https://example.com/a\n',
    );
  });

  it('writes one row for a company without sources', async () => {
    expect(await render('audit', { name: 'Solo', score: 3 }, 'csv')).toBe('company,score,source,rating,reviews\nSolo,3,,,\n');
  });

  it('writes search results with their type first, quoting as RFC 4180 says', async () => {
    expect(await render('search', SEARCH, 'csv')).toBe(
      'type,name,id,city,category,score,companies\n' +
        'company,"Coffee, ""A""",c-1,Москва,Кофейня,87.4,\n' +
        'city,Москва,,,,,12\n' +
        'category,Кофейня,,,,,40\n',
    );
  });

  it('writes the pulse as one row', async () => {
    expect(await render('pulse', PULSE, 'csv')).toBe('index,companies,updated_at\n71.234,2400,2026-11-01T00:00:00Z\n');
  });

  it.each([
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', `"'\tcmd"`],
    ['Mitte;=1+1;x', `"Mitte;'=1+1;x"`],
    ['\u001b[31m=1+1', "'=1+1"],
    ['-5', '-5'],
    ['-1.5e3', '-1.5e3'],
    ['-1-1', "'-1-1"],
    ['multi\nline', '"multi\nline"'],
  ])('guards and quotes the cell %j', async (name, cell) => {
    const out = await render('audit', { name, score: 1 }, 'csv');
    expect(out.split('\n').slice(1).join('\n')).toBe(`${cell},1,,,\n`);
  });

  it('leaves negative numbers alone: they evaluate to themselves', async () => {
    expect(await render('pulse', { index: -3.5, delta: -1 }, 'csv')).toBe('index,delta\n-3.5,-1\n');
  });

  it('scrubs escape sequences and controls from every cell', async () => {
    const out = await render('audit', HOSTILE, 'csv');
    expect(out).not.toMatch(TERMINAL_ACTIVE);
    expect(out).toContain("'=cmd");
  });
});

describe('table', () => {
  const LONG_NAME = 'The Extraordinarily Long-Named International Coffee Roasting Company of Greater Saint Petersburg and Environs';
  const WIDE_AUDIT = {
    company: { name: LONG_NAME, description: 'x'.repeat(300) },
    score: 64.25,
    score_scale: 100,
    sources: [
      { source: `Google Maps ${'very '.repeat(20)}long`, rating: 4.6, reviews: 123456, url: `https://example.com/${'path/'.repeat(30)}`, note: 'n'.repeat(90) },
      { source: 'Yandex', rating: 4.1, reviews: 266, owner: 'Ромашка'.repeat(20) },
    ],
  };

  it('shows the company, the score standing out and a row per source', async () => {
    const out = await render('audit', AUDIT, 'table');
    expect(out).toContain('Кофейня Ромашка');
    expect(out).toContain('Reputation Score  87.4 / 100');
    expect(out).toMatch(/│ Google Maps +│ +4\.6 │ +1,234 │/);
    expect(out).toMatch(/│ Reviews total +│ 1,500 +│/);
    expect(out).toMatch(/│ Company city +│ Москва +│/);
  });

  it('colours the score only when colour is on', async () => {
    expect(await render('audit', AUDIT, 'table', { colorOut: false })).not.toContain('\u001b');
    const coloured = await render('audit', AUDIT, 'table', { colorOut: true });
    expect(coloured).toContain('\u001b[32m\u001b[1m87.4 / 100');
  });

  it.each([80, 60, 120])('never draws a line wider than %i columns', async (columns) => {
    for (const [kind, body] of [
      ['audit', WIDE_AUDIT],
      ['search', { query: LONG_NAME, companies: [{ name: LONG_NAME, city: LONG_NAME, category: 'c', score: 1, extra: LONG_NAME }] }],
      ['pulse', { index: 1, note: LONG_NAME.repeat(3) }],
    ] as const) {
      const out = await render(kind, body, 'table', { columns, colorOut: true });
      expect(Math.max(...visibleWidths(out))).toBeLessThanOrEqual(columns);
      expect(out).toContain('…');
    }
  });

  it('lists records as key/value blocks when their columns cannot fit', async () => {
    const row = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`field_${index}`, `value ${index}`]));
    const out = await render('search', { companies: [{ name: 'Wide', ...row }] }, 'table');
    expect(Math.max(...visibleWidths(out))).toBeLessThanOrEqual(80);
    expect(out).toMatch(/│ Field 11 +│ value 11 +│/);
  });

  it('draws one titled table per result type', async () => {
    const out = await render('search', SEARCH, 'table');
    expect(out).toContain('Results for “coffee”');
    expect(out).toContain('Companies (1)');
    expect(out).toContain('Cities (1)');
    expect(out).toContain('Categories (1)');
    expect(out).toMatch(/│ Москва +│ +12 │/);
  });

  it('titles a group named like an Object method (constructor, toString) by its name', async () => {
    const out = await render('search', { constructor: [{ name: 'a' }], results: [{ type: 'toString', name: 'b' }] }, 'table');
    expect(out).toContain('Constructor (1)');
    expect(out).toContain('To string (1)');
  });

  it('says so when nothing matched', async () => {
    expect(await render('search', { query: 'zzz', companies: [], cities: [], categories: [] }, 'table')).toBe('No matches for “zzz”.\n');
  });

  it('shows the market index standing out, then the details', async () => {
    const out = await render('pulse', PULSE, 'table');
    expect(out.split('\n')[0]).toBe('Market index  71.23');
    expect(out).toMatch(/│ Companies +│ 2,400 +│/);
  });

  it('details: counts grouped, numbers that name something kept as they are, every decimal kept', async () => {
    const out = await render(
      'pulse',
      { index: 1, reviews_total: 7305, company_id: 12345, founded_year: 1998, lat: 55.755826, delta: -1234.5, tiny: 1e-7, code: '01234' },
      'table',
    );
    for (const [label, value] of [
      ['Reviews total', '7,305'],
      ['Company id', '12345'],
      ['Founded year', '1998'],
      ['Lat', '55.755826'],
      ['Delta', '-1,234.5'],
      ['Tiny', '1e-7'],
      ['Code', '01234'],
    ]) {
      expect(out).toMatch(new RegExp(`│ ${label} +│ ${value!.replace('.', '\\.')} +│`));
    }
  });

  it('keeps server text from driving the terminal', async () => {
    for (const kind of ['audit', 'search', 'pulse'] as const) {
      const out = await render(kind, HOSTILE, 'table');
      expect(out).not.toMatch(TERMINAL_ACTIVE);
      expect(out).toContain('Evil');
    }
  });

  it('draws something for any body, however odd', async () => {
    let deep: unknown = { leaf: 1 };
    for (let depth = 0; depth < 5000; depth += 1) deep = { next: deep };
    const bodies: unknown[] = [
      null,
      'text',
      7,
      [],
      {},
      [1, [2, [3]]],
      deep,
      { sources: Array.from({ length: 3000 }, (_, index) => ({ source: `s${index}` })) },
    ];
    for (const [index, body] of bodies.entries()) {
      for (const kind of ['audit', 'search', 'pulse'] as const) {
        const out = await render(kind, body, 'table');
        expect(out.trim(), `${kind} of body ${index}`).not.toBe('');
        expect(Math.max(...visibleWidths(out))).toBeLessThanOrEqual(80);
      }
    }
  });

  it('notes detail rows it leaves out, pointing at --format json', async () => {
    const body = { score: 1, tags: Array.from({ length: 300 }, (_, index) => ({ id: index })) };
    expect(await render('audit', body, 'table')).toContain('… 100 more fields; --format json shows them all');
  });

  it('numbers in a column share their decimals, so they line up', async () => {
    const body = {
      companies: [
        { name: 'A', score: 99.6 },
        { name: 'B', score: 90 },
        { name: 'C', score: 87.25 },
      ],
    };
    const out = await render('search', body, 'table');
    expect(out).toMatch(/│ A +│ +99\.60 │/);
    expect(out).toMatch(/│ B +│ +90\.00 │/);
    expect(out).toMatch(/│ C +│ +87\.25 │/);
    const whole = await render(
      'audit',
      {
        sources: [
          { source: 'x', rating: 4, reviews: 1000 },
          { source: 'y', rating: 3.5, reviews: 20 },
        ],
      },
      'table',
    );
    expect(whole).toMatch(/│ x +│ +4\.0 │ +1,000 │/);
  });
});

describe('showsChange', () => {
  it('is true exactly for the formats whose audit differs when it is given a change (the history is read for no other)', async () => {
    const change = { previous: 90, delta: -2.6, at: '2026-11-01T00:00:00Z', direction: 'down' as const };
    const written = async (format: Format, withChange: boolean) => {
      const io = testIO({ columns: 120 });
      await writeView(io, { body: AUDIT, ...viewOf('audit', AUDIT) }, format, withChange ? { change } : {});
      return io.stdoutText();
    };
    const shown: Format[] = [];
    for (const format of ['table', 'json', 'ndjson', 'csv', 'markdown'] as const) {
      const differs = (await written(format, true)) !== (await written(format, false));
      expect(showsChange(format), format).toBe(differs);
      if (differs) shown.push(format);
    }
    expect(shown).toEqual(['table', 'markdown']);
  });
});
