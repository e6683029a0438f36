// A server's non-2xx answer as the typed error and one-line message a user reads (src/api/response.ts,
// with the error kinds of src/api/errors.ts).
import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, InterruptedError, NetworkError, NotFoundError, RateLimitError, statusLine, UsageError } from '../src/api/errors.js';
import { targetOf } from '../src/api/base-url.js';
import { bodyExcerpt, errorFromResponse, parseJsonBody, type RequestFacts } from '../src/api/response.js';
import type { ApiResponse } from '../src/api/transport.js';
import { BatchError } from '../src/batch/outcome.js';
import { HistoryFileError } from '../src/commands/history.js';
import { ConfigError, describeError, NotCachedError, OutputError } from '../src/errors.js';
import { GateError } from '../src/history/watch.js';

const target = targetOf(new URL('https://api.example.com/v1/audit?q=secret'));
const answer = (status: number, text = '', headers: Record<string, string> = {}): ApiResponse => ({ status, headers, text, target });
const facts = (overrides: Partial<RequestFacts> = {}): RequestFacts => ({
  endpoint: 'audit',
  q: 'Acme',
  hasKey: true,
  redact: (text) => text.replaceAll('KEY123', '****'),
  ...overrides,
});

describe('error names', () => {
  // Spelled out in each class (the CLI's bundle is minified, where a class's own name would not be its
  // name); test/faults.test.ts checks one on the built CLI.
  it.each([
    [new UsageError('x'), UsageError],
    [new AuthError('x'), AuthError],
    [new NotFoundError('x'), NotFoundError],
    [new ApiError('x', { status: 500 }), ApiError],
    [new RateLimitError('x', {}), RateLimitError],
    [new NetworkError('x'), NetworkError],
    [new NotCachedError('x'), NotCachedError],
    [new InterruptedError(), InterruptedError],
    [new ConfigError('x'), ConfigError],
    [new OutputError(new Error('x')), OutputError],
    [new BatchError('x', 1), BatchError],
    [new HistoryFileError('x'), HistoryFileError],
    [new GateError('x'), GateError],
  ])('%s is named after its class', (error, kind) => {
    expect(error.name).toBe(kind.name);
    expect(String(error.stack)).toMatch(new RegExp(`^${kind.name}: `));
  });
});

describe('errorFromResponse', () => {
  it('401 and 403: the key was rejected, or one is needed', () => {
    const rejected = errorFromResponse(answer(401), facts());
    expect(rejected).toBeInstanceOf(AuthError);
    expect(rejected).toMatchObject({
      message: 'the server rejected the API key (401 Unauthorized)',
      hint: 'check the apiKey option: the server does not accept it',
      status: 401,
      exitCode: 4,
    });
    expect(errorFromResponse(answer(403), facts({ hasKey: false }))).toMatchObject({ message: 'the server needs an API key (403 Forbidden)', status: 403 });
  });

  it('404 on an audit: no such company, with a search to try', () => {
    const error = errorFromResponse(answer(404, '{"error":"nope"}'), facts());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      message: 'no company named "Acme"',
      hint: 'no company has exactly that name; search("Acme") lists those matching one word of it',
      exitCode: 3,
    });
    expect(errorFromResponse(answer(404, ''), facts({ q: 'Blue\u001b[31m Bottle' }))).toMatchObject({
      message: 'no company named "Blue Bottle"',
      hint: 'no company has exactly that name; search("Bottle") lists those matching one word of it',
    });
    expect(errorFromResponse(answer(404, '{}'), facts({ q: '-x' }))).toMatchObject({
      hint: 'no company has exactly that name; search("-x") lists those matching one word of it',
      query: '-x',
    });
    expect(errorFromResponse(answer(404, ' \n'), facts())).toBeInstanceOf(NotFoundError);
  });

  it('404 with an HTML page, or on another endpoint: the base URL is wrong, never the query', () => {
    const html = errorFromResponse(answer(404, '<html>Not Found</html>'), facts());
    expect(html).toBeInstanceOf(ApiError);
    expect(html).toMatchObject({
      message: 'https://api.example.com/v1/audit was not found (404): is the base URL right?',
      hint: 'check the baseUrl option (the base URL usually ends in /api)',
      status: 404,
    });
    expect(errorFromResponse(answer(404, '{}'), facts({ endpoint: 'search' }))).toBeInstanceOf(ApiError);
    expect(errorFromResponse(answer(404, '{}'), facts({ endpoint: 'pulse', q: undefined }))).toBeInstanceOf(ApiError);
  });

  it('5xx: the server failed, with its own message when it gives one', () => {
    const error = errorFromResponse(answer(503, '{"error":{"message":"down for maintenance"}}', { 'retry-after': '5' }), facts());
    expect(error).toMatchObject({
      message: 'the server failed (503 Service Unavailable): down for maintenance',
      hint: 'try again later; the retries option retries automatically',
      status: 503,
      exitCode: 1,
    });
    expect((error as ApiError).headers).toEqual({ 'retry-after': '5' });
    expect(errorFromResponse(answer(500, '<h1>oops</h1>'), facts()).message).toBe('the server failed (500 Internal Server Error)');
  });

  it('any other status: an unexpected answer', () => {
    expect(errorFromResponse(answer(418, '{"message":"teapot"}'), facts())).toMatchObject({
      message: "unexpected answer from the server (418 I'm a Teapot): teapot",
      hint: "the error's status, headers and bodyExcerpt, and the onRequest and onResponse hooks, show the request and the answer",
    });
    expect(errorFromResponse(answer(499), facts()).message).toBe('unexpected answer from the server (499)');
  });

  it.each([
    ['error as text', { error: 'bad input' }, 'bad input'],
    ['error.message', { error: { message: 'deep' }, message: 'outer' }, 'deep'],
    ['message', { message: 'msg' }, 'msg'],
    ['detail (RFC 9457)', { detail: 'the detail', title: 'Title' }, 'the detail'],
    ['title', { title: 'Just a title' }, 'Just a title'],
    ['a blank error, then message', { error: '  ', message: 'next' }, 'next'],
  ])('reads the server message from %s', (_, body, said) => {
    expect(errorFromResponse(answer(400, JSON.stringify(body)), facts()).message).toBe(`unexpected answer from the server (400 Bad Request): ${said}`);
  });

  it('shows no server message that is empty once scrubbed, or not text, or in an array', () => {
    for (const body of [{ error: '\u001b[31m' }, { error: 42 }, [{ message: 'x' }], { error: { message: 7 } }]) {
      expect(errorFromResponse(answer(400, JSON.stringify(body)), facts()).message).toBe('unexpected answer from the server (400 Bad Request)');
    }
  });

  it('scrubs, masks and shortens the server message to one line of 200 characters', () => {
    const long = errorFromResponse(answer(400, JSON.stringify({ message: 'x'.repeat(500) })), facts());
    expect(long.message).toBe(`unexpected answer from the server (400 Bad Request): ${'x'.repeat(199)}…`);
    const exact = errorFromResponse(answer(400, JSON.stringify({ message: 'y'.repeat(200) })), facts());
    expect(exact.message).toBe(`unexpected answer from the server (400 Bad Request): ${'y'.repeat(200)}`);
    const masked = errorFromResponse(answer(400, JSON.stringify({ message: ' bad key KEY123\nline two ' })), facts());
    expect(masked.message).toBe('unexpected answer from the server (400 Bad Request): bad key **** line two');
  });
});

describe('bodyExcerpt', () => {
  it('is the start of the body on one line, masked, at most 300 characters', () => {
    expect(bodyExcerpt('  <p>\nKEY123\n</p>  ', facts().redact)).toBe('<p> **** </p>');
    expect(bodyExcerpt('z'.repeat(300), (text) => text)).toBe('z'.repeat(300));
    expect(bodyExcerpt('z'.repeat(1000), (text) => text)).toBe(`${'z'.repeat(300)}…`);
    expect(bodyExcerpt(`${' '.repeat(600)}late`, (text) => text)).toBe(''); // only the start of a body is read
  });
});

describe('parseJsonBody', () => {
  it('gives the JSON object or array, a byte-order mark ignored', () => {
    expect(parseJsonBody(answer(200, '\uFEFF{"a":1}'), facts().redact)).toEqual({ a: 1 });
    expect(parseJsonBody(answer(200, '[]'), facts().redact)).toEqual([]);
  });

  it.each([
    ['', "the server's answer is empty (204 No Content)", 204],
    ['  \n', "the server's answer is empty (200 OK)", 200],
    ['null', "the server's answer is not a JSON object or array (200 OK)", 200],
    ['42', "the server's answer is not a JSON object or array (200 OK)", 200],
  ])('refuses %j as a malformed answer', (text, message, status) => {
    const error = (() => {
      try {
        parseJsonBody(answer(status, text), facts().redact);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      message,
      hint: "the error's status, headers and bodyExcerpt, and the onRequest and onResponse hooks, show the request and the answer",
      status,
    });
  });

  it('says text that is no JSON is probably the wrong base URL, keeping the start for --debug', () => {
    const error = (() => {
      try {
        parseJsonBody(answer(200, '<html>KEY123</html>'), facts().redact);
      } catch (caught) {
        return caught as ApiError;
      }
    })();
    expect(error).toMatchObject({
      message: "the server's answer is not valid JSON",
      hint: "check the baseUrl option (it should point at the API, usually ending in /api); the error's bodyExcerpt shows the start of the answer",
      bodyExcerpt: '<html>****</html>',
    });
    expect(error?.cause).toBeInstanceOf(SyntaxError);
  });
});

describe('the error kinds', () => {
  it('each carries its exit code, name and hint', () => {
    expect(new UsageError('u', { hint: 'h' })).toMatchObject({ exitCode: 2, name: 'UsageError', hint: 'h', message: 'u' });
    expect(new UsageError('u').hint).toBeUndefined();
    expect(new RateLimitError('r', {})).toMatchObject({ exitCode: 5, resetFromServer: false });
    expect(new NetworkError('n')).toMatchObject({ exitCode: 6, retryable: true });
    expect(new NetworkError('n', { retryable: false }).retryable).toBe(false);
    expect(new NetworkError('n', { cause: 'why' }).cause).toBe('why');
    expect('cause' in new NetworkError('n')).toBe(false);
    expect(new ApiError('a', { status: 500 })).toMatchObject({ headers: {}, bodyExcerpt: '' });
    expect(new InterruptedError()).toMatchObject({ message: 'interrupted', exitCode: 130 });
  });

  it('statusLine names the status when Node knows it', () => {
    expect(statusLine(502)).toBe('502 Bad Gateway');
    expect(statusLine(599)).toBe('599');
  });
});

describe("describeError: the CLI says a library error's hint in its own words", () => {
  it.each([
    [new NetworkError('x', { hint: 'lib', reason: 'refused' }), 'is the server running? check --base-url'],
    [new NetworkError('x', { hint: 'lib', reason: 'timeout' }), 'raise --timeout (seconds), or check your network'],
    [new RateLimitError('x', { hint: 'lib', reason: 'rateLimit' }), 'wait and retry with --wait, or ask the service operator for a higher tier'],
    [
      new RateLimitError('x', { hint: 'lib', reason: 'maxWait' }),
      'the reset is further away than --max-wait allows: raise --max-wait, or ask the service operator for a higher tier',
    ],
    [new ApiError('x', { status: 500, hint: 'lib', reason: 'retries' }), 'try again later; --retries retries automatically'],
    [new UsageError('x', { hint: 'its own' }), 'its own'],
  ])('%s', (error, hint) => {
    expect(describeError(error).hint).toBe(hint);
  });

  it('a suggested command keeps the run context; a key hint names where the key came from', () => {
    const notFound = errorFromResponse(answer(404, '{}'), facts({ q: 'Royal Bear Cofee' }));
    expect(describeError(notFound, { contextArgs: ['--sandbox'] }).hint).toBe(
      'no company has exactly that name; search by one word: rep --sandbox search Royal',
    );
    const wrongUrl = errorFromResponse(answer(404, '<html>'), facts({ endpoint: 'pulse' }));
    expect(describeError(wrongUrl, { contextArgs: ['--base-url', 'https://x.example/api'] }).hint).toBe(
      'check --base-url, REP_BASE_URL or `rep --base-url https://x.example/api status` (the base URL usually ends in /api)',
    );
    const rejected = errorFromResponse(answer(401), facts());
    expect(describeError(rejected, { contextArgs: [], keySource: 'env' }).hint).toMatch(/^the key comes from REP_API_KEY/);
    expect(describeError(rejected).hint).toBe('run `rep login`, or set REP_API_KEY');
  });
});
