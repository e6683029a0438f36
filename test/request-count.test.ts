// The local request count across processes: exact however many rep processes (the built CLI) run at
// once (the counting server is the truth), bounded and private (0600) on disk, and counting
// only requests that reached a server. A TLS certificate failure cannot succeed, so it is not retried.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { closedPort, startFaultServer } from './helpers/fault-server.js';
import { hasOpenssl, startTlsServer } from './helpers/tls.js';

const KEY = 'count-test-key-0123456789';
const session = useRep({ env: () => ({ REP_API_KEY: KEY }) });
const { track } = session;

function rep(args: string[], baseUrl: string) {
  return session.rep(args, { env: { REP_BASE_URL: baseUrl } });
}

async function requestsLastHour(baseUrl: string): Promise<number> {
  const status = await rep(['--json', 'status'], baseUrl);
  expect(status.stderr).toBe('');
  return (JSON.parse(status.stdout) as { requests_last_hour: number }).requests_last_hour;
}

/** Every file and directory rep keeps in the state dir, with its permission bits. */
function stateEntries(): Array<{ path: string; dir: boolean; mode: number }> {
  const root = join(session.home().dir, 'state', 'rep');
  return readdirSync(root, { recursive: true, withFileTypes: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return { path, dir: entry.isDirectory(), mode: statSync(path).mode & 0o777 };
  });
}

describe('the request count', () => {
  it('20 rep processes at once, twice: the count equals what the server received, and stays small and private', async () => {
    const parallel = 20;
    let release = () => {};
    let released = Promise.resolve();
    const server = track(await startFaultServer()).always('/api/pulse', () => {
      // A round's answers wait for its last request: all its processes are under way at once, each
      // request's line in the log already (written before the request goes).
      if (server.count('/api/pulse') % parallel === 0) release();
      return { body: { index: 50 }, after: released };
    });
    for (let round = 0; round < 2; round++) {
      released = new Promise<void>((resolve) => (release = resolve));
      const results = await Promise.all(
        Array.from({ length: parallel }, () => session.spawn(['--no-cache', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href } })),
      );
      expect(results.map((result) => [result.code, result.stderr])).toEqual(Array.from({ length: parallel }, () => [0, '']));
    }
    expect(server.count('/api/pulse')).toBe(2 * parallel);
    expect(await requestsLastHour(server.baseUrl.href)).toBe(2 * parallel);
    // Each fresh pulse is a point of the market's history, appended to its journal by 20 processes at once: none lost.
    const market = await rep(['history', '--market', '--format', 'json'], server.baseUrl.href);
    expect([market.code, (JSON.parse(market.stdout) as unknown[]).length]).toEqual([0, 2 * parallel]);
    const entries = stateEntries();
    // One log for the key and base URL, whatever the number of processes (the rest is the market's history).
    expect(entries.filter((entry) => !entry.dir && entry.path.includes('/requests/')).map((entry) => entry.path.replace(/.*\//, ''))).toEqual([
      expect.stringMatching(/^[0-9a-f]{16}-[0-9a-f]{16}\.log$/),
    ]);
    expect(entries.filter((entry) => !entry.dir).length).toBeLessThanOrEqual(16 + parallel);
    for (const entry of entries) expect({ path: entry.path, mode: entry.mode }).toEqual({ path: entry.path, mode: entry.dir ? 0o700 : 0o600 });
  }, 120_000);

  it('a state directory that cannot be written: one warning naming it, and status says it cannot count', async () => {
    const server = track(await startFaultServer()).always('/api/pulse', { body: { index: 50 } });
    writeFileSync(join(session.home().dir, 'state'), 'a file where the state directory should be');
    const where = join(session.home().dir, 'state', 'rep', 'requests');
    const result = await rep(['pulse'], server.baseUrl.href);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'rep: warning: cannot record the market index in the history (not a directory)\n' +
        `rep: warning: cannot save the request count in ${where} (not a directory); \`rep status\` will not count these requests\n`,
    );
    const status = await rep(['--json', 'status'], server.baseUrl.href);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 0 });
    const history = join(session.home().dir, 'state', 'rep', 'history');
    expect(status.stderr).toBe(
      `rep: warning: cannot read the request count in ${where} (not a directory)\nrep: warning: cannot read the history in ${history} (not a directory)\n`,
    );
  });

  it('each request of a batch is in the log before it reaches the server (a turn’s lines go as one write)', async () => {
    const dir = join(session.home().dir, 'state', 'rep', 'requests');
    const logged = () =>
      existsSync(dir)
        ? readdirSync(dir)
            .filter((name) => name.endsWith('.log'))
            .reduce((lines, name) => lines + (readFileSync(join(dir, name), 'utf8').match(/"at":/g)?.length ?? 0), 0)
        : 0;
    let received = 0;
    const shortfalls: number[] = [];
    const server = track(await startFaultServer()).always('/api/audit', (request) => {
      received += 1;
      if (logged() < received) shortfalls.push(received);
      return { body: { name: request.q, score: 50, sources: [] } };
    });
    const names = Array.from({ length: 60 }, (_, index) => `Company ${index}`);
    const result = await session.rep(['--quiet', 'audit', '--format', 'ndjson', '--no-cache', '--concurrency', '4', ...names], {
      env: { REP_BASE_URL: server.baseUrl.href },
    });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect([received, shortfalls]).toEqual([60, []]);
    expect(logged()).toBe(60);
  });

  it('a refused connection reached no server: not counted', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/api`;
    const result = await rep(['--retries', '1', 'pulse'], nowhere);
    expect(result.code).toBe(6);
    expect(await requestsLastHour(nowhere)).toBe(0);
  });

  it.skipIf(!hasOpenssl())('a certificate the system does not trust: one attempt (no retry), not counted, exit 6', async () => {
    const server = track(await startTlsServer(session.home().dir, (_req, res) => res.writeHead(599).end()));
    const baseUrl = `https://${server.host}/api`;
    const result = await rep(['--retries', '2', 'pulse'], baseUrl);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^rep: TLS handshake with 127\.0\.0\.1 failed \(\w+\)\n/);
    expect(server.connections()).toBe(1);
    expect(await requestsLastHour(baseUrl)).toBe(0);
  });
});
