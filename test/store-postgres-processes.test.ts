// Two "machines" (two homes, two machine ids) share one database: 20 processes on each, twice over,
// each asking one question all of them share and one of its own, through the built library's store
// (dist/index.cjs) and a strict loopback server that counts what it is asked. The ledger is exact
// and says two machines, the shared question is sent once (single-flight, then the shared answer),
// and the history holds every point exactly once.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';
import { ADMIN_PASSWORD, postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

const LIBRARY = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
const PROCESSES = 20;
const available = postgresAvailable();
let cluster: PostgresCluster;
let home: TempHome;

beforeAll(async () => {
  home = makeTempHome();
  if (available) cluster = await sharedPostgres();
}, 60_000);
afterAll(() => {
  cluster?.cleanup();
  home.cleanup();
});

/** One process: the shared question under single-flight (answered from the store when another asked it), then its own. */
const WORKER = `
const { openStore } = require(${JSON.stringify(LIBRARY)});
const http = require('node:http');
const [url, machine, base, own] = process.argv.slice(2);
const store = openStore(url, { env: { PGPASSWORD: process.env.PGPASSWORD }, machine, home: process.env.HOME });
const scope = { keyFingerprint: 'team0000key00000', baseUrl: base };
const fetchText = (q) => new Promise((resolve, reject) => {
  http.get(base + '/audit?q=' + encodeURIComponent(q), (res) => { let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(text)); }).on('error', reject);
});
async function ask(q) {
  const key = { baseUrl: base, endpoint: 'audit', query: q, keyFingerprint: scope.keyFingerprint };
  if (await store.answers.get(key, { maxAgeMs: 600000, now: Date.now() })) return;
  store.ledger.record(scope, Date.now());
  const bodyText = await fetchText(q);
  await store.answers.put(key, { status: 200, bodyText, storedAt: Date.now() });
  await store.history.append([{ id: machine + ':' + q, at: new Date().toISOString(), base_url: base, query: q, score: 80, sources: [] }]);
}
(async () => {
  await store.singleFlight.run('audit Blue Bottle', () => ask('Blue Bottle'));
  await ask(own);
  const failure = await store.ledger.settle();
  await store.close();
  if (failure) throw failure;
})().catch((error) => { console.error(error.message); process.exit(1); });
`;

function runWorker(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(home.dir, 'worker.cjs'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe.skipIf(!available)('two machines sharing one PostgreSQL store', () => {
  it('20 processes on each, twice: the ledger is exact, the shared question goes out once, every point is kept once', async () => {
    writeFileSync(join(home.dir, 'worker.cjs'), WORKER);
    const database = await cluster.createDatabase();
    const server = await startFaultServer();
    server.always('/api/audit', { body: { name: 'x', score: 80 } });
    // libpq's socket form (no password on a local socket here): the processes spend no time on SCRAM.
    const socketUrl = `postgres:///${database}?host=${cluster.socketDir}&port=${cluster.port}&user=postgres`;
    const base = server.baseUrl.href.replace(/\/$/, '');
    const machines = ['laptop', 'ci-runner'].map((name) => ({ name, env: { HOME: join(home.dir, name), PGPASSWORD: ADMIN_PASSWORD } }));
    for (const round of [1, 2]) {
      const results = await Promise.all(
        machines.flatMap((machine) =>
          Array.from({ length: PROCESSES }, (_, i) => runWorker([socketUrl, machine.name, base, `own ${machine.name} ${i} ${round}`], machine.env)),
        ),
      );
      expect(results.filter((result) => result.code !== 0)).toEqual([]);
    }
    await server.close();
    const own = 2 * PROCESSES * 2;
    expect(server.requests.filter((request) => request.q === 'Blue Bottle')).toHaveLength(1);
    expect(server.count('/api/audit')).toBe(own + 1);
    const [ledger] = await cluster.admin((sql) => sql`select count(*)::int as requests, count(distinct machine)::int as machines from rep_requests`, database);
    expect(ledger).toEqual({ requests: own + 1, machines: 2 });
    const [history] = await cluster.admin((sql) => sql`select count(*)::int as points, count(distinct id)::int as ids from rep_history`, database);
    expect(history).toEqual({ points: own + 1, ids: own + 1 });
  }, 120_000);
});
