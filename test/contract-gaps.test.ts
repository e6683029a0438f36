// End to end, for contract paths no other file proves through the CLI: every kind of usage error
// (exit 2, sent nowhere), 403 / 404 / 418 answers, each retried 5xx, the base URL's precedence as
// requests really sent, REP_CONFIG_DIR, compact ndjson for pulse, and the spinner's terminal rules.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep, type CliResult } from './helpers/cli.js';
import type { FaultServer } from './helpers/fault-server.js';
import { hasScript, runOnTerminal } from './helpers/terminal.js';

const KEY = 'gaps-test-key-0123456789';
const session = useRep();
const server = session.server; // a strict server's close() fails on any request it was not told to expect

function rep(args: string[], api: FaultServer, env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return session.rep(args, { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: KEY, ...env } });
}

/** Exactly one `rep:` line matching `message`, one hint, nothing on stdout. */
function expectReport(result: CliResult, code: number, message: RegExp, hint: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
  const [first, second, ...rest] = result.stderr.split('\n');
  expect(first).toMatch(/^rep: /);
  expect(first).toMatch(message);
  expect(second).toMatch(/^hint: /);
  expect(second).toMatch(hint);
  expect(rest).toEqual(['']);
  expect(result.stderr).not.toContain(KEY);
}

describe('usage errors exit 2 with one line and a hint, and send nothing', () => {
  it.each([
    [['audit'], /^rep: missing company name$/, /^hint: rep audit "Blue Bottle Coffee"; for a batch, --file PATH or names piped in: … \| rep audit$/],
    [['search'], /^rep: missing search text$/],
    [['completion'], /^rep: missing shell: expected one of bash, zsh, fish$/],
    [['completion', 'powershell'], /^rep: invalid value 'powershell' for <shell>: expected one of bash, zsh, fish$/],
    [['pulse', 'extra'], /^rep: pulse takes no arguments, but got 1$/],
    [['pulse', '--format'], /^rep: --format needs a value$/],
    [['--timeout', 'abc', 'pulse'], /^rep: invalid value 'abc' for --timeout: expected a positive number of seconds, at most 2147483 \(about 24 days\)$/],
    // Node's timers hold at most 2^31 - 1 ms: a longer --timeout fired at once.
    [['--timeout', '2147484', 'pulse'], /^rep: invalid value '2147484' for --timeout: .*at most 2147483 /],
    [['--timeout', '1e9', 'pulse'], /^rep: invalid value '1e9' for --timeout: .*at most 2147483 /],
    [['--wait', '--max-wait', '596h32m', 'pulse'], /^rep: invalid value '596h32m' for --max-wait: .*at most 596h31m23s \(about 24 days\)$/],
    [['--wait', '--max-wait', '2147484', 'pulse'], /^rep: invalid value '2147484' for --max-wait: .*at most 596h31m23s/],
    [['--timeout', '0', 'pulse'], /^rep: invalid value '0' for --timeout: /],
    [['--retries', '-1', 'pulse'], /^rep: invalid value '-1' for --retries: expected a whole number/],
    [['--wait', '--max-wait', '1d', 'pulse'], /^rep: invalid value '1d' for --max-wait: .*90, 90s, 15m or 1h$/],
    [['--format', 'xml', 'pulse'], /^rep: invalid value 'xml' for --format: expected one of table, json, ndjson, csv, markdown$/],
    [['sandbox', '--port', '99999'], /^rep: invalid value '99999' for --port: expected a port from 0 to 65535$/],
    [['--base-url', 'notaurl', 'pulse'], /^rep: invalid base URL from --base-url/, /https:\/\/example\.com\/api/],
    [['--base-url', 'ftp://api.example.com/api', 'pulse'], /^rep: invalid base URL from --base-url: ftp: is not http or https$/, /https:\/\/example\.com\/api/],
  ] as Array<[string[], RegExp, RegExp?]>)('rep %j', async (args, message, ownHint) => {
    const api = await server(); // the environment's base URL: any request reaching it fails the test
    const command = args.find((arg) => ['audit', 'search', 'pulse', 'completion', 'sandbox'].includes(arg));
    // commander's parse errors point at the help of the command given; rep's own checks say what to do.
    const hint = ownHint ?? new RegExp(`^hint: see \`rep ${command ? `${command} ` : ''}--help\`$`);
    expectReport(await rep(args, api), 2, message, hint);
  });

  it('an invalid REP_BASE_URL is named as the source', async () => {
    const api = await server();
    expectReport(await rep(['pulse'], api, { REP_BASE_URL: 'not a url' }), 2, /^rep: invalid base URL from REP_BASE_URL/, /https:\/\/example\.com\/api/);
  });
});

describe('answers the CLI must tell apart', () => {
  it('403 with a key: the key is rejected, exit 4, hint to `rep login`', async () => {
    const api = await server();
    api.expect('/api/pulse', { status: 403, body: { error: 'forbidden' } });
    expectReport(await rep(['pulse'], api), 4, /^rep: the server rejected the API key \(403 Forbidden\): forbidden$/, /rep login/);
  });

  it.each([
    ['audit', ['audit', 'Acme'], { 'content-type': 'text/html' }, '<html><body>Not Found</body></html>'],
    ['search', ['search', 'Acme'], { 'content-type': 'application/json' }, '{"error":"not found"}'],
    ['pulse', ['pulse'], { 'content-type': 'application/json' }, '{}'],
  ])('a 404 on %s that is not "no such company" says the base URL may be wrong, exit 1', async (endpoint, args, headers, body) => {
    const api = await server();
    api.expect(`/api/${endpoint}`, { status: 404, headers, body });
    expectReport(await rep(args, api), 1, new RegExp(`^rep: ${api.origin}/api/${endpoint} was not found \\(404\\): is the base URL right\\?$`), /./);
  });

  it('an unexpected status is exit 1 with status and server message, and is not retried', async () => {
    const api = await server();
    api.expect('/api/search', { status: 418, body: { detail: 'short and stout' } });
    expectReport(await rep(['--retries', '2', 'search', 'x'], api), 1, /^rep: unexpected answer from the server \(418 I'm a Teapot\): short and stout$/, /./);
    expect(api.count()).toBe(1);
  });

  it.each([500, 502, 503, 504])('a %i is retried, and the retry can succeed (exit 0)', async (status) => {
    const api = await server();
    api.expect('/api/pulse', { status, body: { error: 'hiccup' } }, { body: { index: 64.5 } });
    const result = await rep(['--retries', '1', 'pulse'], api);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ index: 64.5 });
    expect(api.count('/api/pulse')).toBe(2);
  });

  it('when the retries run out, the last failure is reported with the attempts made and how long they took (exit 1)', async () => {
    const api = await server();
    api.expect('/api/pulse', { status: 503 }, { status: 502 }, { status: 504 });
    expectReport(
      await rep(['--retries', '2', 'pulse'], api),
      1,
      /^rep: the server failed \(504 Gateway Timeout\) \(3 attempts over \d+(\.\d)? s\)$/,
      /^hint: try again later, or raise --retries \(2 retries were made\)$/,
    );
    expect(api.count('/api/pulse')).toBe(3);
  });

  it('without retries, a 5xx says nothing of attempts and points at --retries', async () => {
    const api = await server();
    api.expect('/api/pulse', { status: 503 });
    expectReport(await rep(['--retries', '0', 'pulse'], api), 1, /^rep: the server failed \(503 Service Unavailable\)$/, /--retries retries automatically/);
  });
});

describe('the base URL: --base-url > REP_BASE_URL > config file, as requests really sent', () => {
  it('each source wins over the ones below it, and only the winner is asked', async () => {
    const [fromConfig, fromEnv, fromFlag] = await Promise.all([server(), server(), server()]);
    for (const [index, api] of [fromConfig, fromEnv, fromFlag].entries()) api.always('/api/pulse', { body: { index } });
    const stored = await session.rep(['login', '--no-verify', '--base-url', fromConfig.baseUrl.href], { input: `${KEY}\n` });
    expect(stored.code).toBe(0);
    const pulse = async (args: string[], env: Record<string, string | undefined>) =>
      JSON.parse((await session.rep([...args, '--json', 'pulse'], { env })).stdout);
    expect(await pulse(['--base-url', fromFlag.baseUrl.href], { REP_BASE_URL: fromEnv.baseUrl.href })).toEqual({ index: 2 });
    expect(await pulse([], { REP_BASE_URL: fromEnv.baseUrl.href })).toEqual({ index: 1 });
    expect(await pulse([], {})).toEqual({ index: 0 });
    expect([fromConfig.count(), fromEnv.count(), fromFlag.count()]).toEqual([1, 1, 1]);
    for (const api of [fromConfig, fromEnv, fromFlag]) expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('where the config file lives', () => {
  it('REP_CONFIG_DIR chooses the directory; nothing lands in the default one', async () => {
    const home = session.home();
    const chosen = join(home.dir, 'elsewhere');
    const env = { REP_CONFIG_DIR: chosen };
    const login = await session.rep(['login', '--no-verify', '--base-url', 'https://api.example.com/api'], { env, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    expect(JSON.parse(readFileSync(join(chosen, 'config.json'), 'utf8'))).toEqual({ apiKey: KEY, baseUrl: 'https://api.example.com/api' });
    expect(existsSync(join(home.dir, 'config'))).toBe(false);
    const status = await session.rep(['--json', 'status'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ config_path: join(chosen, 'config.json'), key_source: 'config' });
  });

  it.runIf(process.platform === 'linux')('without it, the config goes under XDG_CONFIG_HOME/rep', async () => {
    const home = session.home();
    const env = { REP_CONFIG_DIR: undefined };
    const login = await session.rep(['login', '--no-verify', '--base-url', 'https://api.example.com/api'], { env, input: `${KEY}\n` });
    expect(login.code).toBe(0);
    const expected = join(home.env.XDG_CONFIG_HOME as string, 'rep', 'config.json');
    expect(JSON.parse(readFileSync(expected, 'utf8'))).toMatchObject({ apiKey: KEY });
    expect(JSON.parse((await session.rep(['--json', 'status'], { env })).stdout).config_path).toBe(expected);
  });
});

describe('relative paths in XDG_* and REP_CONFIG_DIR are ignored (the XDG spec), not taken from the working directory', () => {
  // Spawned: the working directory is the process's.
  const cwd = () => {
    const dir = join(session.home().dir, 'work');
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it.runIf(process.platform === 'linux')('XDG_CONFIG_HOME and XDG_STATE_HOME: the defaults under HOME are used', async () => {
    const api = await server();
    api.always('/api/pulse', { body: { index: 1 } });
    const env = { REP_CONFIG_DIR: undefined, XDG_CONFIG_HOME: 'rel-config', XDG_STATE_HOME: 'rel-state' };
    const login = await session.spawn(['login', '--no-verify', '--base-url', api.baseUrl.href], { env, input: `${KEY}\n`, cwd: cwd() });
    expect(login.code).toBe(0);
    const pulse = await session.spawn(['pulse'], { env, cwd: cwd() });
    expect(pulse.code).toBe(0);
    const home = session.home().dir;
    expect(JSON.parse(readFileSync(join(home, '.config', 'rep', 'config.json'), 'utf8'))).toMatchObject({ apiKey: KEY });
    expect(existsSync(join(home, '.local', 'state', 'rep', 'requests'))).toBe(true);
    expect(readdirSync(cwd())).toEqual([]);
  });

  it('REP_CONFIG_DIR: ignored with a warning, the config goes to the default place', async () => {
    const env = { REP_CONFIG_DIR: 'rel-dir' };
    const login = await session.spawn(['login', '--no-verify', '--base-url', 'https://api.example.com/api'], { env, input: `${KEY}\n`, cwd: cwd() });
    expect(login.code).toBe(0);
    const status = await session.spawn(['--json', 'status'], { env, cwd: cwd() });
    const configPath = JSON.parse(status.stdout).config_path as string;
    expect(configPath).not.toContain('rel-dir');
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toMatchObject({ apiKey: KEY });
    expect(status.stderr).toBe(
      `rep: warning: REP_CONFIG_DIR is a relative path ("rel-dir"), ignored like a relative XDG path; the config is in ${join(configPath, '..')}\n`,
    );
    expect(readdirSync(cwd())).toEqual([]);
  });
});

describe('ndjson for pulse', () => {
  it('is one compact line, the same document as json', async () => {
    const api = await server();
    const body = { index: 71.25, companies: 3, nested: { a: [1, 2] } };
    api.always('/api/pulse', { body });
    const result = await rep(['--format', 'ndjson', 'pulse'], api);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(body)}\n`);
  });
});

describe.runIf(hasScript)('the spinner', () => {
  it('shows while an answer is awaited when stdout and stderr are terminals', async () => {
    const api = await server();
    let release: () => void = () => {};
    // The answer is held until the spinner's text is on the terminal: no guessing how long it takes.
    api.expect('/api/pulse', { after: new Promise<void>((resolve) => (release = resolve)), body: { index: 61.5 } });
    const result = await runOnTerminal(session.home(), ['--format', 'json', 'pulse'], {
      env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: KEY },
      answers: [['Fetching pulse', () => release()]],
    });
    expect(result.code).toBe(0);
    expect(result.output).toContain('Fetching pulse');
    expect(result.output).toContain('"index": 61.5');
  });

  it('never shows under --quiet, nor when stdout is not a terminal, however slow the answer', async () => {
    const api = await server();
    // Slow enough that a spinner (shown after 150 ms) would have appeared.
    api.always('/api/pulse', { delayMs: 1000, body: { index: 61.5 } });
    const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: KEY };
    const stdoutFile = join(session.home().dir, 'stdout.json');
    const [quiet, redirected] = await Promise.all([
      runOnTerminal(session.home(), ['--quiet', '--format', 'json', 'pulse'], { env }),
      runOnTerminal(session.home(), ['--format', 'json', 'pulse'], { env, stdoutTo: stdoutFile }),
    ]);
    expect(quiet.code).toBe(0);
    expect(quiet.output).toContain('"index": 61.5');
    expect(quiet.output).not.toContain('Fetching');
    expect(redirected.code).toBe(0);
    expect(redirected.output).not.toContain('Fetching');
    expect(JSON.parse(readFileSync(stdoutFile, 'utf8'))).toEqual({ index: 61.5 });
  });
});
