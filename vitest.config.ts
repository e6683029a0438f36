import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: the files that spawn the built CLI load them too, so keep the pool small.
    maxWorkers: 2,
    // Files share a worker's module cache rather than each loading src/ and vitest afresh (about a
    // quarter of the suite's CPU time): every main() run is independent of the runs before it
    // (test/main.test.ts), and the few tests that stub the environment or spy on streams restore them.
    isolate: false,
  },
});
