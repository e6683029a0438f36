// `rep login` end to end: the key from stdin (non-terminal path) or a hidden prompt (a pseudo-terminal
// from util-linux `script`, when installed: helpers/terminal.ts), one verifying pulse call, and what ends up in the file.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';
import { startRecordingServer } from './helpers/servers.js';
import { hasScript, runOnTerminal } from './helpers/terminal.js';

const posix = process.platform !== 'win32';
const sandbox = useSandbox();
const { home, rep, spawn, track } = useRep();

function configFile(): string {
  return join(home().configDir, 'config.json');
}

const stored = () => JSON.parse(readFileSync(configFile(), 'utf8')) as Record<string, unknown>;

describe('rep login with the key on stdin', () => {
  it('verifies against the sandbox and stores key and base URL in a private file', async () => {
    const result = await rep(['login', '--base-url', sandbox.url], { input: `${sandbox.key}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Logged in to .* \(verified\); stored in /m);
    expect(stored()).toEqual({ apiKey: sandbox.key, baseUrl: sandbox.url });
    if (posix) {
      expect(statSync(configFile()).mode & 0o777).toBe(0o600);
      expect(statSync(join(configFile(), '..')).mode & 0o777).toBe(0o700);
    }
    const status = await rep(['--json', 'status']);
    expect(JSON.parse(status.stdout)).toMatchObject({ base_url: sandbox.url, key_source: 'config', base_url_source: 'config' });
  });

  it('sends exactly one pulse request, with the key', async () => {
    const server = track(await startRecordingServer());
    const result = await rep(['login', '--base-url', `${server.baseUrl.href}/`], { input: 'rk_verify_0123456789\r\n' });
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual([['/api/pulse', 'Bearer rk_verify_0123456789']]);
    expect(stored()).toEqual({ apiKey: 'rk_verify_0123456789', baseUrl: server.baseUrl.href });
  });

  it('replaces a stored key that rep would refuse to send, keeping the rest of the file', async () => {
    mkdirSync(home().configDir, { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), JSON.stringify({ apiKey: 'bad key with spaces', baseUrl: sandbox.url, theme: 'dark' }), { mode: 0o600 });
    const result = await rep(['login'], { input: `${sandbox.key}\n` });
    expect(result.code).toBe(0);
    expect(stored()).toEqual({ apiKey: sandbox.key, baseUrl: sandbox.url, theme: 'dark' });
  });

  it('one Ctrl-C while waiting for a key on a pipe that stays open exits 130 and stores nothing', async () => {
    const interrupt = new AbortController();
    // The process is the point: it must exit while its stdin pipe is still open.
    const result = await spawn(['--debug', 'login', '--base-url', sandbox.url], {
      keepStdinOpen: true,
      signal: interrupt.signal,
      onStderr: (chunk) => {
        if (chunk.includes('reading the API key from the first line of stdin')) interrupt.abort();
      },
    });
    expect(result.code).toBe(130);
    expect(existsSync(configFile())).toBe(false);
  });

  it('--no-verify sends nothing and stores', async () => {
    const server = track(await startRecordingServer());
    const result = await rep(['login', '--no-verify', '--base-url', server.baseUrl.href], { input: 'rk_unverified_0123456789' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('(not verified)');
    expect(server.requests).toEqual([]);
    expect(stored()).toMatchObject({ apiKey: 'rk_unverified_0123456789' });
  });

  it('a wrong key: exit 4, nothing stored', async () => {
    const result = await rep(['login', '--base-url', sandbox.url], { input: 'not-the-sandbox-key\n' });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^rep: the server rejected the API key/m);
    expect(existsSync(configFile())).toBe(false);
  });

  it('a wrong key keeps what was stored before', async () => {
    mkdirSync(join(configFile(), '..'), { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), JSON.stringify({ apiKey: 'old-key-0123456789', baseUrl: sandbox.url }), { mode: 0o600 });
    const result = await rep(['login'], { input: 'not-the-sandbox-key\n' });
    expect(result.code).toBe(4);
    expect(stored()).toEqual({ apiKey: 'old-key-0123456789', baseUrl: sandbox.url });
  });

  it('replaces the key, keeps unknown fields, and uses the stored base URL when none is given', async () => {
    mkdirSync(join(configFile(), '..'), { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), JSON.stringify({ apiKey: 'old-key-0123456789', baseUrl: sandbox.url, theme: 'dark' }), { mode: 0o644 });
    const result = await rep(['login'], { input: `${sandbox.key}\n` });
    expect(result.code).toBe(0);
    expect(stored()).toEqual({ apiKey: sandbox.key, baseUrl: sandbox.url, theme: 'dark' });
    if (posix) expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('takes the base URL from REP_BASE_URL and stores it', async () => {
    const result = await rep(['login'], { input: `${sandbox.key}\n`, env: { REP_BASE_URL: sandbox.url } });
    expect(result.code).toBe(0);
    expect(stored()).toEqual({ apiKey: sandbox.key, baseUrl: sandbox.url });
  });

  it('with REP_API_KEY set it still stores, and warns that the variable wins', async () => {
    const result = await rep(['login', '--base-url', sandbox.url], { input: `${sandbox.key}\n`, env: { REP_API_KEY: 'env-key-0123456789' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^rep: warning: REP_API_KEY is set and takes precedence/m);
    expect(result.stderr).not.toContain('env-key-0123456789');
    expect(stored()).toMatchObject({ apiKey: sandbox.key });
  });

  it('without a base URL and without a terminal: exit 2, nothing stored', async () => {
    const result = await rep(['login'], { input: `${sandbox.key}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: no base URL to log in to\nhint: .*--base-url/m);
    expect(existsSync(configFile())).toBe(false);
  });

  it.each([
    ['empty stdin', ''],
    ['an empty first line', '\nrk_second_line_0123\n'],
    ['only spaces', '   \n'],
  ])('%s: exit 2, nothing sent or stored', async (_name, input) => {
    const server = track(await startRecordingServer());
    const result = await rep(['login', '--base-url', server.baseUrl.href], { input });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: no API key given/m);
    expect(server.requests).toEqual([]);
    expect(existsSync(configFile())).toBe(false);
  });

  it.each([
    ['100 KB without a newline', 'k'.repeat(100_000)],
    ['a first line of 5,000 characters', `${'k'.repeat(5_000)}\n`],
  ])('%s on stdin is no key: exit 2, nothing sent or stored', async (_name, input) => {
    const server = track(await startRecordingServer());
    const result = await rep(['login', '--no-verify', '--base-url', server.baseUrl.href], { input });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: stdin does not hold an API key: its first line is longer than 4096 bytes\nhint: /m);
    expect(result.stderr).not.toContain('kkkk');
    expect(server.requests).toEqual([]);
    expect(existsSync(configFile())).toBe(false);
  });

  it.runIf(posix)('stdin from /dev/zero (endless binary) ends at once: exit 2, nothing stored', async () => {
    // Spawned: a device as the process's own stdin.
    const result = await spawn(['login', '--no-verify', '--base-url', sandbox.url], { stdinFrom: '/dev/zero', killAfterMs: 20_000 });
    expect(result.signal).toBeNull(); // not the safety net's SIGKILL
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: stdin does not hold an API key: it holds binary data/m);
    expect(existsSync(configFile())).toBe(false);
  });

  it('binary data on a pipe that stays open ends at once too', async () => {
    const result = await rep(['login', '--no-verify', '--base-url', sandbox.url], { input: 'rk_\u0000\u0001', keepStdinOpen: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/binary data/);
    expect(existsSync(configFile())).toBe(false);
  });

  it.runIf(posix)('stores into a shared directory others can write (sticky, so left as it is) with the warning other commands give', async () => {
    mkdirSync(home().configDir, { recursive: true });
    chmodSync(home().configDir, 0o1777);
    const result = await rep(['login', '--no-verify', '--base-url', sandbox.url], { input: `${sandbox.key}\n` });
    expect(result.code).toBe(0);
    const warning = `rep: warning: the config directory ${home().configDir} is open to other users (mode 777); run: chmod 700 ${home().configDir}\n`;
    expect(result.stderr).toContain(warning);
    expect((await rep(['status'])).stderr).toContain(warning);
    expect(stored()).toMatchObject({ apiKey: sandbox.key });
  });

  it('a key with a space or control character: exit 2, not echoed', async () => {
    const result = await rep(['login', '--no-verify', '--base-url', sandbox.url], { input: 'rk_with space_123456\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('rk_with');
    expect(existsSync(configFile())).toBe(false);
  });
});

/** `rep` on a pseudo-terminal in this test's home; each answer is typed once the output shows its prompt. */
const repOnTerminal = (args: string[], answers: Array<[prompt: string, typed: string]>) => runOnTerminal(home(), args, { answers });

describe.runIf(hasScript)('rep login on a terminal', () => {
  it('reads the key from a hidden prompt: nothing of it is echoed', async () => {
    const key = 'rk_typed_secret_98765';
    const result = await repOnTerminal(['login', '--no-verify', '--base-url', sandbox.url], [['API key (input hidden): ', `${key}\r`]]);
    expect(result.code).toBe(0);
    expect(result.output).not.toContain('rk_typed');
    expect(result.output).toContain('****8765');
    expect(stored()).toEqual({ apiKey: key, baseUrl: sandbox.url });
  });

  it('asks for the base URL when none is set, then verifies the key', async () => {
    const result = await repOnTerminal(
      ['login'],
      [
        ['Base URL of the API', `${sandbox.url}\r`],
        ['API key (input hidden): ', `${sandbox.key}\r`],
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output).toContain('(verified)');
    expect(stored()).toEqual({ apiKey: sandbox.key, baseUrl: sandbox.url });
  });

  it('a key of 5,000 characters typed or pasted at the prompt: exit 2, nothing stored', async () => {
    const result = await repOnTerminal(['login', '--no-verify', '--base-url', sandbox.url], [['API key (input hidden): ', `${'k'.repeat(5_000)}\r`]]);
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/rep: the API key typed is longer than 4096 characters/);
    expect(existsSync(configFile())).toBe(false);
  });

  it('Ctrl-C at the key prompt exits 130 and stores nothing', async () => {
    const result = await repOnTerminal(['login', '--base-url', sandbox.url], [['API key (input hidden): ', 'abc\u0003']]);
    expect(result.code).toBe(130);
    expect(existsSync(configFile())).toBe(false);
  });
});
