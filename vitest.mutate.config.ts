// The tests `npm run mutate` runs against each mutant: the in-process unit files that cover the
// pure core, and the in-process main() runs that reach it (escapes, hints), without the
// global setup that builds dist/: no test here spawns rep.
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

export const MUTATE_TESTS = [
  'test/*.unit.test.ts',
  'test/api-client.test.ts',
  'test/api-network-errors.test.ts',
  'test/batch-change.test.ts',
  'test/batch-units.test.ts',
  'test/error-hints.test.ts',
  'test/history-units.test.ts',
  'test/options.test.ts',
  'test/output-batch.test.ts',
  'test/output-deep.test.ts',
  'test/output-inert-text.test.ts',
  'test/output-render.test.ts',
  'test/output-shape.test.ts',
  'test/rate-limit.test.ts',
  'test/requests.test.ts',
  'test/response.test.ts',
  'test/scrub.test.ts',
  'test/security-escapes.test.ts',
  'test/time.test.ts',
  'test/views-aliases.test.ts',
];
// A renamed test file would quietly leave its module's mutants unkilled: every named file must exist.
const missing = MUTATE_TESTS.filter((path) => !path.includes('*') && !existsSync(path));
if (missing.length > 0) throw new Error(`vitest.mutate.config.ts names test files that do not exist: ${missing.join(', ')}`);

export default defineConfig({
  test: {
    include: MUTATE_TESTS,
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
