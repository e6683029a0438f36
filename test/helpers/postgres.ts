// A throwaway PostgreSQL cluster for one test file: initdb in a temp dir (as the `postgres` user when
// run as root: initdb refuses root), a unix socket in that dir and a free loopback port, password
// authentication on TCP (so a wrong password is the server's own refusal), removed afterwards.
// Where PostgreSQL is not installed the tests are skipped, except under CI=true, where that fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
  /** A new empty database. */
  createDatabase(): Promise<string>;
  /** Runs SQL as the superuser on a database (default: postgres). */
  admin<T>(work: (sql: postgres.Sql) => Promise<T>, database?: string): Promise<T>;
  stop(): void;
  start(): void;
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

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'rep-pg-'));
  if (root) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const as = (command: string, args: string[]) => {
    const result = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { encoding: 'utf8' })
      : spawnSync(join(bin, command), args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const data = join(dir, 'data');
  as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n');
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () => as('pg_ctl', ['-D', data, '-o', options, '-w', '-l', join(dir, 'log'), 'start']);
  const stop = () => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  let databases = 0;
  const admin = async <T>(work: (sql: postgres.Sql) => Promise<T>, database = 'postgres') => {
    const sql = postgres({ path: `${dir}/.s.PGSQL.${port}`, database, username: 'postgres', onnotice: () => {}, max: 1 });
    try {
      return await work(sql);
    } finally {
      await sql.end({ timeout: 1 });
    }
  };
  await admin((sql) => sql.unsafe(`alter role postgres password '${ADMIN_PASSWORD}'`));
  return {
    port,
    socketDir: dir,
    url: (database, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}?sslmode=disable`,
    async createDatabase() {
      databases += 1;
      const name = `rep_test_${databases}`;
      await admin((sql) => sql.unsafe(`create database ${name}`));
      return name;
    },
    admin,
    start,
    stop,
    cleanup() {
      try {
        as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // stopped already
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
