// One sandbox per test file (or describe block), started before its tests and closed after them.
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/** Call at a file's or describe's top level; `url` and `key` are readable once the tests run. */
export function useSandbox(options: SandboxOptions = { limit: 10_000 }): Pick<RunningSandbox, 'url' | 'key'> {
  let running: RunningSandbox | undefined;
  beforeAll(async () => {
    // A fixture: every request reaches it (no-store) unless a test asks for the sandbox's own caching rule.
    running = await startSandbox({ port: 0, cacheControl: 'no-store', ...options });
  });
  afterAll(async () => {
    await running?.close();
  });
  const started = (): RunningSandbox => {
    if (!running) throw new Error('useSandbox: read url or key inside a test, after beforeAll');
    return running;
  };
  return {
    get url() {
      return started().url;
    },
    get key() {
      return started().key;
    },
  };
}
