// End to end: every fault of the contract through the CLI against a strict fault server on a
// loopback port (in-process; Ctrl-C runs the built CLI, as the signal is the point). Each ends in one
// `rep:` line, at most one `hint:` line, the contract's exit code, an empty stdout, no stack trace and
// no HTML.
import { describe, expect, it } from 'vitest';
import { useRep, type CliResult, type SpawnOptions } from './helpers/cli.js';
import { closedPort, type FaultServer } from './helpers/fault-server.js';

const KEY = 'fault-test-key-abcdef123456';
const session = useRep({ env: () => ({ REP_API_KEY: KEY }) });
let server: FaultServer;

function rep(args: string[], baseUrl: string): Promise<CliResult> {
  return session.rep(args, { env: { REP_BASE_URL: baseUrl } });
}

/** The built CLI as a child process, for Ctrl-C. */
function spawnRep(args: string[], baseUrl: string, options: Omit<SpawnOptions, 'home' | 'env'>): Promise<CliResult> {
  return session.spawn(args, { env: { REP_BASE_URL: baseUrl }, ...options });
}

/** The shape every failure shares: one rep: line, at most one hint, nothing on stdout. */
function expectCleanFailure(result: CliResult, code: number, message: RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter(Boolean);
  expect(lines[0]).toMatch(/^rep: /);
  expect(lines[0]).toMatch(message);
  expect(lines.length).toBeLessThanOrEqual(2);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(result.stderr).not.toMatch(/<html|<body|<!doctype|\n\s+at /i);
  expect(result.stderr).not.toContain(KEY);
}

const HTML = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';

describe('server faults exit 1', () => {
  it.each([
    [500, 'Internal Server Error'],
    [502, 'Bad Gateway'],
  ])('%i with an HTML body', async (status, text) => {
    server = await session.server();
    server.expect('/api/pulse', { status, headers: { 'content-type': 'text/html' }, body: HTML });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 1, new RegExp(`${status} ${text}`));
  });

  it('500 with a JSON error body quotes the server message', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 500, body: { error: { message: 'database is down' } } });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 1, /database is down/);
  });

  it('malformed JSON in a 200', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"index": 71.2,' });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 1, /not valid JSON/);
  });

  it('a 200 that is not JSON at all', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, headers: { 'content-type': 'text/html' }, body: HTML });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 1, /not valid JSON/);
  });

  it.each([
    [['audit', 'Acme'], 'audit', 204, ''],
    [['--format', 'table', 'audit', 'Acme'], 'audit', 200, ''],
    [['--format', 'csv', 'audit', 'Acme'], 'audit', 200, 'null'],
    [['--format', 'csv', 'search', 'acme'], 'search', 204, ''],
    [['--format', 'table', 'pulse'], 'pulse', 200, '71.5'],
  ])('rep %j (%s answers %i %j): a malformed answer, not an empty result', async (args, endpoint, status, body) => {
    server = await session.server();
    server.expect(`/api/${endpoint}`, { status, headers: { 'content-type': 'application/json' }, body });
    expectCleanFailure(await rep(args, server.baseUrl.href), 1, /^rep: the server's answer is (empty|not a JSON object or array) \(2\d\d /);
  });

  it('--debug adds the stack and the start of the body, never the key', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, body: 'not json at all' });
    const result = await rep(['--debug', 'pulse'], server.baseUrl.href);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\n\s+at /);
    expect(result.stderr).toContain('not json at all');
    expect(result.stderr).not.toContain(KEY);
  });

  it('--debug stacks of the built CLI name the error and point at src/*.ts through the source maps', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, body: 'not json at all' });
    const result = await spawnRep(['--debug', 'pulse'], server.baseUrl.href, {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ApiError: the server's answer is not valid JSON$/m);
    expect(result.stderr).toMatch(/\n\s+at parseJsonBody \(\S*src[\\/]api[\\/]\S+\.ts:\d+:\d+\)/);
    // Frames of rep's own code point at src/ (one in a bundled package, commander's, names its dist/
    // file), though a function's name is its minified one where Node's source maps cannot map it back.
    expect(result.stderr).toMatch(/\n\s+at async \S+ \(\S*src[\\/]commands[\\/]query\.ts:\d+:\d+\)/);
  });
});

describe('network faults exit 6', () => {
  it('a truncated body', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, body: { index: 71.2, companies: 2400, padding: 'x'.repeat(2000) }, fault: 'truncate' });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 6, /cut off/);
  });

  it('a connection reset', async () => {
    server = await session.server();
    server.expect('/api/pulse', { fault: 'reset' });
    expectCleanFailure(await rep(['pulse'], server.baseUrl.href), 6, /reset/);
  });

  it('connection refused', async () => {
    expectCleanFailure(await rep(['pulse'], `http://127.0.0.1:${await closedPort()}/api`), 6, /connection refused/);
  });

  it('a DNS failure', async () => {
    expectCleanFailure(await rep(['pulse'], 'https://rep-test.invalid/api'), 6, /cannot resolve rep-test\.invalid/);
  });

  it('a TLS failure (https to a plain-HTTP port)', async () => {
    server = await session.server();
    const result = await rep(['pulse'], `https://127.0.0.1:${server.port}/api`);
    expectCleanFailure(result, 6, /TLS/);
    expect(server.requests).toEqual([]); // the TLS hello is no HTTP request
  });

  it('a timeout, saying so', async () => {
    server = await session.server();
    server.expect('/api/pulse', { fault: 'hang' });
    expectCleanFailure(await rep(['--timeout', '0.3', 'pulse'], server.baseUrl.href), 6, /no answer from 127\.0\.0\.1 within 0\.3 s/);
  });

  it('a timeout after retries says how many attempts, over how long', async () => {
    server = await session.server();
    server.expect('/api/pulse', { fault: 'hang' }, { fault: 'hang' });
    const result = await rep(['--timeout', '0.2', '--retries', '1', 'pulse'], server.baseUrl.href);
    expectCleanFailure(result, 6, /^rep: no answer from 127\.0\.0\.1 within 0\.2 s \(2 attempts over \d+(\.\d)? s\)$/);
    expect(server.count('/api/pulse')).toBe(2);
  });

  it('retries network errors and 5xx, then succeeds', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 503, body: 'busy' }, { fault: 'reset' }, { status: 200, body: { index: 70 } });
    const result = await rep(['--retries', '2', '--debug', 'pulse'], server.baseUrl.href);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ index: 70 });
    expect(server.count('/api/pulse')).toBe(3);
    expect(result.stderr.match(/retry/gi)?.length).toBeGreaterThanOrEqual(2);
  });

  it('never retries a 4xx', async () => {
    server = await session.server();
    server.expect('/api/audit', { status: 400, body: { error: { message: 'bad q' } } });
    const result = await rep(['--retries', '3', 'audit', 'x'], server.baseUrl.href);
    expect(result.code).toBe(1);
    expect(server.count('/api/audit')).toBe(1);
  });
});

describe('rate limits exit 5', () => {
  const clock = /in \d+ (s|sec|min|h)\b.*\(at \d{1,2}:\d{2}/;
  it.each([
    ['Retry-After seconds', { 'retry-after': '120' }],
    ['Retry-After HTTP date', { 'retry-after': new Date(Date.now() + 300_000).toUTCString() }],
    [
      'X-RateLimit-Reset epoch seconds',
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 600) },
    ],
    ['RateLimit-Reset delta', { 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '900' }],
    ['IETF RateLimit', { ratelimit: '"default";r=0;t=1200', 'ratelimit-policy': '"default";q=100;w=3600' }],
  ])('%s: says it is a rate limit, the limit, when it resets and how to go on', async (_name, headers) => {
    server = await session.server();
    server.expect('/api/pulse', { status: 429, headers, body: { error: { message: 'slow down' } } });
    const result = await rep(['pulse'], server.baseUrl.href);
    expectCleanFailure(result, 5, /^rep: rate limit reached: .*100 requests per hour/);
    expect(result.stderr.split('\n')[0]).toMatch(clock);
    expect(result.stderr.split('\n')[1]).toMatch(/^hint: .*--wait.*higher tier/);
  });

  it('without any reset header, estimates from the local request count', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 200, body: { index: 1 } }, { status: 429, body: {} });
    expect((await rep(['pulse'], server.baseUrl.href)).code).toBe(0);
    const result = await rep(['--max-age', '0', 'pulse'], server.baseUrl.href); // same home: the local count says when
    expectCleanFailure(result, 5, /rate limit reached: the free tier's 100 requests per hour.*about/);
  });

  it('--wait sleeps through Retry-After and then succeeds', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '1' }, body: {} }, { status: 200, body: { index: 72.5 } });
    const result = await rep(['--wait', 'pulse'], server.baseUrl.href);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ index: 72.5 });
    expect(server.count('/api/pulse')).toBe(2);
    expect(result.stderr).toMatch(/^rate limited; waiting \d+ s \(until \d[^)]*\), then retrying\n$/); // one line off a terminal
  });

  it('--wait gives up after --max-wait with exit 5', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '3600' }, body: {} });
    const result = await rep(['--wait', '--max-wait', '5s', 'pulse'], server.baseUrl.href);
    expectCleanFailure(result, 5, /rate limit/);
    expect(server.count('/api/pulse')).toBe(1);
  });

  it('Ctrl-C during --wait exits 130', async () => {
    server = await session.server();
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '600' }, body: {} });
    const interrupt = new AbortController();
    let stderr = '';
    // The wait line says when the wait begins: Ctrl-C is sent then, not after a guessed sleep.
    const waiting = await spawnRep(['--debug', '--wait', 'pulse'], server.baseUrl.href, {
      signal: interrupt.signal,
      onStderr: (chunk) => {
        stderr += chunk;
        if (/rate limited; waiting .*, then retrying/.test(stderr)) interrupt.abort();
      },
    });
    expect(interrupt.signal.aborted).toBe(true);
    expect(waiting.code).toBe(130);
    expect(waiting.stdout).toBe('');
    expect(server.count('/api/pulse')).toBe(1);
  });

  it('Ctrl-C while a request is in flight exits 130 with nothing on stdout or stderr', async () => {
    server = await session.server();
    const interrupt = new AbortController();
    server.expect('/api/pulse', () => {
      interrupt.abort(); // the request has arrived: rep is now waiting for its answer
      return { fault: 'hang' };
    });
    const result = await spawnRep(['pulse'], server.baseUrl.href, { signal: interrupt.signal });
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
    expect(server.count('/api/pulse')).toBe(1);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s while a long table is drawn exits 130 without writing it', async (interruptWith) => {
    server = await session.server();
    // 100,000 source rows: drawing them takes far longer than the safety net below.
    const sources = Array.from({ length: 100_000 }, (_, index) => ({ source: `s${index}`, rating: 4, reviews: index }));
    server.expect('/api/audit', { body: { name: 'Long Co', score: 50, sources } });
    const interrupt = new AbortController();
    let stderr = '';
    // --debug says when the answer is in: the signal is sent then, while rep builds or draws the table.
    const result = await spawnRep(['--debug', '--format', 'table', 'audit', 'Long Co'], server.baseUrl.href, {
      signal: interrupt.signal,
      interruptWith,
      killAfterMs: 20_000,
      onStderr: (chunk) => {
        stderr += chunk;
        if (/^debug: < 200/m.test(stderr)) interrupt.abort();
      },
    });
    expect(interrupt.signal.aborted).toBe(true);
    expect(result.signal).toBeNull(); // not the safety net's SIGKILL
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
  });

  it('warns when 10 or fewer requests remain', async () => {
    server = await session.server();
    const low = { status: 200, headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '60' }, body: { index: 1 } };
    server.expect('/api/pulse', low, low);
    const result = await rep(['pulse'], server.baseUrl.href);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^rep: warning: 3 requests left/);
    const quiet = await rep(['--quiet', 'pulse'], server.baseUrl.href);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });
});
