// The PostgreSQL store when things go wrong, each against the real server: the schema made once by
// ten stores at once and a newer one refused; the database down, a wrong password, a read-only role,
// a statement timeout, a connection ended under the store, the server restarted; single-flight.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../src/api/errors.js';
import { StoreError } from '../src/store/errors.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/port.js';
import { OUTAGE_MS } from '../src/store/postgres/index.js';
import { SCHEMA_VERSION } from '../src/store/postgres/schema.js';
import { point } from './store-contract.js';
import { ADMIN_PASSWORD, postgresAvailable, startPostgres, type PostgresCluster } from './helpers/postgres.js';
import { startRelay } from './helpers/relay.js';

const available = postgresAvailable();
let cluster: PostgresCluster;
const opened: Store[] = [];

beforeAll(async () => {
  if (available) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const store of opened) await store.close();
  cluster?.cleanup();
});

const T0 = Date.parse('2026-01-05T10:00:00Z');
const open = (url: string, env: NodeJS.ProcessEnv = { PGPASSWORD: ADMIN_PASSWORD }, machine = 'test-machine') => {
  const warnings: string[] = [];
  const store = openStore(url, { env, machine, timeout: 5, warn: (text) => warnings.push(text), home: '/nonexistent' });
  opened.push(store);
  return Object.assign(store, { warnings });
};
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
};

describe.skipIf(!available)('PostgreSQL store: schema', () => {
  it('ten stores opening at once on an empty database make the schema once', async () => {
    const database = await cluster.createDatabase();
    const stores = Array.from({ length: 10 }, (_, i) => open(cluster.url(database), undefined, `m${i}`));
    await Promise.all(stores.map((store, i) => store.history.append([point(`c${i}`, T0, i)])));
    const versions = await cluster.admin((sql) => sql`select version from rep_schema_version order by version`, database);
    expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect((await stores[0]!.history.stats()).points).toBe(10);
  });

  it('a database with a newer schema is refused, naming both versions (exit 8)', async () => {
    const database = await cluster.createDatabase();
    await open(cluster.url(database)).history.stats();
    await cluster.admin((sql) => sql`insert into rep_schema_version (version) values (${SCHEMA_VERSION + 5})`, database);
    const error = await failureOf(open(cluster.url(database)).history.range({ key: 'x' }));
    expect(error.exitCode).toBe(ExitCode.store);
    expect(error.message).toBe(`the store's schema is version ${SCHEMA_VERSION + 5}, newer than this rep knows (version ${SCHEMA_VERSION})`);
    expect(error.hint).toMatch(/upgrade rep/);
  });
});

describe.skipIf(!available)('PostgreSQL store: the schema checked with the first read', () => {
  const key = { baseUrl: 'https://api.example.test/api', endpoint: 'audit' as const, query: 'Blue Bottle', keyFingerprint: 'aaaa000011112222' };
  const fresh = () => ({ maxAgeMs: 60_000, now: Date.now() });
  const answer = () => ({ status: 200, bodyText: '{"score":1}', storedAt: Date.now() });

  it('a lookup as the first statement on an empty database misses and makes the schema; ten at once make it once', async () => {
    const database = await cluster.createDatabase();
    const stores = Array.from({ length: 10 }, (_, i) => open(cluster.url(database), undefined, `m${i}`));
    expect(await Promise.all(stores.map((store) => store.answers.get(key, fresh())))).toEqual(Array(10).fill(undefined));
    const versions = await cluster.admin((sql) => sql`select version from rep_schema_version order by version`, database);
    expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(await stores[0]!.answers.put(key, answer())).toEqual({ stored: true });
    expect(await open(cluster.url(database)).answers.getMany([key], fresh())).toEqual([expect.objectContaining({ bodyText: '{"score":1}' })]);
    expect(stores.flatMap((store) => store.warnings)).toEqual([]);
  });

  it('a key with a NUL (no statement can carry one) misses alone: the other keys of the lookup are answered', async () => {
    const store = open(cluster.url(await cluster.createDatabase()));
    expect(await store.answers.put(key, answer())).toEqual({ stored: true });
    const found = await store.answers.getMany([{ ...key, query: 'Blue\u0000Bottle' }, key], fresh());
    expect(found.map((hit) => hit?.bodyText)).toEqual([undefined, '{"score":1}']);
    expect(store.warnings).toEqual([]);
  });

  it('a lookup as the first statement on a newer schema misses, warning once; every later call is refused (exit 8)', async () => {
    const database = await cluster.createDatabase();
    const first = open(cluster.url(database));
    expect(await first.answers.put(key, answer())).toEqual({ stored: true });
    await cluster.admin((sql) => sql`insert into rep_schema_version (version) values (${SCHEMA_VERSION + 1})`, database);
    const store = open(cluster.url(database));
    expect(await store.answers.get(key, fresh())).toBeUndefined(); // the answer is there, but not read from a schema rep does not know
    const refusal = `the store's schema is version ${SCHEMA_VERSION + 1}, newer than this rep knows (version ${SCHEMA_VERSION})`;
    expect(store.warnings).toEqual([`${refusal}; going on without it`]);
    const error = await failureOf(store.history.stats());
    expect([error.exitCode, error.message]).toEqual([ExitCode.store, refusal]);
  });
});

describe.skipIf(!available)('PostgreSQL store: faults', () => {
  it('the database unreachable: one clear line and exit 8 where the history is needed; answers miss with one warning', async () => {
    const port = cluster.port === 65_535 ? 65_534 : cluster.port + 1;
    const store = open(`postgres://rep@127.0.0.1:${port}/team`, { PGPASSWORD: 'never-shown-1' });
    const error = await failureOf(store.history.range({ key: 'x' }));
    expect(error.exitCode).toBe(8);
    expect(error.message).toBe(`cannot reach the store at rep@127.0.0.1:${port}/team: connection refused (is PostgreSQL running?)`);
    const key = { baseUrl: 'https://api.example.test', endpoint: 'audit' as const, query: 'x', keyFingerprint: 'f' };
    expect(await store.answers.get(key, { maxAgeMs: 60_000, now: T0 })).toBeUndefined();
    expect(await store.answers.get(key, { maxAgeMs: 60_000, now: T0 })).toBeUndefined();
    expect(store.warnings).toEqual([`cannot reach the store at rep@127.0.0.1:${port}/team: connection refused (is PostgreSQL running?); going on without it`]);
    await store.ledger.record({ keyFingerprint: 'f', baseUrl: key.baseUrl }, T0);
    expect((await store.ledger.settle())?.message).toMatch(/^cannot reach the store/);
  });

  it('cut off mid-run: told once, then not asked again for OUTAGE_MS (no connection tried); asked again after, it answers', async () => {
    const database = await cluster.createDatabase();
    const relay = await startRelay(cluster.port);
    const warnings: string[] = [];
    const url = `postgres://postgres@127.0.0.1:${relay.port}/${database}?sslmode=disable`;
    const store = openStore(url, { env: { PGPASSWORD: ADMIN_PASSWORD }, machine: 'm', timeout: 1, warn: (text) => warnings.push(text), home: '/nonexistent' });
    opened.push(store);
    const key = { baseUrl: 'https://api.example.test', endpoint: 'audit' as const, query: 'x', keyFingerprint: 'f' };
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    try {
      await store.history.append([point('a', T0, 1)]);
      relay.cut();
      const first = await failureOf(store.history.range({ key: 'a' }));
      expect(first.message).toBe(`cannot reach the store at postgres@127.0.0.1:${relay.port}/${database}: no answer in time`);
      const tried = relay.connectionsSinceCut;
      expect(tried).toBeGreaterThan(0);
      relay.heal();
      vi.setSystemTime(T0 + OUTAGE_MS - 1);
      expect(await failureOf(store.history.range({ key: 'a' }))).toBe(first);
      expect(await store.answers.get(key, { maxAgeMs: 60_000, now: T0 })).toBeUndefined();
      await store.ledger.record({ keyFingerprint: 'f', baseUrl: key.baseUrl }, T0);
      expect(await store.ledger.settle()).toBe(first);
      expect(warnings).toEqual([`${first.message}; going on without it`]);
      expect(relay.connectionsSinceCut).toBe(tried);
      vi.setSystemTime(T0 + OUTAGE_MS);
      expect((await store.history.range({ key: 'a' })).map((p) => p.score)).toEqual([1]);
      expect(relay.connections).toBeGreaterThan(tried + 1);
    } finally {
      vi.useRealTimers();
      await relay.close();
    }
  });

  it('a wrong password is named as such and never echoed', async () => {
    const database = await cluster.createDatabase();
    const store = open(cluster.url(database), { PGPASSWORD: 'wrong-pass-7731' });
    const error = await failureOf(store.history.stats());
    expect(error.message).toBe(`the store at postgres@127.0.0.1:${cluster.port}/${database} refused the password for user postgres`);
    expect(error.hint).toBe('check the password in REP_STORE, PGPASSWORD or ~/.pgpass');
    expect(JSON.stringify({ message: error.message, hint: error.hint, details: store.describe() })).not.toContain('wrong-pass-7731');
  });

  it('a read-only role reads the history and is told, naming the role, when it would write', async () => {
    const database = await cluster.createDatabase();
    const writer = open(cluster.url(database));
    await writer.history.append([point('Blue Bottle', T0, 80)]);
    await cluster.admin(async (sql) => {
      await sql.unsafe(`create role reader login password 'reader-pass'`);
      await sql.unsafe(`grant select on all tables in schema public to reader`);
    }, database);
    const reader = open(cluster.url(database, 'reader'), { PGPASSWORD: 'reader-pass' });
    expect((await reader.history.range({ key: 'blue bottle' })).map((p) => p.score)).toEqual([80]);
    const error = await failureOf(reader.history.append([point('Blue Bottle', T0 + 1000, 81)]));
    expect(error.message).toBe(
      `the store at reader@127.0.0.1:${cluster.port}/${database} does not let reader record history points: permission denied for table rep_history`,
    );
    expect(error.exitCode).toBe(8);
  });

  it('a statement timeout is said as one', async () => {
    const database = await cluster.createDatabase();
    const url = `${cluster.url(database)}&options=-c%20statement_timeout%3D300`;
    const store = open(url);
    await store.history.stats();
    // The table locked by another session: the read waits until the server's timeout ends it.
    await cluster.admin(
      (sql) =>
        sql.begin(async (tx) => {
          await tx`lock table rep_history in access exclusive mode`;
          const error = await failureOf(store.history.range({ key: 'x' }));
          expect(error.message).toBe(`the store at postgres@127.0.0.1:${cluster.port}/${database} took too long to read the history (statement timeout)`);
        }),
      database,
    );
  });

  it('a connection ended under the store, and the server restarted between two runs: no point is lost', async () => {
    const database = await cluster.createDatabase();
    const store = open(cluster.url(database));
    await store.history.append([point('a', T0, 1)]);
    await cluster.admin((sql) => sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'rep' and datname = ${database}`);
    await store.history.append([point('a', T0 + 1000, 2)]);
    await store.close();
    cluster.stop();
    cluster.start();
    const next = open(cluster.url(database));
    expect((await next.history.range({ key: 'a' })).map((p) => p.score)).toEqual([1, 2]);
    // The same store across a restart: its connections went away under it.
    cluster.stop();
    cluster.start();
    await next.history.append([point('a', T0 + 2000, 3)]);
    expect((await next.history.range({ key: 'a' })).map((p) => p.score)).toEqual([1, 2, 3]);
  });
});

describe.skipIf(!available)('PostgreSQL store: single-flight', () => {
  it('two machines asking one question at once: the second runs after the first is done; a wait ends with its signal', async () => {
    const database = await cluster.createDatabase();
    const [first, second] = [open(cluster.url(database), undefined, 'a'), open(cluster.url(database), undefined, 'b')];
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const one = first.singleFlight!.run('audit Blue Bottle', async () => {
      order.push('first start');
      started();
      await held;
      order.push('first end');
    });
    await running;
    const aborter = new AbortController();
    const third = first.singleFlight!.run('audit Blue Bottle', async () => order.push('third ran'), aborter.signal);
    const two = second.singleFlight!.run('audit Blue Bottle', async () => order.push('second ran'));
    aborter.abort(new Error('gave up waiting'));
    await expect(third).rejects.toThrow('gave up waiting');
    release();
    await Promise.all([one, two]);
    expect(order).toEqual(['first start', 'first end', 'second ran']);
  });
});
