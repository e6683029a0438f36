// Which point is "the previous point", end to end through main(): the one of the same base URL and
// query (a company name shared by several queries is a fallback only), never one dated in the future;
// and a gate that cannot judge an answer (no score) fails it.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localDate } from '../src/history/change.js';
import { pointFromAudit } from '../src/state/history.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

const session = useRep();
const DAY = 24 * 60 * 60 * 1000;

/** A server that answers each query with its body, any number of times. */
async function serverWith(bodies: Record<string, Record<string, unknown>>): Promise<FaultServer> {
  const server = session.track(await startFaultServer());
  server.always('/api/audit', (request) => {
    const body = bodies[request.q ?? ''];
    return body ? { body } : { status: 404, body: { error: 'not found' } };
  });
  return server;
}

function historyFileOf(): string {
  const dir = join(session.home().dir, 'ci');
  mkdirSync(dir, { recursive: true });
  return join(dir, 'history.jsonl');
}

/** Writes points as an earlier run (or another machine) would have. */
function recorded(file: string, server: FaultServer, points: Array<{ query: string; name: string; score: number; at: number }>): void {
  const lines = points.map(({ query, name, score, at }) =>
    JSON.stringify(pointFromAudit({ name, score, sources: [] }, { at, baseUrl: server.baseUrl, query })),
  );
  appendFileSync(file, `${lines.join('\n')}\n`);
}

function rep(server: FaultServer, file: string, args: string[]) {
  return session.rep(args, { env: { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl.href, REP_MAX_AGE: '0', REP_HISTORY_FILE: file, NO_COLOR: '1' } });
}

const gateLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('gate failed'));

describe('the previous point is that of the same query', () => {
  it("two branches sharing a company name each compare with their own point, not the other's", async () => {
    const chain = (score: number) => ({ name: 'Burger Chain', score, sources: [{ source: 'Google', rating: 4 }] });
    const server = await serverWith({ Mitte: chain(83.1), Kreuzberg: chain(64.1) });
    const file = historyFileOf();
    const yesterday = Date.now() - DAY;
    recorded(file, server, [
      { query: 'Kreuzberg', name: 'Burger Chain', score: 64.1, at: yesterday },
      { query: 'Mitte', name: 'Burger Chain', score: 83.1, at: yesterday + 60_000 },
    ]);
    const batch = await rep(server, file, ['audit', 'Mitte', 'Kreuzberg', '--fail-on-drop', '5', '--format', 'table']);
    expect(gateLines(batch.stderr)).toEqual([]);
    expect(batch.code).toBe(0);
    expect(batch.stdout).toMatch(/query: Kreuzberg\) │ +64\.1 │ += │/);
    const one = await rep(server, file, ['audit', 'Kreuzberg', '--fail-on-drop', '5', '--format', 'table']);
    expect([one.code, gateLines(one.stderr)]).toEqual([0, []]);
    expect(one.stdout).toMatch(/Change\s+= since /);
  });

  it('a query never recorded still compares with the newest point of its company name', async () => {
    const server = await serverWith({ 'burger chain mitte': { name: 'Burger Chain', score: 70, sources: [] } });
    const file = historyFileOf();
    recorded(file, server, [{ query: 'Mitte', name: 'Burger Chain', score: 83.1, at: Date.now() - DAY }]);
    const result = await rep(server, file, ['audit', 'burger chain mitte', '--fail-on-drop', '5', '--format', 'json']);
    expect(result.code).toBe(7);
    expect(gateLines(result.stderr)).toEqual(['rep: gate failed: Burger Chain: fell 13.1 (from 83.1 to 70.0), more than 5']);
  });
});

describe('points dated in the future', () => {
  it('are never the previous point: --fail-on-drop sees the drop since the newest point before now', async () => {
    const server = await serverWith({ Falls: { name: 'Falls', score: 70, sources: [] } });
    const file = historyFileOf();
    const yesterday = Date.now() - DAY;
    recorded(file, server, [
      { query: 'Falls', name: 'Falls', score: 80, at: yesterday },
      { query: 'Falls', name: 'Falls', score: 70, at: Date.parse('9999-12-31T00:00:00Z') },
    ]);
    const result = await rep(server, file, ['audit', 'Falls', '--fail-on-drop', '5', '--format', 'table']);
    expect(gateLines(result.stderr)).toEqual(['rep: gate failed: Falls: fell 10.0 (from 80.0 to 70.0), more than 5']);
    expect(result.code).toBe(7);
    expect(result.stdout).toContain(`▼ 10.0 since ${localDate(new Date(yesterday).toISOString())}`);
  });

  it('rep history marks them, and says they are never compared with', async () => {
    const server = await serverWith({});
    const file = historyFileOf();
    recorded(file, server, [
      { query: 'Falls', name: 'Falls', score: 80, at: Date.now() - DAY },
      { query: 'Falls', name: 'Falls', score: 70, at: Date.parse('9999-12-31T00:00:00Z') },
    ]);
    const table = await rep(server, file, ['history', 'Falls', '--format', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/9999-12-31 \d\d:\d\d \(future\)/);
    expect(table.stderr).toBe('rep: warning: 1 point of Falls is dated in the future (a wrong clock?): it is never the previous point\n');
    const markdown = await rep(server, file, ['history', 'Falls', '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/\| 9999-12-31 \d\d:\d\d \(future\) \|/);
    const json = await rep(server, file, ['history', 'Falls', '--format', 'json']);
    expect((JSON.parse(json.stdout) as Array<{ future: boolean }>).map((point) => point.future)).toEqual([false, true]);
    expect(server.count()).toBe(0);
  });
});

describe('a gate that cannot judge an answer fails it', () => {
  const noScore = { name: 'Unscored', sources: [{ source: 'Google', rating: 4.5 }] };

  it('--fail-under with no score exits 7 on a line of its own, for one name and in a batch', async () => {
    const server = await serverWith({ Unscored: noScore, High: { name: 'High', score: 90, sources: [] } });
    const file = historyFileOf();
    const one = await rep(server, file, ['audit', 'Unscored', '--fail-under', '60', '--format', 'json']);
    expect(one.code).toBe(7);
    expect(gateLines(one.stderr)).toEqual(['rep: gate failed: Unscored: no score to compare']);
    expect(JSON.parse(one.stdout)).toEqual(noScore);
    const batch = await rep(server, file, ['audit', 'High', 'Unscored', '--fail-under', '60', '--format', 'ndjson']);
    expect(batch.code).toBe(7);
    expect(gateLines(batch.stderr)).toEqual(['rep: gate failed: Unscored: no score to compare']);
    expect(batch.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('--fail-on-drop: a first point passes, an answer with no score exits 7', async () => {
    const server = await serverWith({ Unscored: noScore, First: { name: 'First', score: 10, sources: [] } });
    const file = historyFileOf();
    const first = await rep(server, file, ['audit', 'First', '--fail-on-drop', '5', '--format', 'json']);
    expect([first.code, gateLines(first.stderr)]).toEqual([0, []]);
    const unscored = await rep(server, file, ['audit', 'Unscored', '--fail-on-drop', '5', '--format', 'json']);
    expect(unscored.code).toBe(7);
    expect(gateLines(unscored.stderr)).toEqual(['rep: gate failed: Unscored: no score to compare']);
  });

  it('with no gate, an answer with no score exits 0', async () => {
    const server = await serverWith({ Unscored: noScore });
    const result = await rep(server, historyFileOf(), ['audit', 'Unscored', '--format', 'json']);
    expect([result.code, result.stderr]).toEqual([0, '']);
  });
});
