// Ctrl-C, SIGTERM, SIGHUP and SIGQUIT end rep with exit 130 whenever they come: during start-up, before
// the command has even been loaded, and in the middle of a batch, whose JSON array is still closed on the
// way out, even when a second signal cuts the shutdown short; every request sent is counted, even under SIGKILL.
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, runInProcess, useRep } from './helpers/cli.js';
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

// Preloaded (--require): once cli.ts has set its signal handlers, holds the process there, before main
// is loaded, until the test creates the release file. A signal that comes meanwhile waits for the event loop.
const GATE = `const { appendFileSync, existsSync } = require('node:fs');
const gate = JSON.parse(process.env.REP_TEST_GATE);
const on = process.on;
process.on = function (event, listener) {
  const result = on.call(this, event, listener);
  if (event === 'SIGTERM' && !gate.held) {
    gate.held = true;
    appendFileSync(gate.log, 'holding main\\n');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(gate.release)) Atomics.wait(pause, 0, 0, 10);
  }
  return result;
};
`;

describe('a signal during start-up', () => {
  /** Runs `args` held before main until a signal has come, and returns the result. */
  async function heldThenSignalled(args: string[], signalName: 'SIGTERM' | 'SIGINT', env: Record<string, string> = {}) {
    const dir = fixture.home().dir;
    const gate = { log: join(dir, 'gate.log'), release: join(dir, 'release') };
    writeFileSync(join(dir, 'gate.cjs'), GATE);
    writeFileSync(gate.log, '');
    const interrupt = new AbortController();
    const running = runCli(args, {
      home: fixture.home(),
      env: { ...env, NODE_OPTIONS: `--require=${join(dir, 'gate.cjs')}`, REP_TEST_GATE: JSON.stringify(gate) },
      signal: interrupt.signal,
      interruptWith: signalName,
    });
    await until(() => readFileSync(gate.log, 'utf8').includes('holding main'));
    interrupt.abort(); // cli.ts has set its handlers; main, which runs the command, is not loaded yet
    writeFileSync(gate.release, '');
    return running;
  }

  it.each(['SIGTERM', 'SIGINT'] as const)('%s before main has loaded exits 130, not killed by the signal', async (signalName) => {
    expect(await heldThenSignalled(['--sandbox', 'pulse'], signalName)).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s: an answer from the cache, which waits for nothing, is not written either', async (signalName) => {
    const server = await fixture.server();
    serveCompanyAudits(server, { companies: ['Blue Bottle'] });
    const env = { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href };
    const args = ['--retries', '0', '--format', 'json', 'audit', 'Blue Bottle'];
    expect((await runCli(args, { home: fixture.home(), env })).code).toBe(0); // the answer is in the cache now
    const result = await heldThenSignalled(args, signalName, env);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 130, stdout: '' });
    expect(result.stderr).toMatch(/^rep: cached answer from just now .*\n$/);
    expect(server.count('/api/audit')).toBe(1);
  });
});

describe('an interrupted json batch', () => {
  const names = Array.from({ length: 10 }, (_, i) => `Company ${i + 1}`);

  /** A one-at-a-time json batch into a file, sent `signals` once Company 6's request (the sixth) has arrived. */
  async function interruptedBatch(signals: NodeJS.Signals | NodeJS.Signals[]) {
    const server = await fixture.server();
    const audits = serveCompanyAudits(server, { companies: names, hold: ['Company 6'] });
    const out = join(fixture.home().dir, 'out.json');
    const fd = openSync(out, 'w');
    descriptors.push(fd);
    const interrupt = new AbortController();
    // One request at a time: when Company 6's request arrives, records 1-5 are in the file.
    void audits.arrived('Company 6').then(() => interrupt.abort());
    const env = { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href };
    const result = await runCli(['--retries', '0', '--format', 'json', 'audit', '--concurrency', '1', ...names], {
      home: fixture.home(),
      env,
      stdoutFd: fd,
      signal: interrupt.signal,
      interruptWith: signals,
    });
    const status = await runInProcess(['--json', 'status'], { home: fixture.home(), env });
    const counted = (JSON.parse(status.stdout) as { requests_last_hour: number }).requests_last_hour;
    return { ...result, text: readFileSync(out, 'utf8'), counted, sent: server.count('/api/audit') };
  }
  const firstFive = () => names.slice(0, 5).map((name) => ({ query: name, result: auditBody(name) }));

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const)(
    '%s: exit 130, the file holds every record written so far and a closed array, every request counted',
    async (signalName) => {
      const result = await interruptedBatch(signalName);
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 130, signal: null, stderr: '' });
      expect(JSON.parse(result.text)).toEqual(firstFive());
      expect([result.sent, result.counted]).toEqual([6, 6]);
    },
  );

  it.each([
    ['SIGINT', 'SIGTERM'],
    ['SIGTERM', 'SIGINT'],
  ] as const)('%s then %s at once: the second ends the run at once, the array still closed and every request counted', async (...signals) => {
    const result = await interruptedBatch([...signals]);
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 130, signal: null });
    // Answers still being stored when the second signal came are not waited for: the array holds what was written.
    const records = JSON.parse(result.text) as unknown[];
    expect(records).toEqual(firstFive().slice(0, records.length));
    expect([result.sent, result.counted]).toEqual([6, 6]);
  });

  it('SIGKILL: every request sent before the kill is counted', async () => {
    const result = await interruptedBatch('SIGKILL');
    expect(result.signal).toBe('SIGKILL');
    expect([result.sent, result.counted]).toEqual([6, 6]);
  });
});
