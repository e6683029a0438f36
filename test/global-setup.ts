// End-to-end tests run the built CLI: build dist/ once before any test file runs. The PostgreSQL
// tests share one cluster a run (test/helpers/postgres.ts): started by the first file that asks, in
// the folder given here, and stopped when the run ends; so is the pool of code cache entries that
// spawned reps share (helpers/cli.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { stopSharedPostgres } from './helpers/postgres.js';
import { tmpfsFolder } from './helpers/tmpfs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's shared PostgreSQL cluster is started and found (sharedPostgres). */
    postgresRun: string;
    /** Code cache entries that spawned reps made in new homes, to seed the next new homes with (helpers/cli.ts). */
    codeCachePool: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // The tests make and remove thousands of temp files (homes, caches, histories, a PostgreSQL cluster,
  // spawned reps' own). Where the machine has a RAM file system with room, they go there: each file
  // made on this VM's disk cost several times the system time, and that time moved from run to run
  // (docs/performance.md). Workers and the processes they spawn inherit TMPDIR; one the caller set is kept.
  const ramTemp = process.env.TMPDIR ? undefined : ramTempDir();
  if (ramTemp) process.env.TMPDIR = ramTemp;
  // Without the .d.ts files (seconds of tsc), which the tarball test alone needs: it packs a copy of this
  // dist/ with the types added (test/package.test.ts), as prepack's full build would write it.
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-types', '--if-changed'], { cwd: root, stdio: 'inherit' });
  const postgresRun = mkdtempSync(join(tmpdir(), 'rep-pg-run-'));
  project.provide('postgresRun', postgresRun);
  const codeCachePool = mkdtempSync(join(tmpdir(), 'rep-code-pool-'));
  project.provide('codeCachePool', codeCachePool);
  return () => {
    stopSharedPostgres(postgresRun);
    rmSync(codeCachePool, { recursive: true, force: true });
    if (ramTemp) rmSync(ramTemp, { recursive: true, force: true });
  };
}

/** A folder of this run's on tmpfs (/dev/shm) when that is writable and has 2 GB free, else undefined. */
function ramTempDir(): string | undefined {
  const base = tmpfsFolder(2 * 1024 ** 3);
  if (!base) return undefined;
  try {
    const dir = mkdtempSync(join(base, 'rep-test-run-'));
    chmodSync(dir, 0o711); // as /tmp lets them, other users (the PostgreSQL cluster's) reach their own folders in it
    return dir;
  } catch {
    return undefined;
  }
}
