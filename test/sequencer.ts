// The order test files start in. vitest starts the longest first when it has each file's duration from
// an earlier run (node_modules/.vite/vitest/), so the last files to end are short ones. A fresh clone has
// none, and vitest then starts the largest files first: the slowest tests sit in short files (a year of
// history, 40 processes on a PostgreSQL store), which started last and ran on alone at the end. Without
// a duration for every file, the files of SLOWEST start first, in its order, then the rest by size.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take longest, slowest first (a hint for a run without durations: wrong is only slower). */
export const SLOWEST = [
  'test/completion.test.ts',
  'test/startup.test.ts',
  'test/store-local-year.test.ts',
  'test/batch.test.ts',
  'test/store-postgres-processes.test.ts',
  'test/answer-cache-batch.test.ts',
  'test/faults.test.ts',
  'test/output-edge.test.ts',
  'test/terminal.test.ts',
  'test/answer-cache-rerun.test.ts',
  'test/interrupt.test.ts',
  'test/store-local-crash.test.ts',
  'test/pipe.test.ts',
  'test/report-browser.test.ts',
  'test/store-postgres-cli.test.ts',
  'test/contract-gaps.test.ts',
  'test/output-deep.test.ts',
  'test/package.test.ts',
  'test/store-postgres-faults.test.ts',
  'test/request-count.test.ts',
  'test/answer-cache-processes.test.ts',
];
// A renamed file would quietly drop out of the list: every listed file must exist.
const missing = SLOWEST.filter((path) => !existsSync(new URL(`../${path}`, import.meta.url)));
if (missing.length > 0) throw new Error(`test/sequencer.ts lists test files that do not exist: ${missing.join(', ')}`);

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const { cache, config } = this.ctx;
    const path = (spec: TestSpecification) => relative(config.root, spec.moduleId).replaceAll('\\', '/');
    if (sorted.every((spec) => cache.getFileTestResults(`${spec.project.name}:${path(spec)}`))) return sorted;
    const rank = (spec: TestSpecification) => {
      const at = SLOWEST.indexOf(path(spec));
      return at === -1 ? SLOWEST.length : at;
    };
    // Array.prototype.sort is stable: the files not listed keep the size order BaseSequencer gave them.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
