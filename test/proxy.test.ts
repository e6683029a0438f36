// HTTPS_PROXY / HTTP_PROXY / NO_PROXY: the built CLI reaches the API through a real forwarding proxy,
// CONNECT-tunnelled for https, and NO_PROXY sends a host around it.
import { get } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
import { makeTempHome, runCli, type TempHome } from './helpers/cli.js';
import { startProxy, type ForwardingProxy } from './helpers/proxy.js';
import { hasOpenssl, startTlsServer, type TlsServer } from './helpers/tls.js';

let home: TempHome;
let proxy: ForwardingProxy;
let sandbox: RunningSandbox;
let tlsServer: TlsServer | undefined;

beforeEach(async () => {
  home = makeTempHome();
  [proxy, sandbox] = await Promise.all([startProxy(), startSandbox({ port: 0 })]);
});
afterEach(async () => {
  await tlsServer?.close();
  tlsServer = undefined;
  await Promise.all([proxy.close(), sandbox.close()]);
  home.cleanup();
});

const sandboxHost = () => new URL(sandbox.url).host;
const pulse = (env: Record<string, string>) =>
  runCli(['--retries', '0', '--json', 'pulse'], { home, env: { REP_API_KEY: sandbox.key, REP_BASE_URL: sandbox.url, ...env } });

describe('proxy variables', () => {
  it('the proxy helper forwards an absolute-form GET', async () => {
    const { port } = new URL(proxy.url);
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: `${sandbox.url}/pulse`, headers: { authorization: `Bearer ${sandbox.key}` } }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve(text));
      }).on('error', reject);
    });
    expect(JSON.parse(body)).toHaveProperty('index');
    expect(proxy.forwarded).toEqual([{ method: 'GET', target: sandboxHost(), url: `${sandbox.url}/pulse` }]);
  });

  it('HTTP_PROXY: an http:// loopback base URL goes through the proxy', async () => {
    const direct = await pulse({});
    const viaProxy = await pulse({ HTTP_PROXY: proxy.url });
    expect([viaProxy.code, viaProxy.stderr]).toEqual([0, '']);
    expect(JSON.parse(viaProxy.stdout)).toEqual(JSON.parse(direct.stdout));
    // undici tunnels plain http through CONNECT as well; either way the proxy carried the request.
    expect(proxy.forwarded.map((entry) => entry.target)).toEqual([sandboxHost()]);
  });

  it('lower-case http_proxy works too', async () => {
    const result = await pulse({ http_proxy: proxy.url });
    expect(result.code).toBe(0);
    expect(proxy.forwarded.map((entry) => entry.target)).toEqual([sandboxHost()]);
  });

  it.each(['127.0.0.1', `127.0.0.1:${'PORT'}`, 'example.com,127.0.0.1', '*'])('NO_PROXY=%s sends the request around the proxy', async (pattern) => {
    const noProxy = pattern.replace('PORT', new URL(sandbox.url).port);
    const result = await pulse({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(proxy.forwarded).toEqual([]);
  });

  it('NO_PROXY naming another host leaves this one proxied', async () => {
    const result = await pulse({ HTTP_PROXY: proxy.url, NO_PROXY: 'example.com,127.0.0.1:1' });
    expect(result.code).toBe(0);
    expect(proxy.forwarded.map((entry) => entry.target)).toEqual([sandboxHost()]);
  });

  it('a proxy that is down is a network error (exit 6): the variable is really used', async () => {
    const gone = proxy.url;
    await proxy.close();
    const result = await pulse({ HTTP_PROXY: gone });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^rep: /);
  });

  it('HTTPS_PROXY: an https:// base URL is tunnelled with CONNECT (the target here speaks no TLS, so it fails after)', async () => {
    const target = `127.0.0.1:${new URL(sandbox.url).port}`;
    const result = await runCli(['--retries', '0', '--json', 'pulse'], {
      home,
      env: { REP_API_KEY: 'k', REP_BASE_URL: `https://${target}/api`, HTTPS_PROXY: proxy.url },
    });
    expect(proxy.forwarded).toEqual([{ method: 'CONNECT', target }]);
    expect(result.code).toBe(6);
  });

  it.skipIf(!hasOpenssl())('HTTPS_PROXY: a whole https answer through the CONNECT tunnel (self-signed cert, NODE_EXTRA_CA_CERTS)', async () => {
    const server = await startTlsServer(home.dir, (req, res) => {
      const ok = req.url === '/api/pulse' && req.headers.authorization === 'Bearer tls-key';
      res.writeHead(ok ? 200 : 599, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { index: 71.5 } : { unexpected: req.url }));
    });
    tlsServer = server;
    const result = await runCli(['--retries', '0', '--json', 'pulse'], {
      home,
      env: { REP_API_KEY: 'tls-key', REP_BASE_URL: `https://${server.host}/api`, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: server.certFile },
    });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout)).toEqual({ index: 71.5 });
    expect(proxy.forwarded).toEqual([{ method: 'CONNECT', target: server.host }]);
  });
});
