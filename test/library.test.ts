// The library as a Node script uses it (src/index.ts), in-process against the sandbox and the strict
// fault server over real HTTP: results, one error kind per exit code, hooks, and a library that
// writes nothing and reads no environment variable it is not given.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  AuthError,
  createClient,
  ExitCode,
  NetworkError,
  NotCachedError,
  NotFoundError,
  RateLimitError,
  RepError,
  UsageError,
  type LowQuotaEvent,
  type RateLimitWaitEvent,
  type RetryEvent,
  openLocalStore,
} from '../src/index.js';
import { makeTempHome, useRep } from './helpers/cli.js';
import { closedPort, startFaultServer } from './helpers/fault-server.js';
import { useSandbox } from './helpers/sandbox.js';
import { baseUrlKey } from '../src/api/base-url.js';
import { keyFingerprint } from '../src/store/policy.js';

const sandbox = useSandbox();
const localStore = (dir: string) => openLocalStore({ cacheDir: `${dir}/cache`, stateDir: `${dir}/state`, historyDir: `${dir}/state/history` });
const { track } = useRep();

async function failure(promise: Promise<unknown>): Promise<RepError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RepError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('the cache option', () => {
  it("onAnswered (the batch's): once the answer is in, before it is stored; the call resolves after the store", async () => {
    const home = makeTempHome();
    try {
      const server = track(await startFaultServer()).always('/api/pulse', { body: { index: 61 } });
      const events: string[] = [];
      const real = localStore(home.dir).answers;
      const answers = {
        ...real,
        put: async (...args: Parameters<typeof real.put>) => {
          events.push('put');
          return real.put(...args);
        },
      };
      const rep = createClient({ baseUrl: server.baseUrl, apiKey: 'k-cache-0002', store: { answers }, maxAge: 60 });
      const call = rep.pulse({ onAnswered: () => events.push('answered') });
      await call;
      events.push('resolved');
      expect(events).toEqual(['answered', 'put', 'resolved']);
      expect((await rep.pulse({ onAnswered: () => events.push('from the cache') })).fromCache).toBeDefined();
      expect(events).toHaveLength(3); // an answer from the cache sends nothing: nothing to tell
      expect(server.count('/api/pulse')).toBe(1);
    } finally {
      home.cleanup();
    }
  });

  it('knownMiss (a batch plan found none): the store is not asked again, the request goes and its answer is stored', async () => {
    const home = makeTempHome();
    try {
      const server = track(await startFaultServer()).always('/api/pulse', { body: { index: 61 } });
      const real = localStore(home.dir).answers;
      // Every question the store is asked, one by one or many at once.
      let gets = 0;
      const answers = {
        ...real,
        get: async (...args: Parameters<typeof real.get>) => {
          gets += 1;
          return real.get(...args);
        },
        getMany: async (...args: Parameters<typeof real.getMany>) => {
          gets += args[0].length;
          return real.getMany(...args);
        },
      };
      const told: string[] = [];
      const rep = createClient({
        baseUrl: server.baseUrl,
        apiKey: 'k-cache-0003',
        store: { answers },
        maxAge: 60,
        hooks: { onCache: (event) => told.push(event.kind) },
      });
      expect((await rep.pulse({ knownMiss: true })).fromCache).toBeUndefined();
      expect([gets, server.count('/api/pulse')]).toEqual([0, 1]);
      expect(told).toEqual(['miss', 'put']);
      expect((await rep.pulse()).fromCache).toBeDefined();
      expect([gets, server.count('/api/pulse')]).toEqual([1, 1]);
    } finally {
      home.cleanup();
    }
  });

  it('cache lookups asked in one turn go to the store together, as one getMany, each answered in its place', async () => {
    const home = makeTempHome();
    try {
      const server = track(await startFaultServer());
      const names = Array.from({ length: 40 }, (_, i) => `Company ${i + 1}`);
      const real = localStore(home.dir).answers;
      const calls: string[] = [];
      const answers = {
        ...real,
        get: async (...args: Parameters<typeof real.get>) => {
          calls.push('get');
          return real.get(...args);
        },
        getMany: async (...args: Parameters<typeof real.getMany>) => {
          calls.push(`getMany ${args[0].length}`);
          await new Promise((resolve) => setTimeout(resolve, 5)); // a database's round trip
          return real.getMany(...args);
        },
      };
      const rep = createClient({ baseUrl: server.baseUrl, apiKey: 'k-cache-0003', store: { answers }, maxAge: 60 });
      // Every other name answered before (by another run, say).
      const place = { baseUrl: baseUrlKey(server.baseUrl), endpoint: 'audit' as const, keyFingerprint: keyFingerprint('k-cache-0003') };
      for (const name of names.filter((_, i) => i % 2 === 0)) {
        const body = JSON.stringify({ company: { name }, score: 70 });
        await real.put({ ...place, query: name }, { status: 200, bodyText: body, contentType: 'application/json', storedAt: Date.now() });
      }
      const results = await Promise.allSettled(names.map((name) => rep.audit(name, { onlyIfCached: true })));
      expect(calls).toEqual(['getMany 40']);
      for (const [i, result] of results.entries()) {
        if (i % 2 === 0) expect(result.status === 'fulfilled' && result.value.view.name).toBe(names[i]);
        else expect(result.status === 'rejected' && result.reason).toBeInstanceOf(NotCachedError);
      }
      expect(server.count('/api/audit')).toBe(0);
    } finally {
      home.cleanup();
    }
  });

  it('a store of its own without getMany (written before it) is asked key by key; one whose lookup throws is a miss', async () => {
    const home = makeTempHome();
    try {
      const server = track(await startFaultServer()).always('/api/pulse', { body: { index: 61 } });
      const { getMany: _left, ...older } = localStore(home.dir).answers;
      const rep = createClient({ baseUrl: server.baseUrl, apiKey: 'k-cache-0004', store: { answers: older as never }, maxAge: 60 });
      expect((await rep.pulse()).fromCache).toBeUndefined();
      expect((await rep.pulse()).fromCache).toBeDefined();
      const throwing = {
        ...older,
        getMany: () => {
          throw new Error('not like this');
        },
      };
      const other = createClient({ baseUrl: server.baseUrl, apiKey: 'k-cache-0004', store: { answers: throwing as never }, maxAge: 60 });
      expect((await other.pulse()).fromCache).toBeUndefined();
      expect(server.count('/api/pulse')).toBe(2);
    } finally {
      home.cleanup();
    }
  });

  it('answers a repeated call from the store; onlyIfCached sends nothing and a miss is a NotCachedError', async () => {
    const home = makeTempHome();
    try {
      const server = track(await startFaultServer()).always('/api/pulse', { body: { index: 61 } });
      let clock = Date.parse('2026-11-01T08:00:00Z');
      const now = () => clock;
      const rep = createClient({ baseUrl: server.baseUrl, apiKey: 'k-cache-0001', store: localStore(home.dir), maxAge: 60, now });
      const miss = await failure(rep.pulse({ onlyIfCached: true }));
      expect(miss).toBeInstanceOf(NotCachedError);
      expect([miss.exitCode, miss.message]).toEqual([ExitCode.error, 'no cached answer for pulse']);
      expect(server.count('/api/pulse')).toBe(0);
      expect((await rep.pulse()).fromCache).toBeUndefined();
      const fetchedAt = clock;
      clock += 42_000;
      const hit = await rep.pulse({ onlyIfCached: true });
      // When it was fetched, exactly: the history compares a cached answer with the point before that.
      expect([hit.view.index, hit.fromCache]).toEqual([61, { ageMs: 42_000, fetchedAt }]);
      expect(server.count('/api/pulse')).toBe(1);
    } finally {
      home.cleanup();
    }
  });
});

describe('results', () => {
  it('audit, search and pulse resolve to the body, its view and the rate-limit headers', async () => {
    const rep = createClient({ baseUrl: sandbox.url, apiKey: sandbox.key });
    const audit = await rep.audit('Кофейня Ромашка');
    expect(audit.body).toMatchObject({ company: { name: 'Кофейня Ромашка' }, score: expect.any(Number) });
    expect(audit.view).toMatchObject({ name: 'Кофейня Ромашка', score: (audit.body as { score: number }).score, scoreMax: 100 });
    expect(audit.view.sources.length).toBeGreaterThan(0);
    expect(audit.rateLimit).toMatchObject({ limit: 10_000, remaining: expect.any(Number), resetAt: expect.any(Number) });
    expect(audit.status).toBe(200);

    const search = await rep.search('coffee');
    expect(search.view.groups.map((group) => group.type)).toContain('company');
    expect(search.view.groups.every((group) => group.rows.length <= 5)).toBe(true);

    const pulse = await rep.pulse();
    expect(pulse.view.index).toBe((pulse.body as { index: number }).index);
    expect(pulse.rateLimit.remaining).toBeLessThan(audit.rateLimit.remaining ?? 0);
  });

  it('takes the base URL as a URL too, and answers each call under its own signal', async () => {
    const rep = createClient({ baseUrl: new URL(sandbox.url), apiKey: sandbox.key });
    const stop = new AbortController();
    stop.abort();
    expect((await failure(rep.pulse({ signal: stop.signal }))).exitCode).toBe(ExitCode.interrupted);
    expect((await rep.pulse({ signal: new AbortController().signal })).view.index).toEqual(expect.any(Number));
  });
});

describe('errors: a RepError subclass with the CLI exit code', () => {
  it('no such company: NotFoundError, exit 3', async () => {
    const error = await failure(createClient({ baseUrl: sandbox.url, apiKey: sandbox.key }).audit('No Such Company Anywhere'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.exitCode).toBe(3);
  });

  it('a rejected key: AuthError, exit 4', async () => {
    const error = await failure(createClient({ baseUrl: sandbox.url, apiKey: 'not-the-sandbox-key' }).pulse());
    expect(error).toBeInstanceOf(AuthError);
    expect(error.exitCode).toBe(4);
  });

  it('a spent limit: RateLimitError, exit 5, with the reset time and the limit', async () => {
    const server = track(await startFaultServer());
    const resetAt = Math.ceil(Date.now() / 1000) + 600;
    server.expect('/api/pulse', {
      status: 429,
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetAt) },
      body: {},
    });
    const error = await failure(createClient({ baseUrl: server.baseUrl }).pulse());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(5);
    expect((error as RateLimitError).resetAt).toBe(resetAt * 1000);
    expect((error as RateLimitError).limit).toBe(100);
  });

  it('nothing listening: NetworkError, exit 6', async () => {
    const error = await failure(createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}/api`, retries: 0 }).pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.exitCode).toBe(6);
  });

  it('a server failure: ApiError, exit 1', async () => {
    const server = track(await startFaultServer());
    server.expect('/api/search', { status: 500, body: { error: { message: 'database is down' } } });
    const error = await failure(createClient({ baseUrl: server.baseUrl, retries: 0 }).search('x'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe('the server failed (500 Internal Server Error): database is down');
  });

  it('an empty name or text: UsageError, exit 2, and no request', async () => {
    const server = track(await startFaultServer()); // strict: any request fails its close()
    const rep = createClient({ baseUrl: server.baseUrl });
    for (const call of [() => rep.audit(''), () => rep.audit('  \t'), () => rep.search('')]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(UsageError);
      expect(error.exitCode).toBe(2);
    }
    expect(server.count()).toBe(0);
  });

  it('refuses plain http:// to a host that is not loopback, as the CLI does', () => {
    expect(() => createClient({ baseUrl: 'http://api.example.com/api' })).toThrow(UsageError);
    expect(() => createClient({ baseUrl: 'http://api.example.com/api' })).toThrow(
      /refusing the plain http:\/\/ base URL from the baseUrl option for api\.example\.com/,
    );
    expect(() => createClient({ baseUrl: 'https://api.example.com/api', apiKey: 'two words' })).toThrow(UsageError);
  });

  it.each([{ timeout: 0 }, { timeout: Number.NaN }, { retries: -1 }, { retries: Number.NaN }, { maxWait: Number.POSITIVE_INFINITY }])(
    'refuses %o: UsageError',
    (numbers) => {
      expect(() => createClient({ baseUrl: 'https://api.example.com/api', ...numbers })).toThrow(UsageError);
    },
  );

  it.each([
    ['timeout', 'positive'],
    ['maxWait', 'non-negative'],
  ])('refuses a %s longer than a timer holds (about 24 days), which would fire at once', (name, kind) => {
    expect(() => createClient({ baseUrl: 'https://api.example.com/api', [name]: 1e9 })).toThrow(
      new UsageError(`the ${name} option must be a ${kind} number of seconds, at most 2147483 (about 24 days)`),
    );
    expect(() => createClient({ baseUrl: 'https://api.example.com/api', [name]: 2_147_483 })).not.toThrow();
  });
});

describe('hooks', () => {
  it('onRetry: a 503 is retried once, then the 200 is the answer', async () => {
    const server = track(await startFaultServer());
    server.expect('/api/pulse', { status: 503, headers: { 'retry-after': '0' } }, { body: { index: 70 } });
    const retries: RetryEvent[] = [];
    const rep = createClient({ baseUrl: server.baseUrl, retries: 1, hooks: { onRetry: (retry) => void retries.push(retry) } });
    expect((await rep.pulse()).view.index).toBe(70);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, retries: 1, delayMs: 0 });
    expect(retries[0]?.error).toBeInstanceOf(ApiError);
  });

  it('onRateLimitWait: told before the wait, its signal aborted when the wait is over', async () => {
    const server = track(await startFaultServer());
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '2' } }, { body: { index: 71 } });
    const waits: RateLimitWaitEvent[] = [];
    const slept: Array<{ ms: number; told: boolean }> = [];
    const rep = createClient({
      baseUrl: server.baseUrl,
      wait: true,
      hooks: { onRateLimitWait: (wait) => void waits.push(wait) },
      // The client sleeps itself; recorded here, so the test does not wait two seconds.
      sleep: async (ms) => void slept.push({ ms, told: waits.length === 1 && !waits[0]?.signal.aborted }),
    });
    expect((await rep.pulse()).view.index).toBe(71);
    expect(waits).toHaveLength(1);
    expect(waits[0]?.ms).toBeGreaterThanOrEqual(2000);
    expect(waits[0]?.message).toMatch(/^rate limited; waiting \d+ s \(until .+\), then retrying$/);
    expect(slept).toEqual([{ ms: waits[0]?.ms, told: true }]);
    expect(waits[0]?.signal.aborted).toBe(true);
  });

  it('onLowQuota: once, when the server says few requests are left', async () => {
    const server = track(await startFaultServer());
    const low = { headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '3' }, body: { index: 1 } };
    server.expect('/api/pulse', { headers: { 'x-ratelimit-remaining': '50' }, body: { index: 1 } }, low, low);
    const told: LowQuotaEvent[] = [];
    const rep = createClient({ baseUrl: server.baseUrl, hooks: { onLowQuota: (quota) => void told.push(quota) } });
    for (let i = 0; i < 3; i++) await rep.pulse();
    expect(told).toEqual([{ remaining: 3, limit: 100, message: '3 requests left in this rate-limit window' }]);
  });

  it('onRequest and onResponse describe each request with the key masked', async () => {
    const key = 'sk_live_0123456789abcdefWXYZ';
    const server = track(await startFaultServer());
    server.expect('/api/pulse', { headers: { 'x-echo': `your key is ${key}` }, body: { index: 1 } });
    const seen: string[] = [];
    const rep = createClient({
      baseUrl: server.baseUrl,
      apiKey: key,
      hooks: {
        onRequest: (request) => void seen.push(`${request.method} ${request.url} ${request.headers.authorization}`),
        onResponse: (response) => void seen.push(`${response.status} ${response.headers['x-echo']}`),
      },
    });
    await rep.pulse();
    expect(seen).toEqual([`GET ${server.origin}/api/pulse Bearer ****WXYZ`, '200 your key is ****WXYZ']);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });
});

describe('a library, not a program', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('writes nothing to stdout or stderr, whatever happens', async () => {
    const server = track(await startFaultServer());
    server.expect(
      '/api/pulse',
      { status: 429, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' }, body: {} },
      { headers: { 'x-ratelimit-remaining': '1' }, body: { index: 1 } },
    );
    server.expect('/api/search', { status: 503 }, { status: 500, body: 'down' });
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const rep = createClient({ baseUrl: server.baseUrl, wait: true, retries: 1, sleep: async () => {} });
    await rep.pulse();
    await failure(rep.search('x'));
    await failure(rep.audit(''));
    await failure(createClient({ baseUrl: sandbox.url, apiKey: sandbox.key }).audit('No Such Company Anywhere'));
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
  });

  it('ignores proxy variables in process.env unless given env', async () => {
    const deadProxy = `http://127.0.0.1:${await closedPort()}`;
    vi.stubEnv('HTTP_PROXY', deadProxy);
    vi.stubEnv('http_proxy', deadProxy);
    vi.stubEnv('NO_PROXY', '');
    vi.stubEnv('no_proxy', '');
    // A remote host (loopback ones never go through a proxy) that DNS does not know.
    const baseUrl = 'https://api.rep.test/api';
    const direct = await failure(createClient({ baseUrl, retries: 0 }).pulse());
    expect(direct.message).toBe('cannot resolve api.rep.test');
    const proxied = createClient({ baseUrl, retries: 0, env: process.env });
    const error = await failure(proxied.pulse());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toMatch(/^cannot connect to the proxy 127\.0\.0\.1:\d+ from http_proxy \(connection refused\)$/);
  });
});

describe("errors speak the library's words, not the CLI's", () => {
  const CLI_WORDS = /--[a-z]|`rep |\brep (login|search|status)\b|REP_/;

  it('a rejected key names the apiKey option and shows the server message', async () => {
    const error = await failure(createClient({ baseUrl: sandbox.url, apiKey: 'not-the-sandbox-key' }).pulse());
    expect(error).toMatchObject({
      message: 'the server rejected the API key (401 Unauthorized): Invalid API key',
      hint: 'check the apiKey option: the server does not accept it',
    });
    const none = await failure(createClient({ baseUrl: sandbox.url }).pulse());
    expect(none).toMatchObject({ message: 'the server needs an API key (401 Unauthorized): Missing API key', hint: 'give the key as the apiKey option' });
  });

  it('not found, refused, 5xx, a malformed answer, a rate limit and maxWait: hints name search(), baseUrl, retries, wait and maxWait', async () => {
    const server = track(await startFaultServer());
    server.expect('/api/pulse', { status: 503, body: {} }, { status: 200, body: 'not json' }, { status: 429, headers: { 'retry-after': '3600' }, body: {} });
    server.expect('/api/pulse', { status: 429, headers: { 'retry-after': '3600' }, body: {} });
    const client = createClient({ baseUrl: server.baseUrl, retries: 0 });
    const errors = [
      await failure(createClient({ baseUrl: sandbox.url, apiKey: sandbox.key }).audit('Royal Bear Cofee')),
      await failure(createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}/api`, retries: 0 }).pulse()),
      await failure(client.pulse()),
      await failure(client.pulse()),
      await failure(client.pulse()),
      await failure(createClient({ baseUrl: server.baseUrl, retries: 0, wait: true, maxWait: 60 }).pulse()),
    ];
    expect(errors.map((error) => error.hint)).toEqual([
      'no company has exactly that name; search("Royal") lists those matching one word of it',
      'is the server running? check the baseUrl option',
      'try again later; the retries option retries automatically',
      "check the baseUrl option (it should point at the API, usually ending in /api); the error's bodyExcerpt shows the start of the answer",
      'wait for the reset (the wait option does), or ask the service operator for a higher tier',
      'the reset is further away than the maxWait option allows: raise maxWait, or ask the service operator for a higher tier',
    ]);
    for (const error of errors) expect(error.hint).not.toMatch(CLI_WORDS);
  });

  it('an error without a hint has no hint property at all (nor an AuthError a status)', () => {
    expect(Object.hasOwn(new UsageError('u'), 'hint')).toBe(false);
    expect(Object.hasOwn(new AuthError('a'), 'status')).toBe(false);
    expect(Object.hasOwn(new UsageError('u', { hint: 'h' }), 'hint')).toBe(true);
  });

  it('a name or text that is not a string is a UsageError saying what it got, sent nowhere', async () => {
    const rep = createClient({ baseUrl: sandbox.url, apiKey: sandbox.key });
    const untyped = rep as unknown as { audit(name: unknown): Promise<unknown>; search(text: unknown): Promise<unknown> };
    const got = await Promise.all([
      failure(untyped.audit(42)),
      failure(untyped.search(null)),
      failure(untyped.audit(undefined)),
      failure(untyped.search(['a'])),
    ]);
    expect(got.every((error) => error instanceof UsageError && error.exitCode === 2)).toBe(true);
    expect(got.map((error) => error.message)).toEqual([
      'audit() takes the company name as a string, not a number (42)',
      'search() takes the search text as a string, not null',
      'audit() takes the company name as a string, not an undefined',
      'search() takes the search text as a string, not an array',
    ]);
    expect((await failure(rep.audit('  '))).message).toBe('the company name is empty');
  });
});
