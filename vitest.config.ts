import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Four workers on two cores: many files spend their time waiting on a spawned rep or a loopback
    // server, so two workers left the cores half idle (87 s -> 47 s for the whole suite here).
    maxWorkers: 4,
    // Test files share a worker's module cache: each main() run is independent (test/main.test.ts), and
    // loading src/ and vitest afresh per file was about a quarter of the suite's CPU time.
    isolate: false,
    // A fresh clone has no durations to order the files by: its first run starts the known slowest first.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
