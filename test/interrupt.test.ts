// Ctrl-C and SIGTERM end rep with exit 130 whenever they come: during start-up, before the command
// has even been loaded, and in the middle of a batch, whose JSON array is still closed on the way out.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useBatchFixture } from './helpers/batch-server.js';
import { runCli } from './helpers/cli.js';

const fixture = useBatchFixture();

/** Resolves once check() holds, looking every few milliseconds (a wait for an event, not a timing assertion). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

// Runs in Node's hooks thread: holds the load of main's chunk until the test creates the release file.
const GATE_HOOKS = `import { appendFileSync, existsSync } from 'node:fs';
let gate;
export function initialize(data) { gate = data; }
export async function load(url, context, nextLoad) {
  if (/\\/chunks\\/main-[^/]+\\.js$/.test(url)) {
    appendFileSync(gate.log, 'holding main\\n');
    while (!existsSync(gate.release)) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return nextLoad(url, context);
}
`;

describe('a signal during start-up', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s before main has loaded exits 130, not killed by the signal', async (signalName) => {
    const dir = fixture.home().dir;
    const gate = { log: join(dir, 'gate.log'), release: join(dir, 'release') };
    writeFileSync(join(dir, 'gate-hooks.mjs'), GATE_HOOKS);
    writeFileSync(join(dir, 'gate.mjs'), `import { register } from 'node:module';\nregister(new URL('./gate-hooks.mjs', import.meta.url), { data: ${JSON.stringify(gate)} });\n`);
    writeFileSync(gate.log, '');
    const interrupt = new AbortController();
    const running = runCli(['--sandbox', 'pulse'], {
      home: fixture.home(),
      env: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'gate.mjs')).href}` },
      signal: interrupt.signal,
      interruptWith: signalName,
    });
    await until(() => readFileSync(gate.log, 'utf8').includes('holding main'));
    interrupt.abort(); // cli.ts has run; main, which runs the command, is not loaded yet
    writeFileSync(gate.release, '');
    const result = await running;
    expect({ code: result.code, signal: result.signal, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
  });
});
