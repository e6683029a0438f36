// `--format markdown` through the CLI: audit, search, pulse, batches, history and status are GFM
// tables whose every row has the head's number of cells, a `|` in a name escaped, server text scrubbed.
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

const session = useRep();
const { track } = session;
const NAME = 'AT|T \u001b[31mStore\u001b[0m';

/** The tables in a document: each a run of lines starting with `|`. */
function tables(text: string): string[][] {
  const found: string[][] = [];
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) current = undefined;
    else {
      if (!current) found.push((current = []));
      current.push(line);
    }
  }
  return found;
}

/** Cells in a row: split on the pipes that are not escaped. */
const cellCount = (row: string) => row.replace(/\\\\/g, '').replace(/\\\|/g, '').split('|').length - 2;

function expectValidGfm(text: string, count = 1): string[][] {
  const found = tables(text);
  expect(found.length, text).toBeGreaterThanOrEqual(count);
  for (const table of found) {
    expect(table[1], text).toMatch(/^\| (-{3}:?|---:)( \| (---|---:))* \|$/);
    for (const row of table) expect(cellCount(row), row).toBe(cellCount(table[0]!));
  }
  expect(text).not.toContain('\u001b');
  return found;
}

async function server(): Promise<FaultServer> {
  const srv = track(await startFaultServer());
  let score = 80;
  srv.always('/api/audit', (request) =>
    request.q === 'Broken'
      ? { status: 404, body: { error: 'no' } }
      : { body: { name: NAME, score: (score -= 7), score_max: 100, sources: [{ source: 'Go|ogle', rating: 4.5, reviews: 10 }] } },
  );
  srv.always('/api/search', { body: { companies: [{ name: NAME, city: 'Paris' }], cities: [{ name: 'Pa|ris' }], categories: [] } });
  srv.always('/api/pulse', { body: { index: 61.5, updated: '2026-11-01' } });
  return srv;
}

function rep(srv: FaultServer, args: string[]) {
  // Each audit a fresh fetch: a new history point.
  return session.rep(['--format', 'markdown', ...args], { env: { REP_API_KEY: 'test-key', REP_BASE_URL: srv.baseUrl.href, REP_MAX_AGE: '0' } });
}

describe('--format markdown', () => {
  it('audit: the company (with its change) and its sources, pipes escaped', async () => {
    const srv = await server();
    await rep(srv, ['audit', 'AT&T']);
    const result = await rep(srv, ['audit', 'AT&T']);
    expect(result.code).toBe(0);
    const [company, sources] = expectValidGfm(result.stdout, 2);
    expect(company![2]).toContain('AT\\|T Store');
    expect(company![2]).toMatch(/▼ 7\.0 since/);
    expect(sources![2]).toContain('Go\\|ogle');
  });

  it('search and pulse', async () => {
    const srv = await server();
    const search = await rep(srv, ['search', 'at']);
    expect(expectValidGfm(search.stdout)[0]).toHaveLength(4);
    const pulse = await rep(srv, ['pulse']);
    expect(expectValidGfm(pulse.stdout)[0]![2]).toContain('61.5');
  });

  it('a batch: one row per name, errors included', async () => {
    const srv = await server();
    const result = await rep(srv, ['audit', 'AT&T', 'Broken']);
    expect(result.code).toBe(3);
    const [table] = expectValidGfm(result.stdout);
    expect(table).toHaveLength(4);
    expect(table![3]).toContain('Broken');
  });

  it('history and status', async () => {
    const srv = await server();
    for (let i = 0; i < 3; i += 1) await rep(srv, ['audit', 'AT&T']);
    const history = await rep(srv, ['history', 'AT&T']);
    expect(history.code).toBe(0);
    expect(expectValidGfm(history.stdout)[0]).toHaveLength(5);
    const status = await rep(srv, ['status']);
    expectValidGfm(status.stdout);
  });
});
