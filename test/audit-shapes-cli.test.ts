// End to end: `rep audit` against a strict test server answering with bodies in the shapes public
// reputation APIs document. The table's Reputation Score line and the CSV's score column must carry
// the score, wherever in the body it sits.
import { describe, expect, it } from 'vitest';
import { scoreText } from '../src/history/change.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';
import { API_FIXTURES } from './fixtures/reputation-apis.js';

const session = useRep();
const { track } = session;

/** Two scores as deep as each other, with other values: a tie. */
const TIE = { displayName: 'Tie Co', score: { trustScore: 4.2, stars: 4 }, rating: 4.5 };

/** A server answering `/api/audit?q=NAME` with the body of the fixture called NAME, or TIE (404 for any other). */
async function fixtureServer(): Promise<FaultServer> {
  const server = track(await startFaultServer());
  return server.always('/api/audit', (request) => {
    const body = request.q === 'tie' ? TIE : API_FIXTURES[request.q ?? '']?.body;
    return body ? { body } : { status: 404, body: { error: 'unknown fixture' } };
  });
}

function rep(server: FaultServer, args: string[]) {
  return session.rep(['--no-cache', ...args], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: 'test-key-0001' } });
}

/** The cells of a CSV line without quoted commas (the fixtures have none where it matters). */
const cells = (line: string | undefined) => (line ?? '').split(',');

describe('rep audit on bodies shaped like public APIs', () => {
  it.each(Object.entries(API_FIXTURES))('%s: the table shows the score, and the CSV has it in the score column', async (name, { expected }) => {
    const server = await fixtureServer();
    const [table, csv] = await Promise.all([rep(server, ['--format', 'table', 'audit', name]), rep(server, ['--format', 'csv', 'audit', name])]);
    const shown = `${scoreText(expected.score)}${expected.scoreMax === undefined ? '' : ` / ${expected.scoreMax}`}`;
    expect({ code: table.code, stderr: table.stderr }).toEqual({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(new RegExp(`^Reputation Score {2}${shown.replace(/[./]/g, '\\$&')}$`, 'm'));
    if (expected.reviews !== undefined) expect(table.stdout).toMatch(new RegExp(`^Reviews +${expected.reviews.toLocaleString('en-US')}$`, 'm'));
    expect({ code: csv.code, stderr: csv.stderr }).toEqual({ code: 0, stderr: '' });
    const [header, first] = csv.stdout.split('\n');
    const columns = cells(header);
    expect(cells(first)[columns.indexOf('score')]).toBe(String(expected.score));
    if (expected.name !== undefined) expect(cells(first)[columns.indexOf('company')]).toBe(expected.name);
  });

  it('history never wins: the table and the CSV show the current score, and the history stays a detail', async () => {
    const server = await fixtureServer();
    const [table, csv] = await Promise.all([rep(server, ['--format', 'table', 'audit', 'current']), rep(server, ['--format', 'csv', 'audit', 'current'])]);
    expect(table.stdout).toMatch(/^Reputation Score {2}78\.0$/m);
    expect(table.stdout).toMatch(/│ History\[0\] score +│ 75 +│/);
    expect(csv.stdout).toBe('company,score,source,rating,reviews\n,78,,,\n');
  });
});

describe('where each field came from', () => {
  it('a tie: the table says which field was taken and shows the other in the details', async () => {
    const server = await fixtureServer();
    const table = await rep(server, ['--format', 'table', 'audit', 'tie']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('Reputation Score  4.2\nscore taken from `score.trustScore` (also found: `rating`)\n');
    expect(table.stdout).toMatch(/│ Rating +│ 4\.5 +│/);
  });

  it('--debug names the path of every field the view read, in every format', async () => {
    const server = await fixtureServer();
    for (const format of ['table', 'csv', 'json']) {
      const result = await rep(server, ['--debug', '--format', format, 'audit', 'trustpilot']);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('debug: view: name read from displayName\n');
      expect(result.stderr).toContain('debug: view: score read from score.trustScore\n');
      expect(result.stderr).toContain('debug: view: reviews read from numberOfReviews.total\n');
    }
    const tie = await rep(server, ['--debug', '--format', 'csv', 'audit', 'tie']);
    expect(tie.stderr).toContain('debug: view: score also found at rating\n');
  });
});
