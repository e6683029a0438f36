// Error-cause mapping of src/api/network-errors.ts for causes a loopback server cannot produce
// (DNS, TLS), and proxy support through a real CONNECT proxy.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/api/client.js';
import { errorCode, networkError } from '../src/api/network-errors.js';
import { testIO } from '../src/io.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

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

  it('finds codes on causes and aggregates', () => {
    expect(errorCode({ cause: { errors: [{}, { code: 'ENETUNREACH' }] } })).toBe('ENETUNREACH');
    expect(errorCode('nope')).toBeUndefined();
  });
});

describe('proxy', () => {
  let proxy: Server | undefined;
  let target: FaultServer | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    await target?.close();
  });

  it('goes through HTTP_PROXY when it is set, and not for NO_PROXY hosts', async () => {
    target = await startFaultServer();
    target.expect('/api/pulse', { body: { index: 3 } }, { body: { index: 4 } });
    const tunnels: string[] = [];
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host = '', port = ''] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
      }
    });
    await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', () => resolve()));
    const address = proxy.address();
    if (!address || typeof address === 'string') throw new Error('no proxy port');
    const proxied = (env: NodeJS.ProcessEnv) => createClient({
      baseUrl: (target as FaultServer).baseUrl,
      timeoutMs: 5000,
      retries: 0,
      wait: false,
      maxWaitMs: 0,
      now: Date.now,
      debug: () => {},
      warn: () => {},
      io: testIO(),
      env,
    });
    const HTTP_PROXY = `http://127.0.0.1:${address.port}`;
    expect((await proxied({ HTTP_PROXY }).get('pulse')).body).toEqual({ index: 3 });
    expect(tunnels).toEqual([`127.0.0.1:${target.port}`]);
    expect((await proxied({ HTTP_PROXY, NO_PROXY: '127.0.0.1' }).get('pulse')).body).toEqual({ index: 4 });
    expect(tunnels).toHaveLength(1);
  });
});
