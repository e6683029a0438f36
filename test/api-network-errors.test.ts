// Error-cause mapping of src/api/transport.ts for causes a loopback server cannot produce
// (DNS, TLS), and proxy support through a real forwarding proxy (helpers/proxy.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/api/client.js';
import { errorCode, networkError, neverSent } from '../src/api/network-errors.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';
import { startProxy, type ForwardingProxy } from './helpers/proxy.js';

const url = new URL('https://api.example.com/v1/api/audit?q=x');
const coded = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, ...(cause ? { cause } : {}) });

describe('networkError', () => {
  it.each([
    [coded('ENOTFOUND'), 'connect', 'cannot resolve api.example.com'],
    [coded('EAI_AGAIN'), 'connect', 'cannot resolve api.example.com'],
    [coded('CERT_HAS_EXPIRED'), 'connect', 'TLS handshake with api.example.com failed (CERT_HAS_EXPIRED)'],
    [coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'connect', 'TLS handshake with api.example.com failed (ERR_TLS_CERT_ALTNAME_INVALID)'],
    [coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'connect', 'TLS handshake with api.example.com failed (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    [new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]), 'connect', 'cannot connect to api.example.com:443 (connection refused)'],
    [coded('UND_ERR_SOCKET', coded('ECONNRESET')), 'connect', 'the connection to api.example.com was reset'],
    [coded('UND_ERR_SOCKET'), 'body', 'the answer from api.example.com was cut off'],
    [coded('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), 'body', 'the answer from api.example.com was cut off'],
    [coded('UND_ERR_HEADERS_TIMEOUT'), 'connect', 'no answer from api.example.com (timed out)'],
    [new Error('something odd'), 'connect', 'the request to api.example.com failed (something odd)'],
  ] as const)('%s (%s) → %s', (error, phase, message) => {
    const mapped = networkError(error, url, phase);
    expect(mapped.exitCode).toBe(6);
    expect(mapped.message).toBe(message);
    expect(mapped.hint).toBeTruthy();
  });

  it('a TLS failure is not retryable: the same certificate is refused again', () => {
    expect(networkError(coded('DEPTH_ZERO_SELF_SIGNED_CERT'), url, 'connect').retryable).toBe(false);
    expect(networkError(coded('ECONNRESET'), url, 'connect').retryable).toBe(true);
    expect(networkError(coded('ECONNREFUSED'), url, 'connect').retryable).toBe(true);
  });

  it.each([
    [coded('ECONNREFUSED'), true],
    [coded('ENOTFOUND'), true],
    [coded('UND_ERR_SOCKET', coded('CERT_HAS_EXPIRED')), true],
    [coded('EHOSTUNREACH'), true],
    [coded('ECONNRESET'), false],
    [coded('UND_ERR_HEADERS_TIMEOUT'), false],
    [new Error('aborted'), false],
  ] as const)('%s never reached a server: %s', (error, expected) => {
    expect(neverSent(error)).toBe(expected);
  });

  it('finds codes on causes and aggregates', () => {
    expect(errorCode({ cause: { errors: [{}, { code: 'ENETUNREACH' }] } })).toBe('ENETUNREACH');
    expect(errorCode('nope')).toBeUndefined();
  });
});

describe('proxy', () => {
  let proxy: ForwardingProxy | undefined;
  let target: FaultServer | undefined;
  afterEach(async () => {
    await proxy?.close();
    await target?.close();
    proxy = target = undefined;
  });

  it('goes through HTTP_PROXY for a remote host, never for a loopback one, and not for NO_PROXY hosts', async () => {
    target = await startFaultServer();
    target.expect('/api/pulse', { body: { index: 3 } });
    proxy = await startProxy();
    const client = (baseUrl: string | URL, env: NodeJS.ProcessEnv) => createClient({ baseUrl, timeout: 5, retries: 0, env });
    const HTTP_PROXY = proxy.url;
    expect((await client(target.baseUrl, { HTTP_PROXY }).pulse()).body).toEqual({ index: 3 });
    expect(proxy.forwarded).toEqual([]);
    // The proxy cannot reach the made-up host: it answers the CONNECT with 502.
    const remote = 'https://api.rep.test/api';
    await expect(client(remote, { HTTP_PROXY }).pulse()).rejects.toThrow(/^the proxy 127\.0\.0\.1:\d+ from HTTP_PROXY answered 502 Bad Gateway/);
    expect(proxy.forwarded).toEqual([{ method: 'CONNECT', target: 'api.rep.test:443' }]);
    await expect(client(remote, { HTTP_PROXY, NO_PROXY: 'rep.test' }).pulse()).rejects.toThrow('cannot resolve api.rep.test');
    expect(proxy.forwarded).toHaveLength(1);
  });
});
