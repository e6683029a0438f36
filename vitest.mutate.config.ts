// The tests `npm run mutate` runs against each mutant: the in-process unit files that cover the
// pure core, without the global setup that builds dist/ (no test here spawns rep or runs main()).
import { defineConfig } from 'vitest/config';

export const MUTATE_TESTS = [
  'test/*.unit.test.ts',
  'test/api-client.test.ts',
  'test/api-request-log.test.ts',
  'test/batch-change.test.ts',
  'test/batch-units.test.ts',
  'test/history-units.test.ts',
  'test/options.test.ts',
  'test/output-render.test.ts',
  'test/output-shape.test.ts',
  'test/ratelimit.test.ts',
  'test/scrub.test.ts',
  'test/views-aliases.test.ts',
];

export default defineConfig({
  test: {
    include: MUTATE_TESTS,
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
