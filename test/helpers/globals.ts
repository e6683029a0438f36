// The global options of a run as program.ts gives them by default (retries 0, as useRep runs rep),
// for tests that build Deps directly with createDeps.
import type { GlobalOptions } from '../../src/deps.js';

export function testGlobals(overrides: Partial<GlobalOptions> = {}): GlobalOptions {
  return {
    json: false,
    bom: false,
    color: true,
    cache: true,
    timeout: 30,
    retries: 0,
    wait: false,
    maxWait: 3_600_000,
    debug: false,
    quiet: false,
    sandbox: false,
    ...overrides,
  };
}
