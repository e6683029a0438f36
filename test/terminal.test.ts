// What only a terminal shows: the --wait countdown on stderr, and its absence under --quiet. Run on a
// pseudo-terminal (util-linux `script`); skipped where `script` is missing. Off a terminal, one line instead.
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
