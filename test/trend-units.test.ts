// The chart renderer and the report's pieces, in-process: the chart fits 40, 80 and 160 columns, is
// plain ASCII when asked, draws two series with a legend; ten years of daily points come down to a
// bounded number of samples; the report escapes every text and puts the largest drop first.
import { describe, expect, it } from 'vitest';
import { renderLineChart, sampleColumns, type ChartPoint } from '../src/chart/line-chart.js';
import { historyChart } from '../src/history/chart.js';
import { displayWidth } from '../src/output/text-width.js';
import { escapeHtml } from '../src/report/html.js';
import { companyRows } from '../src/report/model.js';
import { samples } from '../src/report/svg.js';
import type { HistoryPoint } from '../src/store/port.js';

const DAY = 86_400_000;
const T0 = Date.parse('2016-01-01T12:00:00Z');
const daily = (count: number, value: (day: number) => number): ChartPoint[] =>
  Array.from({ length: count }, (_, day) => ({ at: T0 + day * DAY, value: value(day) }));
const company = daily(90, (day) => 80 - day / 10 + Math.sin(day) * 2);
const market = daily(60, (day) => 70 + Math.cos(day / 5)).map((point) => ({ ...point, at: point.at + 30 * DAY }));
const dateLabel = (at: number) => new Date(at).toISOString().slice(0, 10);

describe('the terminal line chart', () => {
  for (const width of [40, 80, 160]) {
    it(`fits ${width} columns, with values at the side, dates along the bottom and a legend`, () => {
      const chart = renderLineChart(
        [
          { label: 'Blue Bottle Coffee', points: company },
          { label: 'market', points: market },
        ],
        { width, unicode: true, dateLabel },
      );
      const lines = chart.split('\n');
      for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
      expect(lines[0]).toMatch(/^\d+ ┤/);
      expect(lines.at(-2)).toContain('2016-01-01');
      expect(lines.at(-2)).toContain(dateLabel(company.at(-1)!.at));
      expect(lines.at(-1)).toBe(`${' '.repeat(lines.at(-1)!.indexOf('─'))}── Blue Bottle Coffee   ·· market`);
      expect(chart).toMatch(/[╭╮╰╯]/);
      expect(chart).toContain('·');
    });
  }

  it('is plain ASCII when the terminal cannot show more, and never narrower than 40 columns', () => {
    const chart = renderLineChart(
      [
        { label: 'acme', points: company },
        { label: 'market', points: market },
      ],
      { width: 20, unicode: false, dateLabel },
    );
    expect(chart).toMatch(/^[\x20-\x7e\n]+$/);
    expect(Math.max(...chart.split('\n').map((line) => line.length))).toBe(40);
    expect(chart).toContain('-- acme   .. market');
  });

  it('colours each series only through paint', () => {
    const chart = renderLineChart([{ label: 'acme', points: company }], { width: 60, unicode: true, dateLabel, paint: (index, text) => `<${index}>${text}` });
    expect(chart).toContain('<0>── acme');
    expect(renderLineChart([{ label: 'acme', points: company }], { width: 60, unicode: true, dateLabel })).not.toContain('<0>');
  });

  it('draws one point, and nothing for none', () => {
    expect(renderLineChart([{ label: 'one', points: [{ at: T0, value: 50 }] }], { width: 40, unicode: true, dateLabel })).toContain('2016-01-01');
    expect(renderLineChart([{ label: 'none', points: [] }], { width: 40, unicode: true, dateLabel })).toBe('');
  });

  it('draws ten years of daily points from at most one sample per column', () => {
    const decade = daily(3653, (day) => 50 + 40 * Math.sin(day / 50));
    const columns = 120;
    const sampled = sampleColumns(decade, columns, decade[0]!.at, decade.at(-1)!.at);
    expect(sampled.length).toBeLessThanOrEqual(columns);
    expect(sampled.length).toBeGreaterThan(columns - 2);
    // min and max per column keep the extremes a plain pick of every nth point could miss
    expect(Math.max(...sampled.map((sample) => sample.max))).toBeCloseTo(90, 1);
    expect(Math.min(...sampled.map((sample) => sample.min))).toBeCloseTo(10, 1);
    // the report's SVG paths: at most three values per column
    expect(samples(decade, 160, decade[0]!.at, decade.at(-1)!.at).length).toBeLessThanOrEqual(3 * 160);
  });

  it('fills the columns between sparse points with the line joining them', () => {
    const sampled = sampleColumns(
      [
        { at: 0, value: 0 },
        { at: 10, value: 10 },
      ],
      11,
      0,
      10,
    );
    expect(sampled.map((sample) => sample.last)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('the chart of a history', () => {
  const point = (day: number, score: number, name = '\u001b[31mAcme\u001b[0m'): HistoryPoint => ({
    id: `p${day}`,
    at: new Date(T0 + day * DAY).toISOString(),
    base_url: 'https://api.example.test/api',
    query: 'acme',
    name,
    score,
    sources: [],
  });
  const chartFor = async (env: NodeJS.ProcessEnv, colorOut: boolean) => {
    const { testIO } = await import('../src/io.js');
    const io = testIO({ columns: 50, colorOut });
    const store = { history: { range: async () => [] } }; // no market point: no market line
    const deps = { io, env, store: () => store, warn: () => {} };
    return historyChart(
      deps as never,
      [0, 1, 2, 3].map((day) => ({ point: point(day, 70 + day) })),
      'https://api.example.test/api',
    );
  };

  it('uses box drawing under a UTF-8 locale, ASCII under TERM=dumb or another charset, colour only where allowed', async () => {
    expect(await chartFor({ LANG: 'en_US.UTF-8' }, false)).toContain('╭');
    expect(await chartFor({ LC_ALL: 'C', LANG: 'en_US.UTF-8' }, false)).toMatch(/^[\x20-\x7e\n]+$/);
    expect(await chartFor({ LANG: 'en_US.UTF-8', TERM: 'dumb' }, false)).toMatch(/^[\x20-\x7e\n]+$/);
    expect(await chartFor({ LANG: 'en_US.ISO-8859-1' }, false)).toMatch(/^[\x20-\x7e\n]+$/);
    const coloured = await chartFor({ LANG: 'C.UTF-8' }, true);
    expect(coloured).toContain('\u001b[36m');
    // the server's own escapes in a name are scrubbed; only rep's colour remains
    expect(coloured.replace(/\u001b\[(36|39|90)m/g, '')).not.toContain('\u001b');
  });
});

describe('the report model', () => {
  const points = (query: string, scores: number[]): HistoryPoint[] =>
    scores.map((score, day) => ({
      id: `${query}${day}`,
      at: new Date(T0 + day * DAY).toISOString(),
      base_url: 'b',
      query,
      score,
      sources: [{ source: 'Yelp' }],
    }));

  it('puts the largest drop first and single points last', () => {
    const rows = companyRows([points('up', [50, 60]), points('single', [70]), points('fall', [90, 60]), points('dip', [80, 75])]);
    expect(rows.map((row) => [row.name, row.change])).toEqual([
      ['fall', -30],
      ['dip', -5],
      ['up', 10],
      ['single', undefined],
    ]);
  });

  it('escapes every character that could open markup', () => {
    expect(escapeHtml(`<img src=x onerror=alert(1)> & "q" 'a'`)).toBe('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;q&#34; &#39;a&#39;');
  });
});
