// Prints one plain closing line, `tests: N passed, N failed, N skipped`, that CI can read whatever
// the test runner's own summary looks like.
import type { Reporter, TestModule } from 'vitest/node';

class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}

// vitest loads a reporter given by path through its default export.
export default SummaryReporter;
