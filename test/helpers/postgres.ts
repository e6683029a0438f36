// A throwaway PostgreSQL cluster: initdb in a temp dir (as the `postgres` user when run as root: initdb
// refuses root), a unix socket in that dir and a free loopback port, password authentication on TCP (so
// a wrong password is the server's own refusal), removed afterwards. A test file that stops or restarts
// its server starts one of its own (startPostgres); the others share the run's (sharedPostgres), a
// database each, as initdb and a server start are seconds of a run. Where PostgreSQL is not installed
// the tests are skipped, except under CI=true, where that fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/** The superuser's password on TCP; tests give it through PGPASSWORD or the URL. */
export const ADMIN_PASSWORD = 'admin-secret-4f1c';

export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

/** Whether the tests can run; under CI=true a missing PostgreSQL is an error, never a skip. */
export function postgresAvailable(): boolean {
  const found = findPostgresBin() !== undefined;
  if (!found && process.env.CI === 'true') throw new Error('PostgreSQL is not installed (apt-get install postgresql): CI runs the store tests against it');
  return found;
}

export interface PostgresCluster {
  port: number;
  socketDir: string;
  /** A TCP URL (no password in it: the tests give PGPASSWORD) to `database` as `user`. */
  url(database: string, user?: string): string;
  /** A new empty database (named apart from every other file's on a shared cluster). */
  createDatabase(): Promise<string>;
  /** Runs SQL as the superuser on a database (default: postgres). */
  admin<T>(work: (sql: postgres.Sql) => Promise<T>, database?: string): Promise<T>;
  /** Stop and start: only on a cluster of the file's own (startPostgres). */
  stop(): void;
  start(): void;
  /** Stops the file's own cluster and removes it; on the shared one, nothing (global-setup.ts stops it). */
  cleanup(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program as the `postgres` user where this is root (initdb and the server refuse root). */
function runner(bin: string): (command: string, args: string[]) => void {
  const root = userInfo().uid === 0;
  return (command, args) => {
    const result = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { encoding: 'utf8' })
      : spawnSync(join(bin, command), args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
}

/** A new cluster of the file's own, which it may stop and start. */
export async function startPostgres(): Promise<PostgresCluster> {
  const { dir, port } = await initCluster(200);
  const as = runner(findPostgresBin()!);
  const data = join(dir, 'data');
  let databases = 0;
  return {
    ...clusterAt(dir, port, () => `rep_test_${++databases}`),
    start: () => as('pg_ctl', ['-D', data, '-o', serverOptions(dir, port, 200), '-w', '-l', join(dir, 'log'), 'start']),
    stop: () => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    cleanup: () => removeCluster(dir),
  };
}
/**
 * The run's shared cluster: the first file to ask starts it in the folder global-setup.ts provides
 * (`postgresRun`), the others wait for it; each database name is taken once in that folder.
 */
export async function sharedPostgres(): Promise<PostgresCluster> {
  const { inject } = await import('vitest');
  const run = inject('postgresRun');
  const ready = join(run, 'cluster.json');
  let started: { dir: string; port: number } | undefined;
  try {
    mkdirSync(join(run, 'starting'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    started = await waitForCluster(ready);
  }
  if (!started) {
    try {
      // Files in parallel, each with stores of its own and processes that connect at once.
      started = await initCluster(400);
      writeFileSync(`${ready}.tmp`, JSON.stringify(started));
      renameSync(`${ready}.tmp`, ready);
    } catch (error) {
      writeFileSync(join(run, 'failed'), String(error));
      throw error;
    }
  }
  const unique = () => {
    for (let n = 1; ; n++) {
      try {
        mkdirSync(join(run, `database-${n}`));
        return `rep_test_${n}`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // else taken by another file
      }
    }
  };
  const refuse = () => {
    throw new Error('the shared cluster is not stopped by a test file: startPostgres() gives one of its own');
  };
  return { ...clusterAt(started.dir, started.port, unique), stop: refuse, start: refuse, cleanup: () => {} };
}

async function waitForCluster(ready: string): Promise<{ dir: string; port: number }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (existsSync(ready)) return JSON.parse(readFileSync(ready, 'utf8')) as { dir: string; port: number };
    const failed = join(ready, '..', 'failed');
    if (existsSync(failed)) throw new Error(`the shared cluster did not start: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error('the shared cluster did not start within a minute');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops and removes the run's shared cluster, if a file started one (global-setup.ts's teardown). */
export function stopSharedPostgres(run: string): void {
  const ready = join(run, 'cluster.json');
  if (existsSync(ready)) removeCluster((JSON.parse(readFileSync(ready, 'utf8')) as { dir: string }).dir);
  rmSync(run, { recursive: true, force: true });
}

function serverOptions(dir: string, port: number, maxConnections: number): string {
  return `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=${maxConnections}`;
}

/** initdb in a new temp dir, then the server started on a free port; the superuser's TCP password set. */
async function initCluster(maxConnections: number): Promise<{ dir: string; port: number }> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'rep-pg-'));
  if (userInfo().uid === 0) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const as = runner(bin);
  const data = join(dir, 'data');
  as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n');
  const port = await freePort();
  as('pg_ctl', ['-D', data, '-o', serverOptions(dir, port, maxConnections), '-w', '-l', join(dir, 'log'), 'start']);
  await clusterAt(dir, port, () => '').admin((sql) => sql.unsafe(`alter role postgres password '${ADMIN_PASSWORD}'`));
  return { dir, port };
}

function removeCluster(dir: string): void {
  try {
    runner(findPostgresBin()!)('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } catch {
    // stopped already
  }
  rmSync(dir, { recursive: true, force: true });
}

/** What a test does with a running cluster: URLs, new databases, SQL as the superuser. */
function clusterAt(dir: string, port: number, databaseName: () => string): Omit<PostgresCluster, 'stop' | 'start' | 'cleanup'> {
  const admin = async <T>(work: (sql: postgres.Sql) => Promise<T>, database = 'postgres') => {
    const sql = postgres({ path: `${dir}/.s.PGSQL.${port}`, database, username: 'postgres', onnotice: () => {}, max: 1 });
    try {
      return await work(sql);
    } finally {
      await sql.end({ timeout: 1 });
    }
  };
  return {
    port,
    socketDir: dir,
    url: (database, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}?sslmode=disable`,
    async createDatabase() {
      const name = databaseName();
      await admin((sql) => sql.unsafe(`create database ${name}`));
      return name;
    },
    admin,
  };
}
