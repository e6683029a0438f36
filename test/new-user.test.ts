// End to end, the paper cuts a new user met (issue 9): `--sandbox` never touching the stored
// credentials, one error and one hint without a key, hints that fit login, rate-limit times and
// status's clock and formats, the sandbox's pulse and the Details table.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxData } from '../src/sandbox/data.js';
import { startSandbox } from '../src/sandbox/server.js';
import { useRep } from './helpers/cli.js';
import { closedPort } from './helpers/fault-server.js';
import { startRecordingServer } from './helpers/servers.js';

const STORED = { apiKey: 'stored-key-aaaa1111', baseUrl: 'https://api.example.com/api' };
const { home, rep, track } = useRep();

function configFile(): string {
  return join(home().configDir, 'config.json');
}

/** Stores STORED and returns the file's bytes and modification time, to compare after a command. */
function storeCredentials(): { text: string; mtimeMs: number } {
  mkdirSync(home().configDir, { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), JSON.stringify(STORED), { mode: 0o600 });
  return { text: readFileSync(configFile(), 'utf8'), mtimeMs: statSync(configFile()).mtimeMs };
}

describe('--sandbox leaves the stored credentials alone', () => {
  it.each([
    ['logout', ['--sandbox', 'logout'], undefined],
    ['login', ['--sandbox', 'login', '--base-url', 'https://other.example.com/api'], 'other-key-0123456789\n'],
    ['login --no-verify', ['--sandbox', 'login', '--no-verify'], 'other-key-0123456789\n'],
  ])('%s refuses with exit 2, says why, and changes no file', async (_, args, input) => {
    const before = storeCredentials();
    const files = () => readdirSync(home().dir, { recursive: true }).sort();
    const listed = files();
    const result = await rep(args, input === undefined ? {} : { input });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rep: --sandbox .*(writes no files|needs no key).*\nhint: .*\n$/);
    expect(readFileSync(configFile(), 'utf8')).toBe(before.text);
    expect(statSync(configFile()).mtimeMs).toBe(before.mtimeMs);
    expect(files()).toEqual(listed);
  });
});

describe('one error and one hint', () => {
  it.each([401, 403])('without a key, a %i is one error whose hint says how to give a key; no separate warning', async (status) => {
    const server = track(await startRecordingServer({ status, body: { error: 'unauthorized' } }));
    const result = await rep(['pulse'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      new RegExp(`^rep: the server needs an API key \\(${status} [A-Za-z ]+\\): unauthorized\\nhint: run \`rep login\`, or set REP_API_KEY\\n$`),
    );
  });

  it('without a key, a failure that is not about the key is one error and its own hint', async () => {
    const result = await rep(['pulse'], { env: { REP_BASE_URL: `http://127.0.0.1:${await closedPort()}/api` } });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^rep: cannot connect to [^\n]*\nhint: [^\n]*\n$/);
  });

  it('a key rejected during login: the hint says to check the key, not to run `rep login`', async () => {
    const server = track(await startRecordingServer({ status: 401, body: { error: 'invalid key' } }));
    const result = await rep(['login', '--base-url', server.baseUrl.href], { input: 'wrong-key-0123456789\n' });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^rep: the server rejected the API key \(401 Unauthorized\): invalid key\nhint: check the key[^\n]*\n$/);
    expect(result.stderr).not.toMatch(/rep login/);
  });
});

describe('rate-limit times', () => {
  const KEY = 'window-test-key-0001';
  const limited = async (windowMs: number) => {
    const sandbox = track(await startSandbox({ port: 0, limit: 2, windowMs, key: KEY }));
    return { REP_BASE_URL: sandbox.url, REP_API_KEY: KEY };
  };

  it.each([
    [20_000, '20 s'],
    [3_600_000, '1 h'],
  ])('a window of %i ms reads "resets in %s", the way a person reads it', async (windowMs, reads) => {
    const result = await rep(['pulse'], { env: await limited(windowMs) });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^rep: warning: 1 request left in this rate-limit window; resets in ${reads} \\(at [^)]+\\)\\n$`));
  });

  it('status shows the reset on the same clock, in the same form, as the error', async () => {
    const env = await limited(20_000);
    for (let i = 0; i < 2; i++) expect((await rep(['--quiet', 'pulse'], { env })).code).toBe(0);
    const limitedOut = await rep(['pulse'], { env });
    expect(limitedOut.code).toBe(5);
    const at = / \(at ([^)]+)\)\n/.exec(limitedOut.stderr)?.[1];
    expect(at).toBeDefined();
    const status = await rep(['--format', 'table', 'status'], { env });
    expect(status.stdout).toContain(`resets ${at} (seen `);
  });
});

describe('status formats', () => {
  const env = { REP_BASE_URL: 'https://api.example.com/api', REP_API_KEY: 'status-format-key-0001' };

  it('csv: a header and one row, the rate limit in its own columns', async () => {
    const result = await rep(['--format', 'csv', 'status'], { env });
    expect(result.code).toBe(0);
    const [header, row, ...rest] = result.stdout.split('\n');
    const limitColumns = 'rate_limit.limit,rate_limit.remaining,rate_limit.reset_at,rate_limit.seen_at';
    expect(header).toBe(
      `base_url,base_url_source,key,key_source,config_path,requests_last_hour,${limitColumns},cache.dir,cache.entries,cache.bytes,history.dir,history.points,history.bytes,history.oldest`,
    );
    const before = `https://api.example.com/api,env,****0001,env,${configFile()},0,,,,`;
    expect(row?.slice(0, before.length)).toBe(before);
    expect(row?.slice(before.length)).toMatch(/^,[^,]+,0,0,[^,]+,0,0,$/); // the cache and the history: each its place, nothing in it yet
    expect(rest).toEqual(['']);
  });

  it('ndjson: the JSON record on one line', async () => {
    const [ndjson, json] = await Promise.all([rep(['--format', 'ndjson', 'status'], { env }), rep(['--json', 'status'], { env })]);
    expect(ndjson.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(ndjson.stdout)).toEqual(JSON.parse(json.stdout));
  });
});

describe('the sandbox, as a new user first sees it', () => {
  it('pulse is the mean of the scores served, rounded to two decimals, in json and csv', async () => {
    const { companies } = sandboxData();
    const tenths = companies.reduce((total, company) => total + Math.round(company.score * 10), 0);
    const mean = tenths / companies.length / 10; // the scores have one decimal: summed exactly as tenths
    const [json, csv] = await Promise.all([rep(['--sandbox', 'pulse']), rep(['--sandbox', 'pulse', '--format', 'csv'])]);
    const index = JSON.parse(json.stdout).index as number;
    expect(Math.abs(index - mean)).toBeLessThanOrEqual(0.005);
    expect(String(index)).toMatch(/^\d+(\.\d{1,2})?$/);
    expect(csv.stdout.split('\n')[1]).toMatch(new RegExp(`^${String(index).replace('.', '\\.')},`));
  });

  it('the Details table labels its rows like the other cells and formats their numbers', async () => {
    const [audit, pulse] = await Promise.all([
      rep(['--sandbox', '--format', 'table', 'audit', 'Кофейня Ромашка']),
      rep(['--sandbox', '--format', 'table', 'pulse']),
    ]);
    const total = sandboxData().companies.find((company) => company.name === 'Кофейня Ромашка')!.reviewsTotal;
    expect(total).toBeGreaterThanOrEqual(1000); // so the grouping shows
    expect(audit.stdout).toMatch(/│ Company id +│ c-00001 +│/);
    expect(audit.stdout).toMatch(new RegExp(`│ Reviews total +│ ${total.toLocaleString('en-US')} +│`));
    expect(audit.stdout).toMatch(/│ Updated at +│ 2026-11-01T00:00:00Z +│/);
    expect(audit.stdout).not.toMatch(/company\.id|reviews_total/);
    expect(pulse.stdout).toMatch(/│ Companies +│ 2,400 +│/);
  });
});
