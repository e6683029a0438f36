// Two "machines" (two homes, so two machine ids) share one database: 20 `rep` processes on each, twice
// over, each auditing one name all of them share and one of its own (a batch of two), against a strict
// loopback server that counts what it is asked. The first ask of the shared name is answered only once
// every other process of its round waits on that question's advisory lock (pg_locks says so): all of
// them asked it at once, and none sent it. The ledger is exact and says two machines, the shared name
// is sent once (single-flight, then the shared answer), and the history holds every point once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK } from '../src/store/postgres/schema.js';
import { makeTempHome, runCli, type TempHome } from './helpers/cli.js';
import { startFaultServer } from './helpers/fault-server.js';
import { ADMIN_PASSWORD, postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

const PROCESSES = 20;
const available = postgresAvailable();
let cluster: PostgresCluster;
const homes: TempHome[] = [];

beforeAll(async () => {
  if (available) cluster = await sharedPostgres();
}, 60_000);
afterAll(() => {
  cluster?.cleanup();
  for (const home of homes) home.cleanup();
});

/** Resolves once `count` sessions wait on one advisory lock of `database` (not the schema's); rejects after 30 s. */
function waitersOnOneLock(database: string, count: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  return cluster.admin(async (sql) => {
    for (;;) {
      const [most] = await sql<Array<{ waiting: number }>>`
        select count(*)::int as waiting from pg_locks
        where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())
          and not (classid = 0 and objid = ${MIGRATION_LOCK})
        group by classid, objid order by waiting desc limit 1`;
      if ((most?.waiting ?? 0) >= count) return most!.waiting;
      if (Date.now() > deadline) throw new Error(`only ${most?.waiting ?? 0} of ${count} processes waited on the shared question`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }, database);
}

describe.skipIf(!available)('two machines sharing one PostgreSQL store', () => {
  it('20 rep processes on each, twice, asking one name at once: the ledger is exact, the shared name goes out once, every point is kept once', async () => {
    const database = await cluster.createDatabase();
    const server = await startFaultServer();
    const gates: Array<Promise<number>> = [];
    server.always('/api/audit', (request) => {
      if (request.q !== 'Blue Bottle' || gates.length > 0) return { body: { name: 'x', score: 80 } };
      const gate = waitersOnOneLock(database, 2 * PROCESSES - 1);
      gates.push(gate);
      return { body: { name: 'x', score: 80 }, after: gate };
    });
    // libpq's socket form (no password on a local socket here): the processes spend no time on SCRAM.
    const socketUrl = `postgres:///${database}?host=${cluster.socketDir}&port=${cluster.port}&user=postgres`;
    const machines = ['laptop', 'ci-runner'].map((name) => {
      const home = makeTempHome();
      homes.push(home);
      return { name, home };
    });
    const env = { REP_STORE: socketUrl, REP_BASE_URL: server.baseUrl.href, REP_API_KEY: 'rk_team_shared_0123456789', PGPASSWORD: ADMIN_PASSWORD };
    for (const round of [1, 2]) {
      const results = await Promise.all(
        machines.flatMap((machine) =>
          Array.from({ length: PROCESSES }, (_, i) =>
            runCli(['--retries', '0', 'audit', 'Blue Bottle', `own ${machine.name} ${i} ${round}`, '--format', 'ndjson'], {
              home: machine.home,
              env,
              killAfterMs: 60_000,
            }),
          ),
        ),
      );
      expect(results.filter((result) => result.code !== 0).map((result) => result.stderr)).toEqual([]);
      for (const result of results) expect(result.stdout.trim().split('\n')).toHaveLength(2);
    }
    await server.close();
    // The first round's ask of the shared name waited until every other process waited on its lock.
    expect(await Promise.all(gates)).toEqual([2 * PROCESSES - 1]);
    const own = 2 * PROCESSES * 2;
    expect(server.requests.filter((request) => request.q === 'Blue Bottle')).toHaveLength(1);
    expect(server.count('/api/audit')).toBe(own + 1);
    const [ledger] = await cluster.admin((sql) => sql`select count(*)::int as requests, count(distinct machine)::int as machines from rep_requests`, database);
    expect(ledger).toEqual({ requests: own + 1, machines: 2 });
    const [history] = await cluster.admin((sql) => sql`select count(*)::int as points, count(distinct id)::int as ids from rep_history`, database);
    expect(history).toEqual({ points: own + 1, ids: own + 1 });
  }, 120_000);
});
