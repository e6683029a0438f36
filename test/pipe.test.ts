// A reader that goes away (`rep … | head -1`): rep ends quietly with exit 0, no EPIPE stack and no
// `rep:` line, and sends no further requests.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REP_BIN, useRep } from './helpers/cli.js';
import { serveCompanyAudits, type CompanyAudits } from './helpers/companies.js';

const fixture = useRep();
let audits: CompanyAudits | undefined;
const children = new Set<ReturnType<typeof spawn>>();

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

interface HeadResult {
  code: number | null;
  stderr: string;
  firstLine: string;
  /** Requests the server had received when the reader went away, and when rep had exited. */
  receivedAtClose: number;
  receivedAtExit: number;
}

/** Runs rep with its stdout read like `head -1`: after the first line the read side is destroyed. */
function runHeadOne(args: string[], env: Record<string, string>): Promise<HeadResult> {
  const childEnv = { PATH: process.env.PATH ?? '', ...fixture.home().env, ...env };
  const child = spawn(process.execPath, [REP_BIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  let receivedAtClose = -1;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (receivedAtClose < 0 && stdout.includes('\n')) {
      receivedAtClose = audits?.received().length ?? 0;
      child.stdout.destroy();
    }
  });
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      children.delete(child);
      resolve({ code, stderr, firstLine: stdout.split('\n')[0] ?? '', receivedAtClose, receivedAtExit: audits?.received().length ?? 0 });
    });
  });
}

describe('a closed stdout', () => {
  it('ends a batch quietly with exit 0 and stops sending requests', async () => {
    const names = Array.from({ length: 2000 }, (_, i) => `Company ${i + 1}`);
    const server = await fixture.server();
    audits = serveCompanyAudits(server, { companies: names, maxDelayMs: 5 });
    const file = join(fixture.home().dir, 'big.txt');
    writeFileSync(file, `${names.join('\n')}\n`);
    const result = await runHeadOne(['--retries', '0', '--format', 'ndjson', 'audit', '--file', file], { REP_API_KEY: 'k', REP_BASE_URL: server.baseUrl.href });
    expect(JSON.parse(result.firstLine)).toMatchObject({ query: 'Company 1' });
    expect(result.stderr).toMatch(/^rep: this batch needs 2000 requests; 100 are left this hour [^\n]*\n$/); // the plan, and nothing after
    expect(result.code).toBe(0);
    // Only requests already in flight (or started before the next write found the pipe closed) follow:
    // at first the batch is no more than its 4 requests in flight ahead of its output.
    expect(result.receivedAtExit - result.receivedAtClose).toBeLessThanOrEqual(8);
    expect(result.receivedAtClose).toBeLessThanOrEqual(8);
    expect(result.receivedAtExit).toBeLessThan(names.length);
  });

  it.each([
    [['--format', 'ndjson', 'search', 'co']],
    [['--format', 'json', 'search', 'co']],
    [['--format', 'csv', 'audit', 'Compass & Acorn Studio']],
    [['--format', 'ndjson', 'pulse']],
  ])('ends %j quietly with exit 0', async (args) => {
    const result = await runHeadOne(['--sandbox', ...args], {});
    expect(result.firstLine).not.toBe('');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  const quickCommands = [
    ['--help'],
    ['-h'],
    ['--version'],
    ['-V'],
    ['audit', '--help'],
    ['completion', 'bash'],
    ['status'],
    ['--sandbox', '--format', 'csv', 'search', 'co'],
  ];
  it.each(quickCommands.map((args) => [args]))('rep %j into a reader that has gone: exit 0 and nothing on stderr', (args) => {
    const env = { REP_API_KEY: 'k', REP_BASE_URL: 'http://127.0.0.1:9/api' }; // status sends nothing
    expect(intoClosedPipe(args, env)).toEqual({ stdout: 'exit=0\n', stderr: '' });
  });

  it('a shell pipeline into a reader that never reads: exit 0 and nothing on stderr', () => {
    // The reader closes its end at once (long before rep has started), so every write rep makes meets a closed pipe (EPIPE).
    const commands = [['--format', 'ndjson', 'search', 'co'], ['pulse'], ['--format', 'ndjson', 'audit', 'Compass & Acorn Studio', 'Cozy Pebble Drugstore']];
    for (const command of commands) {
      expect({ command, ...intoClosedPipe(['--sandbox', ...command]) }).toEqual({ command, stdout: 'exit=0\n', stderr: '' });
    }
  });
});

/** Runs rep with its stdout a pipe whose reader closed its end at once (long before rep has started). */
function intoClosedPipe(args: string[], env: Record<string, string> = {}): { stdout: string; stderr: string } {
  const quoted = args.map((arg) => `'${arg}'`).join(' ');
  const script = `"${process.execPath}" "${REP_BIN}" ${quoted} | (exec 0<&-; sleep 0.2); echo "exit=\${PIPESTATUS[0]}"`;
  const run = spawnSync('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', ...fixture.home().env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { stdout: run.stdout, stderr: run.stderr };
}
