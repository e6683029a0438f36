// What only a terminal shows: the --wait countdown on stderr, and its absence under --quiet. Run on a
// pseudo-terminal (util-linux `script`); skipped where `script` is missing. Off a terminal, one line instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { hasScript, runOnTerminal } from './helpers/terminal.js';

const { home, rep, server: strictServer } = useRep();
const KEY = 'terminal-test-key-123456';

async function limitedOnce() {
  const server = await strictServer();
  server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '0' }, body: {} }, { status: 200, body: { index: 71.5 } });
  return server;
}

describe.skipIf(!hasScript)('--wait on a terminal', () => {
  it('counts down on stderr until the reset, then shows the answer', async () => {
    const server = await limitedOnce();
    const result = await runOnTerminal(home(), ['--wait', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/rate limited; retrying in \d+s…/);
    expect(result.output).toContain('71.5');
    expect(server.count('/api/pulse')).toBe(2);
  });

  it('waits without the countdown under --quiet', async () => {
    const server = await limitedOnce();
    const result = await runOnTerminal(home(), ['--quiet', '--wait', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(result.output).not.toContain('retrying in');
    expect(result.output).toContain('71.5');
    expect(server.count('/api/pulse')).toBe(2);
  });
});

describe('--wait off a terminal', () => {
  it('says once on stderr that it waits, how long and until when, then shows the answer', async () => {
    const server = await limitedOnce();
    const result = await rep(['--wait', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^rate limited; waiting \d+ s \(until \d[^)]*\), then retrying\n$/);
    expect(JSON.parse(result.stdout)).toEqual({ index: 71.5 });
  });

  it('says nothing under --quiet', async () => {
    const server = await limitedOnce();
    const result = await rep(['--quiet', '--wait', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
    expect([result.code, result.stderr]).toEqual([0, '']);
  });
});

describe.skipIf(!hasScript)('Ctrl-C on a terminal', () => {
  it('while the spinner shows: exit 130 at once, the terminal left in its usual mode', async () => {
    const server = await strictServer();
    server.expect('/api/pulse', { fault: 'hang' });
    const result = await runOnTerminal(home(), ['--max-age', '0', 'pulse'], {
      env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, TERM: 'xterm' },
      columns: 80,
      answers: [['Fetching pulse', '\u0003']],
      thenRun: 'stty -a',
    });
    expect(result.output).toContain('Fetching pulse');
    expect(result.code).toBe(130);
    expect(result.output).toMatch(/(^|\s)isig\b/m);
    expect(result.output).toMatch(/(^|\s)icanon\b/m);
  });

  it("during a batch's progress line: exit 130 at once, the JSON written so far closed", async () => {
    const server = await strictServer();
    server.always('/api/audit', { fault: 'hang' });
    const out = join(home().dir, 'out.json');
    const result = await runOnTerminal(home(), ['--max-age', '0', 'audit', 'Acme', 'Globex'], {
      env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, TERM: 'xterm' },
      columns: 80,
      stdoutTo: out,
      answers: [['auditing', '\u0003']],
    });
    expect(result.output).toContain('auditing');
    expect(result.code).toBe(130);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([]);
  });
});
