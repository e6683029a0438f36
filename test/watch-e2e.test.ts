// Watching over time, end to end through the built CLI against a server whose scores change between
// calls: each fresh audit is a history point, `rep history` lists them oldest first, and the gates
// (--fail-under, --fail-on-drop) exit 7 with the failing names on stderr and every record on stdout.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

const session = useRep();
const { track } = session;

const audit = (name: string, score: number) => ({ body: { name, score, score_max: 100, sources: [{ source: 'Google', rating: 4.5, reviews: 10 }] } });

/** A server that answers `name` with each score in turn (one request each). */
async function serverWith(scores: Record<string, number[]>): Promise<FaultServer> {
  const server = track(await startFaultServer());
  const turn: Record<string, number> = {};
  server.always('/api/audit', (request) => {
    const name = request.q ?? '';
    const list = scores[name];
    if (!list) return { status: 404, body: { error: 'not found' } };
    const index = (turn[name] = (turn[name] ?? -1) + 1);
    const score = list[Math.min(index, list.length - 1)]!;
    return score < 0 ? { status: 500, body: { error: 'boom' } } : audit(name, score);
  });
  return server;
}

/** Every audit here is a fresh fetch (REP_MAX_AGE=0), unless a test says otherwise: each is a new point. */
function rep(server: FaultServer, args: string[], env: Record<string, string | undefined> = {}) {
  return session.rep(args, { env: { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl.href, REP_MAX_AGE: '0', ...env } });
}

describe('rep history after audits', () => {
  it('three audits give a three-point history, oldest first', async () => {
    const server = await serverWith({ 'Blue Bottle': [80, 73, 74.5] });
    for (let i = 0; i < 3; i += 1) expect((await rep(server, ['audit', 'Blue Bottle', '--format', 'json'])).code).toBe(0);
    const json = await rep(server, ['history', 'Blue', 'Bottle', '--format', 'json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ score: number }>).map((point) => point.score)).toEqual([80, 73, 74.5]);
    const ndjson = await rep(server, ['history', 'Blue Bottle', '--format', 'ndjson']);
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { score: number }).score),
    ).toEqual([80, 73, 74.5]);
    const csv = await rep(server, ['history', 'Blue Bottle', '--format', 'csv']);
    expect(csv.stdout.trim().split('\n')).toHaveLength(4);
    const table = await rep(server, ['history', 'Blue Bottle', '--format', 'table'], { NO_COLOR: '1' });
    const scores = [...table.stdout.matchAll(/│ \d{4}-\d{2}-\d{2} \d{2}:\d{2} │ +([\d.]+)/g)].map((match) => Number(match[1]));
    expect(scores).toEqual([80, 73, 74.5]);
    expect(table.stdout).toContain('▼ 7.0');
    expect(server.count('/api/audit')).toBe(3);
  });

  it('the audit table shows the change since the previous point; the first audit shows none', async () => {
    const server = await serverWith({ 'Blue Bottle': [80, 73] });
    const first = await rep(server, ['audit', 'Blue Bottle', '--format', 'table'], { NO_COLOR: '1' });
    expect(first.stdout).not.toContain('Change');
    const second = await rep(server, ['audit', 'Blue Bottle', '--format', 'table'], { NO_COLOR: '1' });
    expect(second.stdout).toMatch(/Change\s+▼ 7\.0 since \d{4}-\d{2}-\d{2}\n/);
    const json = await rep(server, ['audit', 'Blue Bottle', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(audit('Blue Bottle', 73).body); // JSON stays the server's body
  });

  it('an answer from the answer cache is no new point', async () => {
    const server = await serverWith({ 'Blue Bottle': [80, 73] });
    const cached = { REP_MAX_AGE: undefined };
    expect((await rep(server, ['audit', 'Blue Bottle', '--format', 'json'], cached)).code).toBe(0);
    const again = await rep(server, ['audit', 'Blue Bottle', '--format', 'json'], cached);
    expect(again.stderr).toMatch(/cached answer/);
    expect(server.count('/api/audit')).toBe(1);
    const json = await rep(server, ['history', 'Blue Bottle', '--format', 'json']);
    expect((JSON.parse(json.stdout) as Array<{ score: number }>).map((point) => point.score)).toEqual([80]);
  });

  it('the history is read only where its previous point is used: the change a table shows, a batch CSV, or --fail-on-drop', async () => {
    const server = await serverWith({ 'Blue Bottle': [80] });
    const cached = { REP_MAX_AGE: undefined };
    expect((await rep(server, ['audit', 'Blue Bottle', '--format', 'json'], cached)).code).toBe(0);
    // From here on the history cannot be read (REP_HISTORY_FILE names a file that is no history), and the answer comes from the cache.
    const unreadable = join(session.home().dir, 'not-a-history.txt');
    writeFileSync(unreadable, 'a user file\n');
    const env = { ...cached, REP_HISTORY_FILE: unreadable, NO_COLOR: '1' };
    const warning = `cannot read the history in ${unreadable}`;
    const quiet = [
      ['audit', 'Blue Bottle', '--format', 'json'],
      ['audit', 'Blue Bottle', '--format', 'ndjson'],
      ['audit', 'Blue Bottle', '--format', 'csv'],
      ['audit', 'Blue Bottle', '--fail-under', '50', '--format', 'json'],
      ['audit', 'Blue Bottle', '--batch', '--format', 'ndjson'],
      ['audit', 'Blue Bottle', '--batch', '--format', 'csv', '--csv-sources'],
    ];
    for (const args of quiet) {
      const result = await rep(server, args, env);
      expect({ args, code: result.code, warned: result.stderr.includes(warning) }).toEqual({ args, code: 0, warned: false });
    }
    const reading = [
      ['audit', 'Blue Bottle', '--format', 'table'],
      ['audit', 'Blue Bottle', '--format', 'markdown'],
      ['audit', 'Blue Bottle', '--fail-on-drop', '5', '--format', 'json'],
      ['audit', 'Blue Bottle', '--batch', '--format', 'csv'],
    ];
    for (const args of reading) {
      const result = await rep(server, args, env);
      expect({ args, code: result.code, warned: result.stderr.includes(warning) }).toEqual({ args, code: 0, warned: true });
    }
    expect(server.count('/api/audit')).toBe(1);
  });

  it('a cached answer compares with the point before the one it was recorded as, so --fail-on-drop still sees the drop', async () => {
    const server = await serverWith({ Falls: [80, 70] });
    expect((await rep(server, ['audit', 'Falls', '--format', 'json'])).code).toBe(0);
    expect((await rep(server, ['audit', 'Falls', '--format', 'json'])).code).toBe(0); // fetched: 70, recorded and cached
    const cached = await rep(server, ['audit', 'Falls', '--fail-on-drop', '5', '--format', 'table'], { REP_MAX_AGE: undefined, NO_COLOR: '1' });
    expect(server.count('/api/audit')).toBe(2);
    expect(cached.stderr).toMatch(/cached answer/);
    expect(cached.stderr).toMatch(/gate failed: Falls: fell 10(\.0)? \(from 80(\.0)? to 70(\.0)?\)/);
    expect(cached.code).toBe(7);
    expect(cached.stdout).toMatch(/▼ 10/);
  });

  it('--sandbox records nothing', async () => {
    expect((await session.rep(['--sandbox', 'audit', 'Кофейня Ромашка', '--format', 'json'])).code).toBe(0);
    const result = await session.rep(['--sandbox', 'history', 'Кофейня Ромашка']);
    expect(result.code).toBe(3);
  });
});

describe('rep audit gates', () => {
  it('--fail-under exits 7 naming the low score; stdout keeps the record', async () => {
    const server = await serverWith({ Low: [40] });
    const result = await rep(server, ['audit', 'Low', '--fail-under', '60', '--format', 'json']);
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/Low: 40(\.0)? is under 60/);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'Low', score: 40 });
  });

  it('--fail-under exits 0 when every score is at or above it', async () => {
    const server = await serverWith({ High: [60] });
    const result = await rep(server, ['audit', 'High', '--fail-under', '60', '--format', 'json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
  });

  it('--fail-on-drop exits 7 in a batch for the name that fell, with every record on stdout', async () => {
    const server = await serverWith({ Falls: [80, 70, 65], Holds: [50, 49, 49] });
    expect((await rep(server, ['audit', 'Falls', 'Holds', '--format', 'ndjson'])).code).toBe(0);
    const result = await rep(server, ['audit', 'Falls', 'Holds', '--fail-on-drop', '5', '--format', 'ndjson']);
    expect(result.code).toBe(7);
    const gateLines = result.stderr.split('\n').filter((line) => line.includes('gate failed:'));
    expect(gateLines).toEqual([expect.stringMatching(/Falls: fell 10(\.0)? \(from 80(\.0)? to 70(\.0)?\)/)]);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { query: string }).query),
    ).toEqual(['Falls', 'Holds']);
    const table = await rep(server, ['audit', 'Falls', 'Holds', '--format', 'table'], { NO_COLOR: '1' });
    expect(table.stdout).toMatch(/Change/);
    expect(table.stdout).toMatch(/Falls .*▼ 5\.0/); // since the second batch's point
    expect(table.stdout).toMatch(/Holds .*│ += │/);
  });

  it('--fail-on-drop exits 0 when no drop is larger than POINTS', async () => {
    const server = await serverWith({ Falls: [80, 75] });
    await rep(server, ['audit', 'Falls', '--format', 'json']);
    const result = await rep(server, ['audit', 'Falls', '--fail-on-drop', '5', '--format', 'json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
  });

  it('batch CSV: one row per company, with the change since the previous point', async () => {
    const server = await serverWith({ Falls: [80, 70], Holds: [50, 50] });
    await rep(server, ['audit', 'Falls', 'Holds', '--format', 'csv']);
    const result = await rep(server, ['audit', 'Falls', 'Holds', '--format', 'csv']);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'query,name,city,category,score,reviews,change,error',
      'Falls,Falls,,,70,10,-10,',
      'Holds,Holds,,,50,10,0,',
    ]);
  });

  it('an error outranks a gate in a batch: a 500 for one name and a gate failure exit 1', async () => {
    const server = await serverWith({ Low: [40], Broken: [-1] });
    const result = await rep(server, ['audit', 'Low', 'Broken', '--fail-under', '60', '--format', 'ndjson']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/gate failed: Low: 40/);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
  });
});
