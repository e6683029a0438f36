// The market in the history, `rep history --chart` and `rep report`, through main() in-process:
// a fresh pulse is a market point (a cached one is not), `history --market` lists them; the report is
// built from the history alone (a strict server that fails on any request), escapes hostile names,
// exits 3 with nothing to report, and stays under 5 MB for 1,000 companies over a year.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyLines, trendPoints } from '../scripts/trend-fixture.mjs';
import { baseUrlKey } from '../src/api/base-url.js';
import { useRep } from './helpers/cli.js';

const rep = useRep();

/** A history file in the test's home with `points`; the env that points rep at it and at `baseUrl`. */
function withHistory(options: Parameters<typeof trendPoints>[0], baseUrl: string) {
  const file = join(rep.home().dir, 'history.jsonl');
  writeFileSync(file, historyLines(trendPoints({ ...options, baseUrl: baseUrlKey(baseUrl) })));
  return { REP_HISTORY_FILE: file, REP_BASE_URL: baseUrl, REP_API_KEY: 'k-test-0000' };
}

describe('the market in the history', () => {
  it('records each fresh pulse as a market point; a cached answer adds none; history --market lists them', async () => {
    const server = await rep.server();
    server.expect('/api/pulse', { body: { index: 71.5 } }, { body: { index: 70.25 } });
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: 'k-test-0000' };
    expect((await rep.rep(['pulse', '--max-age', '0'], { env })).code).toBe(0);
    expect((await rep.rep(['pulse', '--max-age', '0'], { env })).code).toBe(0);
    const cached = await rep.rep(['pulse'], { env });
    expect(cached.stderr).toContain('cached answer');
    const listed = await rep.rep(['history', '--market', '--format', 'json'], { env });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ score: number; query: string }>).map((point) => [point.score, point.query])).toEqual([
      [71.5, ''],
      [70.25, ''],
    ]);
    const csv = await rep.rep(['history', '--market', '--format', 'csv'], { env });
    expect(csv.stdout.split('\n')[0]).toBe('at,score,change,name,base_url');
    expect(csv.stdout).toContain(',70.25,-1.25,');
    expect(server.count('/api/pulse')).toBe(2);
  });

  it('says how to start one when no market point is recorded (exit 3), and refuses a name with --market (exit 2)', async () => {
    const env = { REP_BASE_URL: 'http://127.0.0.1:9/api' };
    const none = await rep.rep(['history', '--market'], { env });
    expect(none.code).toBe(3);
    expect(none.stderr).toBe('rep: no market history\nhint: each fresh `rep pulse` records a point\n');
    const both = await rep.rep(['history', 'acme', '--market'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('rep: give a name or --market, not both');
    const neither = await rep.rep(['history'], { env });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('rep: missing company name');
  });
});

describe('rep history NAME --chart', () => {
  it('draws the company and the market at the width of the terminal', async () => {
    const server = await rep.server();
    const env = withHistory({ companies: 2, days: 60 }, server.baseUrl.href);
    const result = await rep.rep(['history', 'Blue Bottle Coffee', '--chart'], { env: { ...env, LANG: 'C.UTF-8' }, io: { columns: 72, stdoutIsTTY: true } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('\u001b[36m'); // a terminal, colour allowed
    const lines = result.stdout
      .replace(/\u001b\[\d+m/g, '')
      .trimEnd()
      .split('\n');
    expect(Math.max(...lines.map((line) => [...line].length))).toBe(72);
    expect(lines.at(-1)).toMatch(/── Blue Bottle Coffee {3}·· market$/);
    expect(server.requests).toEqual([]);
  });
});

describe('rep report', () => {
  it('writes one HTML document from the history alone: no request, every company, the market, the host', async () => {
    const server = await rep.server();
    const env = withHistory({ days: 30 }, server.baseUrl.href);
    const result = await rep.rep(['report'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const html = result.stdout;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:`);
    for (const name of ['Blue Bottle Coffee', 'Кофейня Ромашка', 'Ritual Coffee', 'Tartine Bakery', 'Northwind Books', 'Golden Gate Dental'])
      expect(html).toContain(`<h2>${name}</h2>`);
    expect(html).toContain('id="market"');
    expect(html).toContain(`6 companies at 127.0.0.1:${server.port}`);
    expect(html).not.toMatch(/<script|src=|url\(|@import|https?:\/\//i);
    expect(server.requests).toEqual([]);
    // the largest drop first: the table's first row has the lowest change
    const changes = [...html.matchAll(/class="num (down|up|same)">(▼|▲)? ?([\d.]+)?/g)].map(([, , arrow, value]) =>
      arrow === '▼' ? -Number(value) : Number(value ?? 0),
    );
    expect(changes).toEqual([...changes].sort((a, b) => a - b));
  });

  it('shows a hostile name as text, in HTML and in Markdown', async () => {
    const hostile = '<img src=x onerror=alert(1)> | **bold** \u001b[31mred';
    const env = withHistory({ names: [hostile, 'Plain'], days: 5 }, 'http://127.0.0.1:9/api');
    const html = (await rep.rep(['report'], { env })).stdout;
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u001b');
    const markdown = await rep.rep(['report', '--format', 'markdown'], { env });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^## Reputation report\n/);
    expect(markdown.stdout).toContain('\\<img src=x onerror=alert(1)\\> \\| \\*\\*bold\\*\\*');
    expect(markdown.stdout).not.toMatch(/[^\\]<img/);
    expect(markdown.stdout).not.toContain('\u001b');
    expect(markdown.stdout).toMatch(/\| Plain \| [\d.]+ \/ 100\.0 \| [▲▼=]/);
    expect(markdown.stdout).toMatch(/^Market: [▁▂▃▄▅▆▇█]+ [\d.]+$/m);
  });

  it('reports only the names given, from --file too', async () => {
    const env = withHistory({ days: 5 }, 'http://127.0.0.1:9/api');
    const file = join(rep.home().dir, 'names.txt');
    writeFileSync(file, 'ritual coffee\n# a comment\n');
    const result = await rep.rep(['report', 'Tartine Bakery', '--file', file], { env });
    expect(result.code).toBe(0);
    expect([...result.stdout.matchAll(/<h2>([^<]+)<\/h2>/g)].map((match) => match[1])).toEqual(
      ['Ritual Coffee', 'Tartine Bakery'].sort((a, b) => result.stdout.indexOf(`<h2>${a}`) - result.stdout.indexOf(`<h2>${b}`)),
    );
    expect(result.stdout).not.toContain('Blue Bottle');
  });

  it('exits 3 when there is nothing to report, and 2 for a format it does not write', async () => {
    const env = withHistory({ days: 5, now: Date.now() - 400 * 86_400_000 }, 'http://127.0.0.1:9/api');
    const old = await rep.rep(['report', '--since', '30d'], { env });
    expect(old.code).toBe(3);
    expect(old.stdout).toBe('');
    expect(old.stderr).toMatch(
      /^rep: nothing to report since \d{4}-\d\d-\d\d\nhint: each fresh `rep audit NAME` records a point; give an earlier --since for older ones\n$/,
    );
    // The sandbox reports from its own history only, never the real one REP_HISTORY_FILE names.
    const sandbox = await rep.rep(['report', '--sandbox'], { env });
    expect(sandbox.code).toBe(3);
    expect(sandbox.stderr).toMatch(/^rep: nothing to report since \d{4}-\d\d-\d\d\nhint: each fresh `rep audit NAME` records a point/);
    const csv = await rep.rep(['report', '--format', 'csv'], { env });
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('rep: rep report writes HTML, or Markdown with --format markdown: not csv');
  });
});

describe('a report at scale', () => {
  it('of 1,000 companies × 365 daily points is under 5 MB', async () => {
    const { companyRows, seriesByQuery } = await import('../src/report/model.js');
    const { reportHtml } = await import('../src/report/html.js');
    const now = Date.now();
    const points = trendPoints({ companies: 1000, days: 365, now });
    const market = points.filter((point) => point.query === '');
    const companies = companyRows(seriesByQuery(points.filter((point) => point.query !== '')));
    expect(companies).toHaveLength(1000);
    const html = reportHtml(
      {
        madeAt: now,
        host: 'api.example.test',
        since: now - 365 * 86_400_000,
        companies,
        market: market.map((point) => ({ at: Date.parse(point.at), value: point.score })),
      },
      { dateLabel: (at) => new Date(at).toISOString().slice(0, 10), timeLabel: (at) => new Date(at).toISOString() },
    );
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(html.match(/<section>/g)).toHaveLength(1000);
  });
});
