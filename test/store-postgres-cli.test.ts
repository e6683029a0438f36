// rep with REP_STORE, in-process against a strict server and a real PostgreSQL: two homes (two
// machines) share answers, count and history; `rep status` says where the store is, never its
// password; with the database down an audit answers with a warning and `rep history` exits 8.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, runCli, runInProcess } from './helpers/cli.js';
import { closedPort, startFaultServer, type FaultServer } from './helpers/fault-server.js';
import { ADMIN_PASSWORD, postgresAvailable, startPostgres, type PostgresCluster } from './helpers/postgres.js';
import { startRelay } from './helpers/relay.js';

const available = postgresAvailable();
let cluster: PostgresCluster;
const KEY = 'rk_test_team_0123456789abcdef';
const BODY = { name: 'Blue Bottle Coffee', score: 80, sources: [] };

beforeAll(async () => {
  if (available) cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.cleanup());

async function api(): Promise<FaultServer> {
  return (await startFaultServer()).always('/api/audit', { body: BODY });
}
/** `rep …` in a fresh home (a machine of its own) with the team's store. */
async function repOn(args: string[], env: Record<string, string>) {
  const home = makeTempHome();
  try {
    return await runInProcess(['--retries', '0', ...args], { home, env });
  } finally {
    home.cleanup();
  }
}

describe.skipIf(!available)('rep with a PostgreSQL store', () => {
  it('two machines: the second is answered from the first one’s answer; status names host, database and user, never the password', async () => {
    const server = await api();
    const store = `postgres://postgres:${ADMIN_PASSWORD}@127.0.0.1:${cluster.port}/${await cluster.createDatabase()}?sslmode=disable`;
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: store };
    const first = await repOn(['audit', 'Blue Bottle', '--format', 'json'], env);
    const second = await repOn(['audit', 'Blue Bottle', '--format', 'json'], env);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toMatch(/^rep: cached answer from /);
    expect(server.count('/api/audit')).toBe(1);
    const status = await repOn(['status', '--format', 'table', '--debug'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Requests, last hour\s+1\b/);
    expect(status.stdout).toContain(`postgres postgres@127.0.0.1:${cluster.port}/`);
    expect(status.stdout).toMatch(/History\s+postgres postgres@127\.0\.0\.1:\d+\/rep_test_\d+, 1 point/);
    expect(status.stdout + status.stderr).not.toContain(ADMIN_PASSWORD);
    await server.close();
  });

  it('a batch at concurrency 4: each name is sent once and stored, and a second machine sends none (the pool grows as questions hold connections)', async () => {
    const server = await api();
    const store = `postgres://postgres:${ADMIN_PASSWORD}@127.0.0.1:${cluster.port}/${await cluster.createDatabase()}?sslmode=disable`;
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: store };
    const names = Array.from({ length: 12 }, (_, i) => `Batch Company ${i + 1}`);
    // Four questions at once each hold a connection for their lock while their answers are stored over another.
    const first = await repOn(['audit', ...names, '--concurrency', '4', '--format', 'ndjson'], env);
    expect(first.stderr).toBe('12 names: 12 audited\n');
    expect(first.code).toBe(0);
    expect(server.count('/api/audit')).toBe(12);
    const second = await repOn(['audit', ...names, '--concurrency', '4', '--format', 'ndjson'], env);
    expect(second.stderr).toBe('12 names: 12 audited (12 from the cache)\n');
    expect(second.stdout).toBe(first.stdout);
    expect(server.count('/api/audit')).toBe(12);
    const status = await repOn(['status', '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 12 });
    await server.close();
  });

  it('the database down: an audit answers from the API with one warning; rep history exits 8 with one line', async () => {
    const server = await api();
    const port = await closedPort();
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: `postgres://team:s3cret-pw@127.0.0.1:${port}/rep` };
    const audit = await repOn(['audit', 'Blue Bottle', '--format', 'json'], env);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout)).toEqual(BODY);
    expect(audit.stderr).toBe(
      `rep: warning: cannot reach the store at team@127.0.0.1:${port}/rep: connection refused (is PostgreSQL running?); going on without it\n` +
        'rep: warning: cannot record the score of Blue Bottle Coffee in the history in the postgres store\n',
    );
    const history = await repOn(['history', 'Blue Bottle'], env);
    expect(history.code).toBe(8);
    expect(history.stderr).toBe(`rep: cannot reach the store at team@127.0.0.1:${port}/rep: connection refused (is PostgreSQL running?)\n`);
    expect(audit.stderr + history.stderr).not.toContain('s3cret-pw');
    await server.close();
  });

  it('the database down: --fail-on-drop prints the answer, then exits 8 with one line; --fail-under alone judges the answer', async () => {
    const server = await api();
    const port = await closedPort();
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: `postgres://team:s3cret-pw@127.0.0.1:${port}/rep` };
    const unreachable = `cannot reach the store at team@127.0.0.1:${port}/rep: connection refused (is PostgreSQL running?)`;
    const gated = await repOn(['audit', 'Blue Bottle', '--fail-on-drop', '5', '--format', 'json'], env);
    expect(gated.code).toBe(8);
    expect(JSON.parse(gated.stdout)).toEqual(BODY);
    expect(gated.stderr).toBe(
      `rep: warning: ${unreachable}; going on without it\nrep: warning: cannot record the score of Blue Bottle Coffee in the history in the postgres store\nrep: --fail-on-drop 5 needs the history: ${unreachable}\n`,
    );
    const under = await repOn(['audit', 'Blue Bottle', '--fail-under', '50', '--format', 'json'], env);
    expect([under.code, under.stderr]).toEqual([
      0,
      `rep: warning: ${unreachable}; going on without it\nrep: warning: cannot record the score of Blue Bottle Coffee in the history in the postgres store\n`,
    ]);
    await server.close();
  });

  it('rep status with the database down names the postgres store in each warning, never "the history in the history"', async () => {
    const port = await closedPort();
    const env = { REP_BASE_URL: 'https://api.example.test/api', REP_API_KEY: KEY, REP_STORE: `postgres://team@127.0.0.1:${port}/rep` };
    const status = await repOn(['status', '--format', 'json'], env);
    expect(status.code).toBe(0);
    const reason = `(cannot reach the store at team@127.0.0.1:${port}/rep: connection refused (is PostgreSQL running?))`;
    expect(status.stderr).toBe(
      ['request count', 'answer cache', 'history'].map((part) => `rep: warning: cannot read the ${part} in the postgres store ${reason}\n`).join(''),
    );
  });

  it('rep status counts the team’s requests and says from how many machines, in every format', async () => {
    const server = await api();
    const store = `postgres://postgres@127.0.0.1:${cluster.port}/${await cluster.createDatabase()}?sslmode=disable`;
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: store, PGPASSWORD: ADMIN_PASSWORD };
    for (const name of ['Blue Bottle', 'Stumptown', 'Intelligentsia']) expect((await repOn(['audit', name], env)).code).toBe(0);
    const json = JSON.parse((await repOn(['status', '--format', 'json'], env)).stdout);
    expect(json).toMatchObject({ requests_last_hour: 3, requests_machines: 3 });
    expect((await repOn(['status', '--format', 'table'], env)).stdout).toMatch(/Requests, last hour\s+3, from 3 machines\n/);
    expect((await repOn(['status', '--format', 'markdown'], env)).stdout).toContain('| Requests, last hour | 3, from 3 machines |');
    const [header, row] = (await repOn(['status', '--format', 'csv'], env)).stdout.trim().split('\n');
    const columns = header!.split(',');
    expect(row!.split(',')[columns.indexOf('requests_machines')]).toBe('3');
    await server.close();
  });

  /**
   * A batch of `names` at concurrency 1 by the built rep (the driver's own write after a close ended the
   * process; the bundle guards it), through `storePort`; `fault` runs while the API holds `faultAt`'s answer.
   */
  async function batchWithFault(names: string[], faultAt: string, storePort: number, timeout: string, fault: () => void) {
    let resume!: () => void;
    const faulted = new Promise<void>((resolve) => (resume = resolve));
    const server = (await startFaultServer()).always('/api/audit', (request) => ({
      body: { name: request.q, score: 70, sources: [] },
      ...(request.q === faultAt ? { after: faulted } : {}),
    }));
    const database = await cluster.createDatabase();
    const store = `postgres://postgres@127.0.0.1:${storePort}/${database}?sslmode=disable`;
    const env = { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, REP_STORE: store, PGPASSWORD: ADMIN_PASSWORD };
    const home = makeTempHome();
    try {
      const file = join(home.dir, 'names.txt');
      writeFileSync(file, `${names.join('\n')}\n`);
      const args = ['--retries', '0', '--timeout', timeout, 'audit', '--file', file, '--concurrency', '1', '--format', 'ndjson'];
      const run = runCli(args, { home, env, killAfterMs: 60_000 });
      await server.arrival((request) => request.q === faultAt);
      fault();
      resume();
      const result = await run;
      const printed = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).result?.name);
      expect([result.code, printed], result.stderr).toEqual([0, names]);
      const lost = /rep: warning: cannot record the scores? of (.+) in the history in the postgres store/.exec(result.stderr)?.[1];
      expect(lost, result.stderr).toBeDefined();
      return { database, stderr: result.stderr, told: lost!.split(/, | and /) };
    } finally {
      home.cleanup();
      await server.close();
    }
  }

  it('the database stopped mid-batch: the process goes on; every printed name is in the history or named in a warning', async () => {
    const names = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
    const { database, told } = await batchWithFault(names, 'n4', cluster.port, '3', () => cluster.stop()).finally(() => cluster.start());
    const recorded = await cluster.admin((sql) => sql<Array<{ name: string }>>`select name from rep_history order by name`, database);
    expect(told).toEqual(expect.arrayContaining(['n4', 'n5', 'n6']));
    expect([...recorded.map((row) => row.name), ...told].sort()).toEqual(names);
  });

  it('the store stops answering mid-batch (a partition): it is asked once more, not again for each name', async () => {
    const names = Array.from({ length: 16 }, (_, i) => `p${i + 1}`);
    const relay = await startRelay(cluster.port);
    try {
      const { database, stderr, told } = await batchWithFault(names, 'p3', relay.port, '1', () => relay.cut());
      expect(stderr).toContain(`rep: warning: cannot reach the store at postgres@127.0.0.1:${relay.port}/${database}: no answer in time; going on without it`);
      expect(told, stderr).toEqual(expect.arrayContaining(names.slice(2)));
      // What was under way when it went, and what came in the connect timeout, each try a connection
      // (at most the pool's 10); the names after that, none (without the pause: 2-4 a name, 1 s each).
      expect(relay.connectionsSinceCut, stderr).toBeLessThanOrEqual(10);
    } finally {
      await relay.close();
    }
  });

  it('rep history import FILE copies the points in; twice adds nothing; without a store and a FILE it exits 2', async () => {
    const home = makeTempHome();
    try {
      const file = join(home.dir, 'history.jsonl');
      const at = (day: number) => `2026-02-0${day}T09:00:00.000Z`;
      const line = (id: string, day: number, score: number) =>
        JSON.stringify({ id, at: at(day), base_url: 'https://api.example.test/api', query: 'Blue Bottle', score, sources: [] });
      writeFileSync(file, `${line('a1', 1, 80)}\n${line('a2', 2, 82)}\n`);
      const store = `postgres://postgres@127.0.0.1:${cluster.port}/${await cluster.createDatabase()}?sslmode=disable`;
      const env = { REP_STORE: store, PGPASSWORD: ADMIN_PASSWORD };
      const where = `postgres postgres@127.0.0.1:${cluster.port}/`;
      const first = await runInProcess(['history', 'import', file], { home, env });
      expect([first.code, first.stderr]).toEqual([0, expect.stringContaining(`Imported 2 new points of 2 from ${file} into ${where}`)]);
      const again = await runInProcess(['history', 'import', file], { home, env });
      expect([again.code, again.stderr]).toEqual([0, expect.stringContaining(`Imported 0 new points of 2 from ${file}`)]);
      const shown = await runInProcess(['history', 'Blue Bottle', '--format', 'json'], { home, env });
      expect(JSON.parse(shown.stdout).map((point: { score: number }) => point.score)).toEqual([80, 82]);
      const none = await runInProcess(['history', 'import'], { home, env: {} });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/^rep: no store is configured: this machine’s history is in the local store already\nhint: set REP_STORE/);
    } finally {
      home.cleanup();
    }
  });

  it('a profile’s own store is its team store; --sandbox never uses a team store, however it is given', async () => {
    const server = await api();
    const store = `postgres://postgres@127.0.0.1:${cluster.port}/${await cluster.createDatabase()}?sslmode=disable`;
    const home = makeTempHome();
    try {
      mkdirSync(home.env.REP_CONFIG_DIR as string, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(home.env.REP_CONFIG_DIR as string, 'config.json'),
        JSON.stringify({ profiles: { team: { baseUrl: server.baseUrl.href, apiKey: KEY, store } } }),
        { mode: 0o600 },
      );
      const env = { PGPASSWORD: ADMIN_PASSWORD };
      const status = await runInProcess(['--profile', 'team', 'status', '--format', 'json'], { home, env });
      expect(JSON.parse(status.stdout).history.dir).toContain(`postgres@127.0.0.1:${cluster.port}/`);
      const sandbox = await runInProcess(['--sandbox', 'status', '--format', 'json'], { home, env: { ...env, REP_STORE: store } });
      expect(sandbox.code).toBe(0);
      expect(JSON.parse(sandbox.stdout).history.dir).not.toContain('postgres');
      const both = await runInProcess(['--sandbox', '--store', store.replace('postgres@', 'other@'), 'status'], { home, env });
      expect([both.code, both.stderr]).toEqual([
        2,
        'rep: --store and --sandbox do not go together: the sandbox keeps a store of its own\nhint: drop one of them\n',
      ]);
    } finally {
      home.cleanup();
      await server.close();
    }
  });
});
