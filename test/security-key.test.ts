// The key never shows: not on stdout, stderr, in error messages or `--debug` output, and it never has
// to go on a command line. Plain http:// is refused for any host but loopback, before any request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/api/client.js';
import { redactBody } from '../src/api/request.js';
import { testIO } from '../src/io.js';
import { createBatchWriter } from '../src/output/batch.js';
import type { Endpoint } from '../src/views/index.js';
import { writeResult } from '../src/output/render.js';
import { useRep } from './helpers/cli.js';
import { startConnectionCounter, startRecordingServer, type ConnectionCounter } from './helpers/servers.js';
import { hasOpenssl, startTlsServer } from './helpers/tls.js';

const KEY = 'rk_live_S3cr3tKeyValue0042';
const { home, rep, spawn, track } = useRep();
let proxy: ConnectionCounter | undefined;

/** Everything the user could see of a run. */
const shown = (result: { stdout: string; stderr: string }) => result.stdout + result.stderr;

describe('the key is never shown', () => {
  it('--debug shows the request and a masked Authorization, never the key', async () => {
    const server = track(await startRecordingServer());
    const result = await rep(['--debug', 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(result.stderr).toContain('authorization: Bearer ****0042');
    expect(shown(result)).not.toContain(KEY);
  });

  it.each([401, 403, 500, 418])('a %i body that echoes the key is redacted in the message and under --debug', async (status) => {
    const server = track(await startRecordingServer({ status, body: { error: { message: `key ${KEY} is not welcome` } } }));
    for (const extra of [[], ['--debug']]) {
      const result = await rep([...extra, 'pulse'], { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY } });
      expect(result.code).toBe(status === 401 || status === 403 ? 4 : 1);
      expect(shown(result)).not.toContain(KEY);
    }
  });

  it('login --debug neither echoes the key nor prints it when it stores it', async () => {
    const server = track(await startRecordingServer());
    const result = await rep(['--debug', 'login', '--base-url', server.baseUrl.href], { input: `${KEY}\n` });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(shown(result)).not.toContain(KEY);
    expect(result.stderr).toContain('****0042');
  });

  it('status shows at most the last 4 characters, as table and as JSON', async () => {
    for (const format of ['table', 'json']) {
      const result = await rep(['--format', format, 'status'], { env: { REP_API_KEY: KEY } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('****0042');
      expect(shown(result)).not.toContain(KEY.slice(0, -4));
    }
  });

  it('status shows nothing of a short key', async () => {
    const result = await rep(['--json', 'status'], { env: { REP_API_KEY: 'xyz789' } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).key).toBe('****');
    expect(shown(result)).not.toMatch(/xyz|789/);
  });
});

describe('a 200 body that echoes the key (in process, client to renderer)', () => {
  // The key as a value, inside text, as a field name, in an array, spelt with JSON escapes, and deep down.
  const ECHO =
    `{"name":"Echo Co","score":50,"you":"${KEY}","note":"sent with key ${KEY}.","${KEY}":{"k":["${KEY}"]},` +
    `"escaped":"\\u0072k_live_S3cr3tKeyValue0042","sources":[{"source":"${KEY}","rating":4}],` +
    `"deep":${'['.repeat(5000)}"${KEY}"${']'.repeat(5000)}}`;

  async function answer(kind: Endpoint): Promise<unknown> {
    const server = track(await startRecordingServer({ headers: { 'content-type': 'application/json' }, body: ECHO }));
    const client = createClient({ baseUrl: server.baseUrl, apiKey: KEY, timeout: 5, retries: 0, env: {} });
    return (await (kind === 'pulse' ? client.pulse() : client[kind]('echo'))).body;
  }

  it.each(['audit', 'search', 'pulse'] as const)('%s: every format shows the mask where the key was, and json stays JSON', async (kind) => {
    const body = await answer(kind);
    for (const format of ['json', 'ndjson', 'csv', 'table'] as const) {
      const io = testIO({ columns: 200 });
      await writeResult(io, kind, body, format);
      expect(io.stdoutText()).not.toContain(KEY);
      expect(io.stdoutText()).not.toContain('S3cr3t');
      expect(io.stdoutText()).toContain('****0042');
    }
    const io = testIO();
    await writeResult(io, kind, body, 'json');
    const parsed = JSON.parse(io.stdoutText()) as Record<string, unknown>;
    expect(parsed).toMatchObject({ you: '****0042', note: 'sent with key ****0042.', escaped: '****0042', '****0042': { k: ['****0042'] } });
  });

  it('a field named __proto__ stays a field (no prototype is set), masked like any other', () => {
    const text = `{"__proto__":"${KEY}","${KEY}":{"__proto__":{"x":"${KEY}"}}}`;
    const body = redactBody(JSON.parse(text), text, KEY) as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(JSON.stringify(body)).toBe('{"__proto__":"****0042","****0042":{"__proto__":{"x":"****0042"}}}');
  });

  it('a batch record shows the mask too', async () => {
    const body = await answer('audit');
    for (const format of ['json', 'ndjson', 'csv', 'table'] as const) {
      const io = testIO({ columns: 200 });
      const writer = createBatchWriter(io, format);
      writer.write({ query: 'echo', result: body });
      await writer.end();
      expect(io.stdoutText()).not.toContain(KEY);
    }
  });
});

describe('no flag takes the key (it would show in `ps`)', () => {
  it.each([
    ['--api-key', 'x', 'pulse'],
    ['--key', 'x', 'pulse'],
    ['pulse', '--token', 'x'],
  ])('`rep %s %s %s` is an unknown option, exit 2', async (...args) => {
    const result = await rep(args, { env: { REP_BASE_URL: 'https://api.example.com/api' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: unknown option '--(api-key|key|token)'/m);
  });

  it('`rep login KEY` is refused (exit 2) without storing or echoing it', async () => {
    const server = track(await startRecordingServer());
    const result = await rep(['login', '--base-url', server.baseUrl.href, KEY], { input: 'other-key-1234567\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain(KEY);
    expect(server.requests).toEqual([]);
    expect((await rep(['--json', 'status'])).code).toBe(4);
  });
});

describe('credentials in a base URL are never echoed', () => {
  const url = 'http://user:s3cretpw@127.0.0.1:99999/b/api';

  it('from --base-url, REP_BASE_URL or the config file (rep status): exit 2, no user name or password', async () => {
    const fromFlag = await rep(['--base-url', url, 'pulse'], { env: { REP_API_KEY: KEY } });
    const fromEnv = await rep(['--debug', 'pulse'], { env: { REP_API_KEY: KEY, REP_BASE_URL: url } });
    mkdirSync(home().configDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(home().configDir, 'config.json'), JSON.stringify({ baseUrl: url }), { mode: 0o600 });
    const fromConfig = await rep(['status'], { env: { REP_API_KEY: KEY } });
    for (const [result, source] of [
      [fromFlag, '--base-url'],
      [fromEnv, 'REP_BASE_URL'],
      [fromConfig, 'the config file'],
    ] as const) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^rep: invalid base URL from ${source}: `, 'm'));
      expect(shown(result)).not.toMatch(/s3cretpw|user:/);
    }
  });
});

describe('plain http:// only for loopback', () => {
  // Were a request sent to the http:// URL, it would go through this proxy, which counts connections.
  async function proxyEnv(): Promise<Record<string, string>> {
    proxy = track(await startConnectionCounter());
    return { HTTP_PROXY: proxy.origin, http_proxy: proxy.origin, REP_API_KEY: KEY };
  }

  it('(the trap works: a request to a remote host does reach the proxy)', async () => {
    const env = await proxyEnv();
    const result = await rep(['pulse'], { env: { ...env, REP_BASE_URL: 'https://api.example.com/api' } });
    expect(result.code).toBe(6);
    expect(proxy?.connections()).toBeGreaterThan(0);
  });

  it.each(['http://api.example.com/api', 'http://10.0.0.8:8080/api', 'http://localhost./api', 'http://rep.localhost/api', 'http://[::ffff:a00:1]/api'])(
    '%s from --base-url, REP_BASE_URL or the config file: usage error, exit 2, nothing sent',
    async (url) => {
      const env = await proxyEnv();
      const { configDir } = home();
      const fromFlag = await rep(['--base-url', url, 'pulse'], { env });
      const fromEnv = await rep(['pulse'], { env: { ...env, REP_BASE_URL: url } });
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(configDir, 'config.json'), JSON.stringify({ baseUrl: url }), { mode: 0o600 });
      const fromConfig = await rep(['pulse'], { env });
      for (const [result, source] of [
        [fromFlag, '--base-url'],
        [fromEnv, 'REP_BASE_URL'],
        [fromConfig, 'the config file'],
      ] as const) {
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/^rep: refusing the plain http:\/\/ base URL/m);
        expect(result.stderr).toContain(source);
        expect(result.stderr).toMatch(/^hint: use https:\/\//m);
      }
      expect(proxy?.connections()).toBe(0);
    },
  );

  it('login refuses it too, before reading the key or sending anything', async () => {
    const env = await proxyEnv();
    const result = await rep(['login', '--base-url', 'http://api.example.com/api'], { env, input: `${KEY}\n` });
    expect(result.code).toBe(2);
    expect(proxy?.connections()).toBe(0);
  });

  it('https:// is accepted for any host (no request is needed to see it)', async () => {
    const result = await rep(['--json', 'status'], { env: { REP_BASE_URL: 'https://api.example.com/v1/api/', REP_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ base_url: 'https://api.example.com/v1/api', base_url_source: 'env' });
  });
});

describe('certificate checks turned off', () => {
  // The built CLI: Node's TLS reads NODE_TLS_REJECT_UNAUTHORIZED from the process's own environment.
  it.skipIf(!hasOpenssl())('NODE_TLS_REJECT_UNAUTHORIZED=0: rep says so in its own words before sending the key, even under --quiet', async () => {
    const tls = track(await startTlsServer(home().dir, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"index":70}')));
    const env = { REP_BASE_URL: `https://${tls.host}/api`, REP_API_KEY: KEY, NODE_TLS_REJECT_UNAUTHORIZED: '0', REP_MAX_AGE: '0' };
    for (const quiet of [[], ['--quiet']]) {
      const result = await spawn([...quiet, 'pulse'], { env });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        'rep: warning: TLS certificate verification is off (NODE_TLS_REJECT_UNAUTHORIZED=0): the API key goes to any server that answers as 127.0.0.1\n',
      );
      expect(shown(result)).not.toContain(KEY);
    }
    const checked = await spawn(['pulse'], { env: { ...env, NODE_TLS_REJECT_UNAUTHORIZED: undefined } });
    expect(checked.code).toBe(6); // the same self-signed server, with checks on
    expect(checked.stderr).not.toMatch(/verification is off/);
  });
});
