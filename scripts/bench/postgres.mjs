// `npm run bench`'s rows for the PostgreSQL store, on its own throwaway cluster (initdb and pg_ctl in a
// temp dir, as the postgres user when run as root; a unix socket and a loopback port): a cached audit
// with REP_STORE against `node -e 0` (target ≤ 2.0×), and a 10,000-name batch answered from the shared
// cache against the same batch from the local store's cache (target ≤ 1.5×). Skipped, saying so, where
// PostgreSQL is not installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')));
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** A cluster with database `rep` (trust on loopback: the bench measures rep, not SCRAM); its URL and a stop(). */
async function startCluster() {
  const bin = postgresBin();
  if (!bin) return undefined;
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'rep-bench-pg-'));
  if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const as = (command, args) => {
    const result = root ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : spawnSync(join(bin, command), args);
    if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`);
  };
  const port = await freePort();
  as('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  as('pg_ctl', ['-D', join(dir, 'data'), '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`, '-w', '-l', join(dir, 'log'), 'start']);
  as('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', 'rep']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/rep?sslmode=disable`,
    stop() {
      as('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The rows. `tools` are bench.mjs's own: isolatedEnv, timed, median, shuffled, ratio, and the run's
 * REP, KEY, CACHED_NAME, the names file of the big batch, its rounds.
 */
export async function benchPostgres(line, url, tools) {
  const { isolatedEnv, timed, median, shuffled, ratio, REP, KEY, CACHED_NAME, namesFile, rounds, batchRuns } = tools;
  const cluster = await startCluster();
  if (!cluster) return console.log('\nPostgreSQL store: not measured (PostgreSQL is not installed).');
  try {
    const local = isolatedEnv('pg-local', { REP_BASE_URL: url, REP_API_KEY: KEY, REP_MAX_AGE: '24h' });
    const shared = isolatedEnv('pg-shared', { REP_BASE_URL: url, REP_API_KEY: KEY, REP_MAX_AGE: '24h', REP_STORE: cluster.url });
    // Answers in place first (and rep's code cache made), as for bench.mjs's own cached audit.
    for (const env of [local, shared]) {
      await timed(line.node, [REP, 'audit', CACHED_NAME], env);
      await timed(line.node, [REP, 'audit', '--file', namesFile, '--format', 'ndjson'], env);
    }
    const single = { floor: [], store: [] };
    for (let round = 0; round < rounds; round++) {
      for (const which of shuffled(['floor', 'store'])) {
        const args = which === 'floor' ? ['-e', '0'] : [REP, 'audit', CACHED_NAME];
        single[which].push((await timed(line.node, args, shared)).ms);
      }
    }
    const batch = { local: [], store: [] };
    for (let run = 0; run < batchRuns; run++) {
      for (const which of shuffled(['local', 'store'])) {
        batch[which].push((await timed(line.node, [REP, 'audit', '--file', namesFile, '--format', 'ndjson'], which === 'local' ? local : shared)).ms);
      }
    }
    const floor = median(single.floor);
    const audit = median(single.store);
    console.log(`\nPostgreSQL store on loopback (Node ${line.version}; medians of ${rounds} rounds and ${batchRuns} batch runs)\n`);
    console.log('| `node -e 0` | audit from the shared cache | 10,000 names from the local cache → the shared cache |');
    console.log('| ---: | ---: | ---: |');
    const [fromLocal, fromShared] = [median(batch.local), median(batch.store)];
    console.log(
      `| ${floor.toFixed(0)} ms | ${audit.toFixed(0)} ms, ${ratio(audit, floor, 2.0)} | ${(fromLocal / 1000).toFixed(2)} s → ${(fromShared / 1000).toFixed(2)} s, ${ratio(fromShared, fromLocal, 1.5)} |`,
    );
    console.log('\nTargets: a cached audit with REP_STORE ≤ 2.0× `node -e 0`; the batch from the shared cache ≤ 1.5× the local one.');
  } finally {
    cluster.stop();
  }
}
