// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, in-process through main() with the variables in its env: a
// real forwarding proxy carries requests to non-loopback hosts (a made-up name it maps to a loopback
// server), loopback hosts never go through it, and its failures are told as the proxy's.
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../src/sandbox/server.js';
import { useRep } from './helpers/cli.js';
import { closedPort } from './helpers/fault-server.js';
import { startProxy, type ProxyOptions } from './helpers/proxy.js';
import { hasOpenssl, startTlsServer } from './helpers/tls.js';

const { rep, spawn, track, home } = useRep();
/** A name that is not loopback: only the test proxy knows where it is. */
const API_HOST = 'api.rep.test';
const remote = (port: number | string = 443) => `https://${API_HOST}${port === 443 ? '' : `:${port}`}/api`;
const proxyWith = async (options: ProxyOptions = {}) => track(await startProxy(options));
const sandbox = async () => track(await startSandbox({ port: 0 }));
const pulse = (env: Record<string, string>, flags: string[] = []) => rep([...flags, '--json', 'pulse'], { env: { REP_API_KEY: 'key-0123456789', ...env } });

describe('proxy variables', () => {
  it('the proxy helper forwards an absolute-form GET', async () => {
    const [proxy, server] = await Promise.all([proxyWith(), sandbox()]);
    const { port } = new URL(proxy.url);
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: `${server.url}/pulse`, headers: { authorization: `Bearer ${server.key}` } }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve(text));
      }).on('error', reject);
    });
    expect(JSON.parse(body)).toHaveProperty('index');
    expect(proxy.forwarded).toEqual([{ method: 'GET', target: new URL(server.url).host, url: `${server.url}/pulse` }]);
  });

  it('--sandbox is never proxied: a proxy that does not even resolve changes nothing', async () => {
    const result = await rep(['--sandbox', '--json', 'pulse'], {
      env: { http_proxy: 'http://proxy.corp.example:3128', HTTPS_PROXY: 'http://proxy.corp.example:3128' },
    });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout)).toHaveProperty('index');
  });

  it.each(['127.0.0.1', 'localhost'])('a loopback http:// base URL (%s, an SSH tunnel) never goes through HTTP_PROXY, whatever NO_PROXY says', async (host) => {
    const [proxy, server] = await Promise.all([proxyWith(), sandbox()]);
    const base = `http://${host}:${new URL(server.url).port}/api`;
    for (const env of [{ HTTP_PROXY: proxy.url }, { http_proxy: proxy.url, NO_PROXY: 'example.com' }] as Array<Record<string, string>>) {
      const result = await pulse({ ...env, REP_API_KEY: server.key, REP_BASE_URL: base });
      expect([result.code, result.stderr]).toEqual([0, '']);
    }
    // The proxy would have read the Authorization header of a plain-http request it carried.
    expect(proxy.forwarded).toEqual([]);
  });

  it('HTTPS_PROXY: a remote https:// base URL is tunnelled with CONNECT, and --debug names the proxy without its credentials', async () => {
    const proxy = await proxyWith();
    const withUser = proxy.url.replace('//', '//alice:s3cret-proxy-pass@');
    const result = await pulse({ REP_BASE_URL: remote(), HTTPS_PROXY: withUser }, ['--debug']);
    expect(proxy.forwarded).toEqual([{ method: 'CONNECT', target: `${API_HOST}:443` }]);
    expect(result.code).toBe(6); // nothing answers api.rep.test:443 behind the proxy
    expect(result.stderr).toContain(`debug: > GET ${remote()}/pulse via the proxy http://****@${new URL(proxy.url).host} (HTTPS_PROXY)\n`);
    expect(result.stderr).not.toMatch(/alice|s3cret/);
  });

  it('lower-case https_proxy wins over HTTPS_PROXY, and HTTP_PROXY serves https when HTTPS_PROXY is unset', async () => {
    const proxy = await proxyWith();
    await pulse({ REP_BASE_URL: remote(), https_proxy: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:9' });
    await pulse({ REP_BASE_URL: remote(), HTTP_PROXY: proxy.url });
    expect(proxy.forwarded.map((entry) => entry.target)).toEqual([`${API_HOST}:443`, `${API_HOST}:443`]);
  });

  it.each([API_HOST, `${API_HOST}:443`, 'example.com,.rep.test', '*'])('NO_PROXY=%s sends a remote host around the proxy', async (noProxy) => {
    const proxy = await proxyWith();
    const result = await pulse({ REP_BASE_URL: remote(), HTTPS_PROXY: proxy.url, NO_PROXY: noProxy });
    expect(proxy.forwarded).toEqual([]);
    // Straight to DNS, which does not know the made-up name.
    expect([result.code, result.stderr.split('\n')[0]]).toEqual([6, `rep: cannot resolve ${API_HOST}`]);
  });

  it('NO_PROXY naming another host or port leaves this one proxied', async () => {
    const proxy = await proxyWith();
    await pulse({ REP_BASE_URL: remote(), HTTPS_PROXY: proxy.url, NO_PROXY: `example.com,${API_HOST}:8443` });
    expect(proxy.forwarded.map((entry) => entry.target)).toEqual([`${API_HOST}:443`]);
  });
});

describe('proxy failures name the proxy', () => {
  it('a proxy that refuses connections: exit 6, the proxy and its variable, not the API host', async () => {
    const port = await closedPort();
    const result = await pulse({ REP_BASE_URL: remote(), HTTPS_PROXY: `http://127.0.0.1:${port}` });
    expect(result).toMatchObject({ code: 6, stdout: '' });
    expect(result.stderr).toBe(
      `rep: cannot connect to the proxy 127.0.0.1:${port} from HTTPS_PROXY (connection refused)\n` +
        `hint: is the proxy running? check HTTPS_PROXY, or add ${API_HOST} to NO_PROXY to go around it\n`,
    );
  });

  it.each([
    [403, '403 Forbidden', `hint: the proxy will not reach ${API_HOST}: check HTTPS_PROXY, or add ${API_HOST} to NO_PROXY to go around it`],
    [502, '502 Bad Gateway', `hint: the proxy will not reach ${API_HOST}: check HTTPS_PROXY, or add ${API_HOST} to NO_PROXY to go around it`],
    [407, '407 Proxy Authentication Required', 'hint: the proxy wants credentials: put them in HTTPS_PROXY (http://USER:PASSWORD@HOST:PORT)'],
  ])('a proxy that answers CONNECT with %i: exit 6, what the proxy said', async (status, said, hint) => {
    const proxy = await proxyWith({ connectStatus: status });
    const result = await pulse({ REP_BASE_URL: remote(), HTTPS_PROXY: proxy.url });
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(`rep: the proxy ${new URL(proxy.url).host} from HTTPS_PROXY answered ${said} to the tunnel to ${API_HOST}:443\n${hint}\n`);
  });

  it('a proxy host that does not resolve is named as the proxy', async () => {
    const result = await pulse({ REP_BASE_URL: remote(), https_proxy: 'http://proxy.corp.invalid:3128' });
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(
      'rep: cannot resolve the proxy host proxy.corp.invalid from https_proxy\nhint: check the host name in https_proxy, and your network or DNS\n',
    );
  });

  it.each([
    ['HTTPS_PROXY', 'http://[oops', '"http://[oops"'],
    ['HTTPS_PROXY', 'http://bob:pw@[oops', '"http://…@[oops"'],
    ['https_proxy', 'ftp://proxy.example:21', 'ftp: is not http, https or socks5'],
  ])('a malformed proxy URL in %s: exit 2, the variable named, no credentials', async (variable, value, said) => {
    const result = await pulse({ REP_BASE_URL: remote(), [variable]: value });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`rep: the proxy URL in ${variable} is not valid: ${said}`);
    expect(result.stderr).toContain(`hint: set ${variable} to a URL such as http://proxy.example.com:3128, or unset it\n`);
    expect(result.stderr).not.toContain('pw');
  });
});

describe('through the proxy, whole (spawned: NODE_EXTRA_CA_CERTS is read at start-up)', () => {
  it.skipIf(!hasOpenssl())('HTTPS_PROXY: a whole https answer through the CONNECT tunnel (self-signed cert)', async () => {
    const server = track(
      await startTlsServer(
        home().dir,
        (req, res) => {
          const ok = req.url === '/api/pulse' && req.headers.authorization === 'Bearer tls-key';
          res.writeHead(ok ? 200 : 599, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { index: 71.5 } : { unexpected: req.url }));
        },
        [API_HOST],
      ),
    );
    const port = new URL(`https://${server.host}`).port;
    const proxy = await proxyWith({ hosts: { [API_HOST]: '127.0.0.1' } });
    const result = await spawn(['--json', 'pulse'], {
      env: { REP_API_KEY: 'tls-key', REP_BASE_URL: remote(port), HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: server.certFile },
    });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout)).toEqual({ index: 71.5 });
    expect(proxy.forwarded).toEqual([{ method: 'CONNECT', target: `${API_HOST}:${port}` }]);
  });

  it.skipIf(!hasOpenssl())('a request through the proxy is counted when it is sent: SIGKILL while it waits loses no count', async () => {
    let arrived: () => void = () => {};
    const request = new Promise<void>((resolve) => (arrived = resolve));
    // Holds the request (never answers) until the test has killed rep.
    const server = track(await startTlsServer(home().dir, () => arrived(), [API_HOST]));
    const port = new URL(`https://${server.host}`).port;
    const proxy = await proxyWith({ hosts: { [API_HOST]: '127.0.0.1' } });
    const env = { REP_API_KEY: 'tls-key', REP_BASE_URL: remote(port), HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: server.certFile };
    const kill = new AbortController();
    void request.then(() => kill.abort());
    const result = await spawn(['--retries', '0', '--json', 'pulse'], { env, signal: kill.signal, interruptWith: 'SIGKILL' });
    expect(result.signal).toBe('SIGKILL');
    const status = await rep(['--json', 'status'], { env });
    expect((JSON.parse(status.stdout) as { requests_last_hour: number }).requests_last_hour).toBe(1);
  });
});
