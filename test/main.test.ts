// main(argv, { io, env, signal }) runs a command in this process: everything it prints goes through
// the IO it is given, everything it reads of the environment comes from env, and nothing of the
// process (its streams, env, exit code, signal handlers) is touched.
import { describe, expect, it, vi } from 'vitest';
import { testIO } from '../src/io.js';
import { main } from '../src/main.js';
import { makeTempHome, useRep } from './helpers/cli.js';

const run = (args: string[], io = testIO(), env: Record<string, string> = makeTempHome().env) =>
  main(['node', 'rep', ...args], { io, env, signal: new AbortController().signal });

describe('main in-process', () => {
  it('writes help, usage errors and command output to the IO it is given, and nothing to the process', async () => {
    const writes = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')];
    const listeners = process.listenerCount('SIGINT');
    try {
      const help = testIO();
      expect(await run(['--help'], help)).toBe(0);
      expect(help.stdoutText()).toMatch(/^Usage: rep /);
      const bare = testIO();
      expect(await run([], bare)).toBe(0);
      expect(bare.stdoutText()).toMatch(/^Usage: rep /);
      const usage = testIO();
      expect(await run(['bogus'], usage)).toBe(2);
      expect(usage.stderrText()).toMatch(/^rep: unknown command 'bogus'[^\n]*\nhint: /);
      const completion = testIO();
      expect(await run(['completion', 'bash'], completion)).toBe(0);
      expect(completion.stdoutText()).toContain('complete -o default -F _rep rep');
      for (const write of writes) expect(write).not.toHaveBeenCalled();
      expect(process.listenerCount('SIGINT')).toBe(listeners);
      expect(process.exitCode).toBeUndefined();
    } finally {
      for (const write of writes) write.mockRestore();
    }
  });

  it("help wraps at the terminal's width from the IO, and at 80 columns off a terminal", async () => {
    const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));
    const wide = testIO({ stdoutIsTTY: true, columns: 120 });
    expect(await run(['audit', '--help'], wide)).toBe(0);
    const piped = testIO({ columns: 120 });
    expect(await run(['audit', '--help'], piped)).toBe(0);
    const main = testIO({ columns: 120 });
    expect(await run(['--help'], main)).toBe(0);
    expect(widest(main.stdoutText())).toBeLessThanOrEqual(80); // the examples and exit codes too, written by hand
    expect(widest(wide.stdoutText())).toBeGreaterThan(80);
    expect(widest(wide.stdoutText())).toBeLessThanOrEqual(120);
    expect(widest(piped.stdoutText())).toBeLessThanOrEqual(80);
  });

  it('reads the environment it is given, not process.env', async () => {
    vi.stubEnv('REP_API_KEY', 'process-env-key-0000');
    try {
      const io = testIO();
      const env: Record<string, string> = { ...makeTempHome().env, REP_BASE_URL: 'https://api.example.com/api', REP_API_KEY: 'given-env-key-1234' };
      expect(await run(['--json', 'status'], io, env)).toBe(0);
      expect(JSON.parse(io.stdoutText())).toMatchObject({ key: '****1234', key_source: 'env', config_path: `${env.REP_CONFIG_DIR}/config.json` });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a signal while `rep sandbox` starts stops it cleanly (exit 0); one before the run exits 130', async () => {
    const io = testIO();
    const stop = new AbortController();
    const running = main(['node', 'rep', 'sandbox', '--port', '0'], { io, env: makeTempHome().env, signal: stop.signal });
    stop.abort();
    expect(await running).toBe(0); // `rep sandbox` stops cleanly on Ctrl-C
    const interrupted = new AbortController();
    interrupted.abort();
    expect(await main(['node', 'rep', 'pulse'], { io, env: makeTempHome().env, signal: interrupted.signal })).toBe(130);
  });
});

describe('each run is independent of the runs before it', () => {
  const { rep, server } = useRep({ env: () => ({ REP_API_KEY: 'independent-key-0001' }) });

  it('opens its own connections: no keep-alive socket is shared with an earlier run', async () => {
    const api = (await server()).always('/api/pulse', { body: { index: 50 } });
    for (let run = 0; run < 2; run++) expect((await rep(['pulse'], { env: { REP_BASE_URL: api.baseUrl.href } })).code).toBe(0);
    const [first, second] = api.requests.map((request) => request.remotePort);
    expect(second).not.toBe(first);
  });

  it('warns again: the once-only warnings of one run do not silence the next', async () => {
    const api = (await server()).always('/api/pulse', { body: { index: 50 } });
    for (let run = 0; run < 2; run++) {
      const result = await rep(['--no-cache', 'pulse'], { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: undefined } });
      expect(result.stderr).toMatch(/^rep: warning: no API key is set/);
    }
  });
});

describe('the test IO', () => {
  it('a reader that went away ends the run quietly with exit 0; a full disk is exit 1 in one line', async () => {
    const closed = testIO({ stdoutFails: { code: 'EPIPE' } });
    expect(await run(['completion', 'bash'], closed)).toBe(0);
    expect([closed.stdoutText(), closed.stderrText()]).toEqual(['', '']);
    const full = testIO({ stdoutFails: { code: 'ENOSPC' } });
    expect(await run(['completion', 'bash'], full)).toBe(1);
    expect(full.stderrText()).toBe('rep: cannot write output: no space left on device\n');
  });

  it('stdin from a string; colour from the TTY flags and the environment', () => {
    expect(testIO({ stdoutIsTTY: true, env: {} }).colorOut).toBe(true);
    expect(testIO({ stdoutIsTTY: true, env: { NO_COLOR: '1' } }).colorOut).toBe(false);
    expect(testIO({ env: { FORCE_COLOR: '1' } }).colorErr).toBe(true);
    expect(testIO({ colorOut: true }).colorOut).toBe(true);
  });
});
