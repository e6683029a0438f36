// Ctrl-C and SIGTERM end rep with exit 130 whenever they come: during start-up, before the command
// has even been loaded, and in the middle of a batch, whose JSON array is still closed on the way out.
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, useRep } from './helpers/cli.js';
import { auditBody, serveCompanyAudits } from './helpers/companies.js';

const fixture = useRep();
const descriptors: number[] = [];
afterEach(() => {
  for (const fd of descriptors.splice(0)) closeSync(fd);
});

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
    const register = `register(new URL('./gate-hooks.mjs', import.meta.url), { data: ${JSON.stringify(gate)} });`;
    writeFileSync(join(dir, 'gate.mjs'), `import { register } from 'node:module';\n${register}\n`);
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
    expect(result).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
  });
});

describe('an interrupted json batch', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s: the file holds every record written so far and a closed array, exit 130', async (signalName) => {
    const names = Array.from({ length: 10 }, (_, i) => `Company ${i + 1}`);
    const server = await fixture.server();
    const audits = serveCompanyAudits(server, { companies: names, hold: ['Company 6'] });
    const out = join(fixture.home().dir, 'out.json');
    const fd = openSync(out, 'w');
    descriptors.push(fd);
    const interrupt = new AbortController();
    // One request at a time: when Company 6's request arrives, records 1-5 are in the file.
    void audits.arrived('Company 6').then(() => interrupt.abort());
    const result = await runCli(['--retries', '0', '--format', 'json', 'audit', '--concurrency', '1', ...names], {
      home: fixture.home(),
      env: { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href },
      stdoutFd: fd,
      signal: interrupt.signal,
      interruptWith: signalName,
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('');
    expect(existsSync(out)).toBe(true);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(names.slice(0, 5).map((name) => ({ query: name, result: auditBody(name) })));
  });
});
