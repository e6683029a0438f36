// The report as a person sees it: rendered by a real headless Chromium (Debian's `chromium`), driven
// by its command line alone. The DOM holds every company; a screenshot is not blank; hostile names
// stay text: no element is made from them and a loopback server named in one gets no request.
// Under CI=true a missing chromium fails; elsewhere the tests are skipped with a note.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { historyLines, trendPoints } from '../scripts/trend-fixture.mjs';
import { useRep } from './helpers/cli.js';

const CHROMIUM = ['chromium', 'chromium-browser'].find((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0);
if (!CHROMIUM && process.env.CI === 'true') throw new Error('chromium is not installed: the report tests need it under CI (.ci/run installs it)');
if (!CHROMIUM) console.warn('report-browser: chromium not found, skipping the browser tests');

const rep = useRep();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs chromium headless on a file with `args`; its stdout. No network service of its own, a fresh profile. */
function chromium(file: string, args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'rep-chromium-'));
  dirs.push(profile);
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  const argv = [...flags, '--no-first-run', '--disable-default-apps', `--user-data-dir=${profile}`, ...args, `file://${file}`];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM!, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(killer);
      resolve(out);
    });
  });
}

/** Writes the report of `names` (or the default companies) to a file; its path. */
async function reportFile(options: Parameters<typeof trendPoints>[0]): Promise<string> {
  const dir = rep.home().dir;
  const history = join(dir, 'history.jsonl');
  writeFileSync(history, historyLines(trendPoints({ days: 60, ...options })));
  const result = await rep.rep(['report'], { env: { REP_HISTORY_FILE: history, REP_BASE_URL: 'http://127.0.0.1:9/api' } });
  expect(result.code).toBe(0);
  const file = join(dir, 'report.html');
  writeFileSync(file, result.stdout);
  return file;
}

/** The PNG's pixels (filter bytes included), inflated from its IDAT chunks, and its size. */
function pngPixels(png: Buffer): { width: number; height: number; data: Buffer } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), data: inflateSync(Buffer.concat(idat)) };
}

describe.skipIf(!CHROMIUM)('the report in a real browser', () => {
  it('shows every company in the DOM, and a screenshot that is not blank', async () => {
    const file = await reportFile({});
    const png = join(rep.home().dir, 'report.png');
    // One browser for both: the DOM it loaded, and the screenshot of it.
    const dom = await chromium(file, ['--dump-dom', `--screenshot=${png}`, '--window-size=1200,2000', '--hide-scrollbars']);
    const headings = [...dom.matchAll(/<h2>([^<]*)<\/h2>/g)].map((match) => match[1]);
    expect(headings.sort()).toEqual(['Blue Bottle Coffee', 'Golden Gate Dental', 'Northwind Books', 'Ritual Coffee', 'Tartine Bakery', 'Кофейня Ромашка']);
    expect(dom.match(/<tr>/g)).toHaveLength(7); // the head and one row per company
    const { width, height, data } = pngPixels(readFileSync(png));
    expect([width, height]).toEqual([1200, 2000]);
    // Many distinct byte values: text, lines and colours, not a page of one colour.
    expect(new Set(data).size).toBeGreaterThan(64);
    expect(data.length).toBeGreaterThanOrEqual(1200 * 2000 * 3);
  });

  it('runs nothing from hostile names: they show as text, make no element, send no request', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.end('x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const hostile = [
      `<img src=http://127.0.0.1:${port}/img onerror=alert(1)>`,
      `<script>fetch('http://127.0.0.1:${port}/script')</script>`,
      `"><svg onload=alert(1)><image href="http://127.0.0.1:${port}/svg"/>`,
      `<style>@import url(http://127.0.0.1:${port}/css)</style>`,
    ];
    try {
      const file = await reportFile({ names: hostile, days: 10 });
      const screenshot = join(rep.home().dir, 'hostile.png');
      const dom = await chromium(file, ['--dump-dom', `--screenshot=${screenshot}`, '--window-size=800,600']);
      // Every element the page holds is one rep writes; none came from a name.
      const tags = new Set([...dom.matchAll(/<([a-zA-Z][\w-]*)/g)].map((match) => match[1]!.toLowerCase()));
      const own = [
        'html',
        'head',
        'meta',
        'title',
        'style',
        'body',
        'h1',
        'p',
        'svg',
        'defs',
        'path',
        'table',
        'thead',
        'tbody',
        'tr',
        'th',
        'td',
        'section',
        'h2',
        'span',
        'text',
        'use',
      ];
      expect([...tags].filter((tag) => !own.includes(tag))).toEqual([]);
      expect(dom.match(/<style>/g)).toHaveLength(1);
      expect(dom.match(/<svg/g)?.length).toBe(1 + 2 * hostile.length); // the market's defs, a sparkline and a chart each
      for (const name of hostile) expect(dom).toContain(`<h2>${name.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</h2>`);
      expect(readFileSync(screenshot).subarray(1, 4).toString('latin1')).toBe('PNG'); // it rendered, images and styles too
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
