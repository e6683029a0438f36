// createClient against real HTTP servers on 127.0.0.1 (nothing on the HTTP path mocked): URLs, auth, redirects,
// retries, rate limits, --wait, interrupts, timeouts and network faults; with the CLI's hooks
// (progress.ts), so the lines the CLI shows for what the client tells are checked here too.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../src/api/client.js';
import { createDeps } from '../src/context.js';
import { ApiError, AuthError, InterruptedError, NetworkError, NotFoundError, RateLimitError } from '../src/errors.js';
import { testIO, type IO } from '../src/io.js';
import { clientHooks } from '../src/client-hooks.js';
import { readRequestStatus } from '../src/state/requests.js';
import { openLocalStore } from '../src/store/local/index.js';
import { keyFingerprint } from '../src/store/policy.js';
import { useRep } from './helpers/cli.js';
import { closedPort, startFaultServer, type FaultServer } from './helpers/fault-server.js';
import { testGlobals } from './helpers/globals.js';

const KEY = 'sk_test_0123456789abcdefWXYZ';
const stateDir = mkdtempSync(join(tmpdir(), 'rep-api-client-'));
const { track } = useRep();
const server = async (apiPath?: string): Promise<FaultServer> => track(await startFaultServer(apiPath ? { apiPath } : {}));

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** A client with the CLI's hooks; `io` is where they talk (the countdown, the wait line). */
function client(baseUrl: URL, overrides: Partial<ClientOptions> = {}, io: IO = testIO()) {
  const debugLines: string[] = [];
  const warnings: string[] = [];
  const sleeps: number[] = [];
  const globals = testGlobals({ timeout: 5, debug: true });
  const { deps } = createDeps({ globals, io, env: {}, signal: new AbortController().signal });
  const hooks = clientHooks({ ...deps, debug: (line) => debugLines.push(line), warn: (text) => warnings.push(text) });
  const api = createClient({
    baseUrl,
    apiKey: KEY,
    timeout: 5,
    retries: 0,
    wait: false,
    maxWait: 3600,
    now: Date.now,
    hooks,
    env: {},
    // Waits are recorded, not slept: no test depends on timing.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { api, debugLines, warnings, sleeps };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

describe('requests', () => {
  it('keeps the base path and encodes q so every name round-trips', async () => {
    const s = await server('/v2/api');
    s.always('/v2/api/audit', { body: { ok: true } });
    const { api } = client(s.baseUrl);
    const names = ['AT&T #5', '100%', 'a/b?c=d', 'Газпром', 'café 🍰', 'plus+sign', ' spaced  out '];
    for (const name of names) {
      const response = await api.audit(name);
      expect(response.body).toEqual({ ok: true });
    }
    expect(s.requests.map((r) => r.rawUrl)).toEqual(names.map((name) => `/v2/api/audit?q=${encodeURIComponent(name)}`));
    expect(s.requests.map((r) => r.q)).toEqual(names);
    expect(s.requests[0]?.rawUrl).toBe('/v2/api/audit?q=AT%26T%20%235');
  });

  it('sends the key as a bearer token, with accept and user-agent', async () => {
    const s = await server();
    s.expect('/api/pulse', { body: { index: 71.2 } });
    const { api } = client(s.baseUrl, { userAgent: 'rep/9.9.9' });
    const response = await api.pulse();
    expect(response).toMatchObject({ status: 200, body: { index: 71.2 } });
    expect(response.headers['content-type']).toBe('application/json');
    const [request] = s.requests;
    expect(request?.rawUrl).toBe('/api/pulse');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('rep/9.9.9');
    expect(request?.headers.host).toBe(`127.0.0.1:${s.port}`);
  });

  it("sends the Host header as Node would make it: an IPv6 address in brackets, a port other than the scheme's", async () => {
    const heads: string[] = [];
    const ipv6 = createServer((request, response) => {
      heads.push(`${request.rawHeaders.join('|')}`);
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
    await new Promise<void>((listening) => ipv6.listen(0, '::1', listening));
    try {
      const { port } = ipv6.address() as AddressInfo;
      const { api } = client(new URL(`http://[::1]:${port}/api`), { userAgent: 'rep/9.9.9' });
      await api.pulse();
      await api.audit('Blue Bottle');
      const head = `accept|application/json|user-agent|rep/9.9.9|authorization|Bearer ${KEY}|Host|[::1]:${port}|Connection|keep-alive`;
      expect(heads).toEqual([head, head]);
    } finally {
      ipv6.closeAllConnections();
      await new Promise((closed) => ipv6.close(closed));
    }
  });

  it('sends no authorization header without a key', async () => {
    const s = await server();
    s.expect('/api/search', { body: { companies: [] } });
    const { api } = client(s.baseUrl, { apiKey: undefined });
    await api.search('x');
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it.each([
    [204, undefined, /^the server's answer is empty \(204 No Content\)$/],
    [200, '', /^the server's answer is empty \(200 OK\)$/],
    [200, ' \n', /^the server's answer is empty \(200 OK\)$/],
    [200, 'null', /^the server's answer is not a JSON object or array \(200 OK\)$/],
    [200, '42', /^the server's answer is not a JSON object or array \(200 OK\)$/],
    [200, '"ok"', /^the server's answer is not a JSON object or array \(200 OK\)$/],
    [202, 'true', /^the server's answer is not a JSON object or array \(202 Accepted\)$/],
  ] as const)('a %i with body %j is a malformed answer on every endpoint (exit 1)', async (status, body, message) => {
    const s = await server();
    for (const endpoint of ['audit', 'search', 'pulse'] as const) {
      s.expect(`/api/${endpoint}`, { status, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) });
      const { api } = client(s.baseUrl);
      const error = await failure(endpoint === 'pulse' ? api.pulse() : api[endpoint]('x'));
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).exitCode).toBe(1);
      expect(error.message).toMatch(message);
    }
  });

  it('a 2xx whose body is a JSON array is an answer', async () => {
    const s = await server();
    s.expect('/api/search', { body: [{ type: 'company', name: 'A' }] });
    expect((await client(s.baseUrl).api.search('a')).body).toEqual([{ type: 'company', name: 'A' }]);
  });
});

describe('redirects', () => {
  it('follows a same-origin redirect, key and all', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 301, headers: { location: '/v3/api/pulse' } });
    s.expect('/v3/api/pulse', { body: { index: 1 } });
    expect((await client(s.baseUrl).api.pulse()).body).toEqual({ index: 1 });
    expect(s.requests[1]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('does not follow a redirect to another origin, which never sees a request', async () => {
    const s = await server();
    const elsewhere = await server();
    s.expect('/api/audit', { status: 302, headers: { location: `${elsewhere.origin}/steal/audit?q=x` } });
    const error = await failure(client(s.baseUrl).api.audit('x'));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).exitCode).toBe(1);
    expect(error.message).toBe(`the server redirected to ${elsewhere.origin}/steal/audit (another origin); not followed`);
    expect((error as ApiError).hint).toBeTruthy();
    expect(elsewhere.count()).toBe(0);
  });

  it("--debug lines show a redirect's Location and rate-limit headers scrubbed of controls (a C1 CSI is one byte)", async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 302, headers: { location: '/api/next\u009b2J' } });
    s.expect('/api/next%C2%9B2J', { headers: { 'x-ratelimit-remaining': '50\u009b2J' }, body: { index: 1 } });
    // Through the CLI's own debug writer (createDeps), where every --debug line is scrubbed.
    const io = testIO();
    const globals = testGlobals({ timeout: 5, debug: true });
    const { deps } = createDeps({ globals, io, env: {}, signal: new AbortController().signal });
    const api = createClient({ baseUrl: s.baseUrl, apiKey: KEY, retries: 0, env: {}, hooks: clientHooks(deps) });
    await api.pulse();
    const debugLines = io
      .stderrText()
      .split('\n')
      .map((line) => line.replace(/^debug: /, ''));
    expect(debugLines).toContain('< 302 Found → /api/next');
    expect(debugLines).toContain('< x-ratelimit-remaining: 50');
    for (const line of debugLines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it("reads a redirect's body away, small or large (over 64 KB it is dropped with its connection), and follows it", async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 302, headers: { location: '/api/a' }, body: { note: 'moved' } });
    s.expect('/api/a', { status: 307, headers: { location: '/api/b' }, body: { padding: 'x'.repeat(200_000) } });
    s.expect('/api/b', { body: { index: 2 } });
    expect((await client(s.baseUrl).api.pulse()).body).toEqual({ index: 2 });
    expect(s.count()).toBe(3);
  });

  it('gives up after 5 redirects', async () => {
    const s = await server();
    s.always('/api/pulse', { status: 307, headers: { location: '/api/pulse' } });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/more than 5 times/);
    expect(s.count()).toBe(6);
  });
});

describe('status mapping', () => {
  it('401 with a key: the key was rejected (exit 4)', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 401, body: { error: 'bad key' } });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(4);
    expect(error.message).toBe('the server rejected the API key (401 Unauthorized): bad key');
    expect((error as AuthError).hint).toBe('check the apiKey option: the server does not accept it');
  });

  it('403 without a key: a key is needed', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 403 });
    const error = await failure(client(s.baseUrl, { apiKey: undefined }).api.pulse());
    expect(error.message).toBe('the server needs an API key (403 Forbidden)');
  });

  it('404 with JSON on audit: no such company (exit 3)', async () => {
    const s = await server();
    s.expect('/api/audit', { status: 404, body: { error: { message: 'not found' } } });
    const error = await failure(client(s.baseUrl).api.audit('Acme'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).exitCode).toBe(3);
    expect(error.message).toBe('no company named "Acme"');
    expect((error as NotFoundError).hint).toBe('no company has exactly that name; search("Acme") lists those matching one word of it');
  });

  it('404 with HTML, or on another endpoint: the base URL is wrong', async () => {
    const s = await server();
    s.expect('/api/audit', { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not Found</body></html>' });
    s.expect('/api/search', { status: 404, body: {} });
    const audit = await failure(client(s.baseUrl).api.audit('Acme'));
    expect(audit).toBeInstanceOf(ApiError);
    expect(audit.message).toBe(`${s.origin}/api/audit was not found (404): is the base URL right?`);
    const search = await failure(client(s.baseUrl).api.search('Acme'));
    expect(search).toBeInstanceOf(ApiError);
  });

  it('HTML 502: ApiError without HTML in the message, the body kept for --debug', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><h1>502 Bad Gateway</h1><p>nginx</p></html>' });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('the server failed (502 Bad Gateway)');
    expect((error as ApiError).bodyExcerpt).toContain('<h1>');
  });

  it("a JSON 500 adds the server's message, scrubbed and with the key masked", async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 500, body: { error: { message: `db \u001b[31mdown\u001b[0m for ${KEY}` } } });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error.message).toBe('the server failed (500 Internal Server Error): db down for ****WXYZ');
  });

  it('other statuses: ApiError with status and message', async () => {
    const s = await server();
    s.expect('/api/search', { status: 418, body: { detail: 'short and stout' } });
    const error = await failure(client(s.baseUrl).api.search('x'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe("unexpected answer from the server (418 I'm a Teapot): short and stout");
  });

  it('200 with malformed JSON: ApiError', async () => {
    const s = await server();
    s.expect('/api/pulse', { body: '{"index": 7', headers: { 'content-type': 'application/json' } });
    s.expect('/api/pulse', { body: '<!doctype html><html>login page</html>', headers: { 'content-type': 'text/html' } });
    for (let i = 0; i < 2; i++) {
      const error = await failure(client(s.baseUrl).api.pulse());
      expect(error).toBeInstanceOf(ApiError);
      expect(error.message).toBe("the server's answer is not valid JSON");
    }
  });
});

describe('retries', () => {
  it('retries 503 and network errors, then succeeds', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 503 }, { fault: 'destroy' }, { body: { index: 2 } });
    const { api, debugLines, sleeps } = client(s.baseUrl, { retries: 2 });
    expect((await api.pulse()).body).toEqual({ index: 2 });
    expect(s.count('/api/pulse')).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(debugLines.filter((line) => line.startsWith('retry '))).toHaveLength(2);
  });

  it('honours Retry-After on a 503', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 503, headers: { 'retry-after': '2' } }, { body: {} });
    const { api, sleeps } = client(s.baseUrl, { retries: 1, now: () => 1_900_000_000_000 });
    await api.pulse();
    expect(sleeps).toEqual([2000]);
  });

  it('stops after the retries with the last error', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 504 }, { status: 504 }, { status: 504 });
    const error = await failure(client(s.baseUrl, { retries: 2 }).api.pulse());
    expect(error.message).toBe('the server failed (504 Gateway Timeout)');
    expect(s.count()).toBe(3);
  });

  it('never retries 400 or 404', async () => {
    const s = await server();
    s.expect('/api/search', { status: 400, body: { message: 'bad q' } });
    s.expect('/api/audit', { status: 404, body: {} });
    const { api } = client(s.baseUrl, { retries: 3 });
    await failure(api.search('x'));
    await failure(api.audit('x'));
    expect(s.count()).toBe(2);
  });
});

describe('rate limits', () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);
  const cases: Array<[string, Record<string, string>, number]> = [
    ['Retry-After seconds', { 'retry-after': '120' }, now + 120_000],
    ['Retry-After date', { 'retry-after': new Date(now + 300_000).toUTCString() }, now + 300_000],
    [
      'X-RateLimit-Reset epoch seconds',
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 840) },
      now + 840_000,
    ],
    ['RateLimit-Reset delta', { 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' }, now + 60_000],
    ['IETF RateLimit', { ratelimit: '"default";r=0;t=30', 'ratelimit-policy': '"default";q=100;w=3600' }, now + 30_000],
  ];
  it.each(cases)('429 with %s → RateLimitError with its reset', async (_name, headers, resetAt) => {
    const s = await server();
    s.expect('/api/audit', { status: 429, headers, body: { error: 'too many' } });
    const error = await failure(client(s.baseUrl, { now: () => now }).api.audit('x'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).exitCode).toBe(5);
    expect((error as RateLimitError).resetAt).toBe(resetAt);
    expect((error as RateLimitError).resetFromServer).toBe(true);
    expect(error.message).toMatch(
      /^rate limit reached: (100 requests|the free tier's 100 requests) per hour; resets in \d+ (s|min) \(at \d{1,2}:\d\d(:\d\d)?(\s[AP]M)?\)$/,
    );
    expect((error as RateLimitError).hint).toBe('wait for the reset (the wait option does), or ask the service operator for a higher tier');
  });

  it('estimates the reset from the local request count when the server says nothing', async () => {
    const s = await server();
    s.expect('/api/pulse', { body: {} }, { status: 429 });
    let clock = now;
    const store = openLocalStore({ cacheDir: join(stateDir, 'cache'), stateDir, historyDir: join(stateDir, 'history') });
    const { api } = client(s.baseUrl, { now: () => clock, store: { ledger: store.ledger } });
    await api.pulse();
    clock += 20 * 60_000;
    const error = (await failure(api.pulse())) as RateLimitError;
    expect(error.resetFromServer).toBe(false);
    expect(error.resetAt).toBe(now + 60 * 60_000);
    expect(error.message).toContain('resets in about 40 min (at about ');
    await store.close();
    expect(readRequestStatus(stateDir, keyFingerprint(KEY), clock).lastHour).toBe(2);
  });

  it('says the reset is unknown with no headers and no log', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 429 });
    const error = (await failure(client(s.baseUrl).api.pulse())) as RateLimitError;
    expect(error.resetAt).toBeUndefined();
    expect(error.message).toBe("rate limit reached: the free tier's 100 requests per hour; the reset time is unknown");
  });

  it('--wait: waits for Retry-After, then retries', async () => {
    const s = await server();
    s.expect('/api/audit', { status: 429, headers: { 'retry-after': '1' } }, { body: { score: 80 } });
    const { api, sleeps } = client(s.baseUrl, { wait: true, now: () => 1_900_000_000_000 });
    expect((await api.audit('x')).body).toEqual({ score: 80 });
    expect(s.count()).toBe(2);
    expect(sleeps).toEqual([2000]); // the second asked for, and a second's margin past the reset
  });

  it('--wait: shows a countdown only on a terminal', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 429, headers: { 'retry-after': '3' } }, { body: {} });
    const io = testIO({ stderrIsTTY: true });
    await client(s.baseUrl, { wait: true }, io).api.pulse();
    expect(io.stderrText()).toContain('rate limited; retrying in ');
    expect(io.stderrText().endsWith('\r\u001b[2K')).toBe(true);
  });

  it('--wait off a terminal: one line for a pause, however many requests wait in it', async () => {
    const s = await server();
    s.expect('/api/audit', { status: 429, headers: { 'retry-after': '3' } }, { status: 429, headers: { 'retry-after': '3' } }, { body: {} }, { body: {} });
    const io = testIO();
    // Both waits are held until both have begun, as in a batch whose requests meet the limit together.
    const waiting: Array<() => void> = [];
    const sleep = () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 2) for (const wake of waiting) wake();
      });
    const { api } = client(s.baseUrl, { wait: true, sleep }, io);
    await Promise.all([api.audit('a'), api.audit('b')]);
    expect(io.stderrText()).toMatch(/^rate limited; waiting \d+ s \(until \d[^)]*\), then retrying\n$/);
  });

  it('--wait: requests that wait together count once against --max-wait (4 waits of 10 min fit in 30 min)', async () => {
    const s = await server();
    const limited = { status: 429, headers: { 'retry-after': '600' } };
    s.expect('/api/audit', limited, limited, limited, limited, { body: {} }, { body: {} }, { body: {} }, { body: {} });
    // Every wait is held until each request has begun waiting or given up, as in a batch.
    const waiting: Array<() => void> = [];
    let gaveUp = 0;
    const settle = () => {
      if (waiting.length + gaveUp === 4) for (const wake of waiting) wake();
    };
    const sleep = () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      });
    const { api } = client(s.baseUrl, { wait: true, maxWait: 30 * 60, sleep });
    const calls = ['a', 'b', 'c', 'd'].map((name) =>
      api.audit(name).catch((error: unknown) => {
        gaveUp += 1;
        settle();
        throw error;
      }),
    );
    expect((await Promise.allSettled(calls)).map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(s.count()).toBe(8);
  });

  it('--wait: waits one after another each count against --max-wait', async () => {
    const s = await server();
    const limited = { status: 429, headers: { 'retry-after': '600' } };
    s.expect('/api/audit', limited, limited, { body: {} }, limited);
    const { api, sleeps } = client(s.baseUrl, { wait: true, maxWait: 25 * 60 });
    await api.audit('a');
    const error = await failure(api.audit('b'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).hint).toMatch(/further away than the maxWait option allows/);
    expect(sleeps).toHaveLength(2);
  });

  it('--wait: gives up with exit 5 when the reset is beyond --max-wait', async () => {
    const s = await server();
    s.expect('/api/audit', { status: 429, headers: { 'retry-after': '3600' } });
    const { api, sleeps } = client(s.baseUrl, { wait: true, maxWait: 60 });
    const error = await failure(api.audit('x'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(sleeps).toHaveLength(0);
    expect(s.count()).toBe(1);
  });

  it('warns once when few requests are left', async () => {
    const s = await server();
    s.always('/api/pulse', { headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '600' }, body: {} });
    const { api, warnings, debugLines } = client(s.baseUrl);
    await api.pulse();
    await api.pulse();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^3 requests left in this rate-limit window; resets in 10 min \(at \d{1,2}:\d\d(:\d\d)?(\s[AP]M)?\)$/);
    expect(debugLines).toContain('< x-ratelimit-remaining: 3');
  });
});

describe('interrupts and network faults', () => {
  it('an aborted signal stops a request at once: InterruptedError (130)', async () => {
    const s = await server();
    s.expect('/api/pulse', { fault: 'hang' });
    const controller = new AbortController();
    const pending = client(s.baseUrl, { signal: controller.signal }).api.pulse();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });

  it('Ctrl-C during a --wait: InterruptedError', async () => {
    const s = await server();
    s.expect('/api/pulse', { status: 429, headers: { 'retry-after': '600' } });
    const controller = new AbortController();
    const pending = client(s.baseUrl, { signal: controller.signal, wait: true, sleep: undefined }).api.pulse();
    setTimeout(() => controller.abort(), 50);
    expect(await failure(pending)).toBeInstanceOf(InterruptedError);
  });

  it('a server that never answers: NetworkError after the timeout', async () => {
    const s = await server();
    s.expect('/api/pulse', { fault: 'hang' });
    const error = await failure(client(s.baseUrl, { timeout: 0.2 }).api.pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).exitCode).toBe(6);
    expect(error.message).toBe('no answer from 127.0.0.1 within 0.2 s');
    expect((error as NetworkError).hint).toMatch(/the timeout option/);
  });

  it('calls under way together: each attempt has its own timeout, and one timing out leaves the others', async () => {
    const s = await server();
    const { api } = client(s.baseUrl, { timeout: 1 });
    s.expect('/api/pulse', { fault: 'hang' });
    const hung = failure(api.pulse());
    await s.arrival((request) => request.path === '/api/pulse');
    // Sent well after the first, and answered only once the first has timed out.
    await new Promise((resolve) => setTimeout(resolve, 400));
    s.expect('/api/audit', { status: 200, body: { company: { name: 'Acme' } }, after: hung });
    const answered = api.audit('Acme');
    expect((await hung).message).toBe('no answer from 127.0.0.1 within 1 s');
    expect((await answered).body).toEqual({ company: { name: 'Acme' } });
  });

  it('a closed port: connection refused', async () => {
    const port = await closedPort();
    const error = await failure(client(new URL(`http://127.0.0.1:${port}/api`)).api.pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`cannot connect to 127.0.0.1:${port} (connection refused)`);
    expect((error as NetworkError).hint).toBe('is the server running? check the baseUrl option');
  });

  it('a reset connection', async () => {
    const s = await server();
    s.expect('/api/pulse', { fault: 'reset' });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe('the connection to 127.0.0.1 was reset');
  });

  it('a body cut off before its content-length', async () => {
    const s = await server();
    s.expect('/api/pulse', { fault: 'truncate', body: { index: 1, padding: 'x'.repeat(2000) } });
    const error = await failure(client(s.baseUrl).api.pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe('the answer from 127.0.0.1 was cut off');
  });
});

describe('the key never leaks', () => {
  it('debug lines mask it, and name request, status and timing', async () => {
    const s = await server();
    // A retry starts again from the original URL, so the redirect is met twice.
    s.always('/api/audit', { status: 302, headers: { location: '/api/audit2' } });
    s.expect('/api/audit2', { status: 500, body: { message: `echo ${KEY}` } }, { body: { echo: KEY } });
    const { api, debugLines } = client(s.baseUrl, { retries: 1 });
    await api.audit('Acme');
    expect(debugLines).toContain(`> GET ${s.origin}/api/audit?q=Acme`);
    expect(debugLines).toContain('> authorization: Bearer ****WXYZ');
    expect(debugLines.some((line) => /^< 200 OK \(\d+ ms\)$/.test(line))).toBe(true);
    expect(debugLines.some((line) => line.startsWith('retry 1 of 1'))).toBe(true);
    expect(debugLines.join('\n')).not.toContain(KEY);
  });
});

describe("the CLI's hooks", () => {
  it('listen to requests and responses only under --debug, so a plain run builds no event for them', () => {
    const hooksWith = (debug: boolean) =>
      clientHooks(createDeps({ globals: testGlobals({ debug }), io: testIO(), env: {}, signal: new AbortController().signal }).deps);
    expect(Object.keys(hooksWith(false)).sort()).toEqual(['onCache', 'onLowQuota', 'onRateLimitWait', 'onRetry']);
    expect(Object.keys(hooksWith(true)).sort()).toEqual(['onCache', 'onLowQuota', 'onRateLimitWait', 'onRequest', 'onResponse', 'onRetry']);
  });
});
