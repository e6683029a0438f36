// A write to stdout that fails for any reason but a closed reader (full disk, I/O error, a descriptor
// not open for writing) loses data: rep says so in one line and exits 1, for every kind of command.
// stdout here is /dev/full (every write fails with ENOSPC) or a file opened read-only (EBADF).
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, useRep, type CliResult } from './helpers/cli.js';
import { serveCompanyAudits } from './helpers/companies.js';

const fixture = useRep();
const descriptors: number[] = [];
afterEach(() => {
  for (const fd of descriptors.splice(0)) closeSync(fd);
});

/** Runs rep with stdout on /dev/full, or on a file opened with `flags`. */
function repInto(target: 'full' | 'read-only', args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  let fd: number;
  if (target === 'full') fd = openSync('/dev/full', 'w');
  else {
    const file = join(fixture.home().dir, 'out.txt');
    writeFileSync(file, '');
    fd = openSync(file, 'r');
  }
  descriptors.push(fd);
  return runCli(['--retries', '0', ...args], { home: fixture.home(), env, stdoutFd: fd });
}

const FULL = 'rep: cannot write output: no space left on device\n';

describe.skipIf(!existsSync('/dev/full'))('stdout on a full disk', () => {
  it.each([
    [['--sandbox', 'pulse']],
    [['--sandbox', '--format', 'table', 'pulse']],
    [['--sandbox', '--format', 'csv', 'search', 'co']],
    [['--sandbox', '--format', 'ndjson', 'audit', 'Compass & Acorn Studio']],
    [['completion', 'bash']],
    [['--help']],
    [['-h']],
    [['audit', '--help']],
    [['--version']],
    [['-V']],
  ])('rep %j exits 1 and says the output was lost', async (args) => {
    const result = await repInto('full', args);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 1, stderr: FULL });
  });

  it('status too', async () => {
    const result = await repInto('full', ['status'], { REP_API_KEY: 'k-0123456789', REP_BASE_URL: 'http://127.0.0.1:9/api' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 1, stderr: FULL });
  });

  it('a batch stops sending and exits 1 instead of passing a cut-off file for success', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `Company ${i + 1}`);
    const server = await fixture.server();
    const audits = serveCompanyAudits(server, { companies: names });
    const file = join(fixture.home().dir, 'names500.txt');
    writeFileSync(file, `${names.join('\n')}\n`);
    const result = await repInto('full', ['--format', 'ndjson', 'audit', '--file', file], { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href });
    const afterPlan = result.stderr.replace(/^rep: this batch needs 500 requests; [^\n]*\n/, ''); // 500 names are more than the hour's 100
    expect({ code: result.code, stderr: afterPlan }).toEqual({ code: 1, stderr: FULL });
    expect(audits.received().length).toBeLessThan(names.length);
  });
});

describe.skipIf(!existsSync('/dev/full'))('stderr on a full disk', () => {
  it.each([
    [['--base-url', 'notaurl', 'pulse'], 2],
    [['--json', 'status'], 4], // no key: the status, then an error
  ])('rep %j still exits %i: talk that cannot be written is dropped, not a crash', async (args, code) => {
    const fd = openSync('/dev/full', 'w');
    descriptors.push(fd);
    const result = await runCli(['--retries', '0', ...args], { home: fixture.home(), env: { REP_BASE_URL: 'http://127.0.0.1:9/api' }, stderrFd: fd });
    expect(result.code).toBe(code);
  });
});

describe('stdout not open for writing', () => {
  it.each([[['--sandbox', 'pulse']], [['--version']], [['--help']]])('rep %j exits 1 naming the cause', async (args) => {
    const result = await repInto('read-only', args);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 1, stderr: 'rep: cannot write output: bad file descriptor\n' });
  });
});
