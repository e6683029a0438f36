// Issue 33's habits from gh, httpie and restish, end to end: help topics and the man page, `rep
// version`, REP_DEBUG, `rep api PATH` through the client's one request path, `rep cache` alone, and
// coloured JSON on a terminal only.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIELD_NAMES } from '../src/output/field-names.js';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

const sandbox = useSandbox();
const session = useRep();
const MAN_PAGE = fileURLToPath(new URL('../dist/rep.1', import.meta.url));
const ESC = '\u001b[';

function rep(args: string[], options: Parameters<typeof session.rep>[1] = {}) {
  return session.rep(args, { ...options, env: { REP_BASE_URL: sandbox.url, REP_API_KEY: sandbox.key, ...options.env } });
}

describe('help where the terminal is', () => {
  it.each([
    ['environment', 'REP_DEBUG'],
    ['exit-codes', '130'],
    ['formats', '--query EXPR'],
  ])('rep help %s prints the topic, exit 0', async (topic, mentions) => {
    const result = await session.rep(['help', topic]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toContain(mentions);
  });

  it('rep help fields lists every field name --fields accepts', async () => {
    const result = await session.rep(['help', 'fields']);
    for (const name of FIELD_NAMES) expect(result.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
  });

  it('rep version prints the version, Node and the platform; --json as an object', async () => {
    const text = await session.rep(['version']);
    expect(text.stdout).toBe(`rep 0.0.0-dev (node ${process.version}, ${process.platform}-${process.arch})\n`);
    const json = await session.rep(['version', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ version: '0.0.0-dev', node: process.version, platform: `${process.platform}-${process.arch}` });
  });

  it('REP_DEBUG=1 is --debug (the key still masked); 0, false, no and off are not', async () => {
    const on = await rep(['pulse'], { env: { REP_DEBUG: '1' } });
    expect(on.stderr).toMatch(/^debug: > GET http:\/\/127\.0\.0\.1:\d+\/api\/pulse$/m);
    expect(on.stderr).not.toContain(sandbox.key);
    for (const value of ['0', 'false', 'no', ' Off ']) {
      const off = await rep(['pulse'], { env: { REP_DEBUG: value } });
      expect([value, off.stderr]).toEqual([value, '']);
    }
  });

  it('man -l renders the page built from the help text: every option and command of --help is in it', async () => {
    const man = spawnSync('man', ['-l', MAN_PAGE], { encoding: 'utf8', env: { ...process.env, MANWIDTH: '100', MAN_KEEP_FORMATTING: '', PAGER: 'cat' } });
    expect(man.status).toBe(0);
    const page = man.stdout.replace(/.\u0008/g, ''); // overstrike bold, if the formatter left any
    expect(page).toMatch(/^REP\(1\)/);
    const help = (await session.rep(['--help'])).stdout;
    for (const flag of help.match(/--[a-z][\w-]+/g) ?? []) expect(page).toContain(flag);
    for (const heading of ['ENVIRONMENT', 'EXIT CODES', 'FIELDS', 'FORMATS', 'rep api', 'rep version', 'rep cache']) expect(page).toContain(heading);
    expect(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).man).toEqual(['./dist/rep.1']);
  });
});

describe('rep api PATH', () => {
  it('GETs {base}/PATH with the key and prints the body; the request is counted', async () => {
    const server = await session.server();
    server.expect('/api/v2/things', { body: { things: [1, 2] } });
    const env = { REP_BASE_URL: `${server.origin}/api`, REP_API_KEY: 'sk_test_0123456789abcdef' };
    const result = await session.rep(['api', 'v2/things?page=2'], { env });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout)).toEqual({ things: [1, 2] });
    expect(server.requests[0]).toMatchObject({ method: 'GET', rawUrl: '/api/v2/things?page=2' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk_test_0123456789abcdef');
    const status = await session.rep(['status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 1 });
  });

  it("shares the command's answer cache for an endpoint's own question", async () => {
    const server = await session.server();
    server.expect('/api/pulse', { body: { index: 61 } });
    const env = { REP_BASE_URL: `${server.origin}/api`, REP_API_KEY: 'sk_test_0123456789abcdef' };
    expect((await session.rep(['api', 'pulse'], { env })).code).toBe(0);
    const again = await session.rep(['pulse', '--json'], { env });
    expect(JSON.parse(again.stdout)).toEqual({ index: 61 });
    expect(again.stderr).toMatch(/^rep: cached answer from just now/);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['https://evil.example/api/pulse', 'rep: the path "https://evil.example/api/pulse" is not a path below the base URL'],
    ['../admin', 'rep: the path "../admin" leaves the base URL'],
    ['a/%2e%2e/../../x', 'rep: the path "a/%2e%2e/../../x" leaves the base URL'],
  ])('refuses %s with exit 2, sending nothing', async (path, message) => {
    const server = await session.server();
    const result = await session.rep(['api', path], { env: { REP_BASE_URL: `${server.origin}/api`, REP_API_KEY: 'sk_test_0123456789abcdef' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.requests).toEqual([]);
  });

  it('does not follow a redirect to another origin (exit 1), and --query reads the body', async () => {
    const server = await session.server();
    server.expect('/api/moved', { status: 302, headers: { location: 'https://evil.example/steal' } });
    const env = { REP_BASE_URL: `${server.origin}/api`, REP_API_KEY: 'sk_test_0123456789abcdef' };
    const moved = await session.rep(['api', 'moved'], { env });
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain('evil.example');
    const queried = await rep(['api', 'search?q=coffee', '--query', 'length(companies)']);
    expect(queried.stdout).toBe('5\n');
  });
});

describe('rep cache and coloured JSON', () => {
  it('rep cache says where the cache is, how many answers and their size', async () => {
    const server = await session.server();
    server.expect('/api/pulse', { body: { index: 61 } });
    const env = { REP_BASE_URL: `${server.origin}/api`, REP_API_KEY: 'sk_test_0123456789abcdef' };
    await session.rep(['pulse'], { env });
    const json = await session.rep(['cache'], { env });
    expect(json.code).toBe(0);
    const stats = JSON.parse(json.stdout);
    expect(stats).toMatchObject({ dir: `${session.home().env.XDG_CACHE_HOME}/rep`, entries: 1, max_bytes: 512 * 1024 * 1024 });
    expect(stats.bytes).toBeGreaterThan(0);
    const table = await session.rep(['cache'], { env, io: { stdoutIsTTY: true } });
    expect(table.stdout).toMatch(/^Answer cache: .*\/rep, 1 cached answer, \d+ B \(at most 512 MB\)\n$/);
  });

  it('is coloured and indented on a terminal, plain when piped, under NO_COLOR and --no-color', async () => {
    const tty = await rep(['pulse', '--json'], { io: { stdoutIsTTY: true } });
    expect(tty.stdout).toContain(`${ESC}1;34m"index"${ESC}0m: ${ESC}33m`);
    for (const run of [
      rep(['pulse', '--json']),
      rep(['pulse', '--json'], { io: { stdoutIsTTY: true }, env: { NO_COLOR: '1' } }),
      rep(['pulse', '--json', '--no-color'], { io: { stdoutIsTTY: true } }),
    ]) {
      const { stdout } = await run;
      expect(stdout).not.toContain(ESC);
      expect(stdout).toMatch(/^\{\n {2}"index": /);
    }
  });

  it('escapes control characters in server text before colouring them', async () => {
    const server = await session.server();
    server.expect('/api/pulse', { body: { index: 1, note: 'a\u001b]0;pwned\u0007b' } });
    const result = await session.rep(['pulse', '--json'], { env: { REP_BASE_URL: `${server.origin}/api` }, io: { stdoutIsTTY: true } });
    expect(result.stdout).toContain('a\\u001b]0;pwned\\u0007b');
    expect(result.stdout).not.toContain('\u0007');
  });
});
