// End-to-end tests run the built CLI: build dist/ once before any test file runs. The PostgreSQL
// tests share one cluster a run (test/helpers/postgres.ts): started by the first file that asks, in
// the folder given here, and stopped when the run ends.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { stopSharedPostgres } from './helpers/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's shared PostgreSQL cluster is started and found (sharedPostgres). */
    postgresRun: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // Without the .d.ts files (seconds of tsc): the tarball test packs, and packing builds them.
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-types'], { cwd: root, stdio: 'inherit' });
  const postgresRun = mkdtempSync(join(tmpdir(), 'rep-pg-run-'));
  project.provide('postgresRun', postgresRun);
  return () => stopSharedPostgres(postgresRun);
}
