// The key goes only to the configured origin: same-origin redirects are followed (at most 5), a
// redirect to another origin is not, and the user is told where it pointed. Two real servers.
import { describe, expect, it } from 'vitest';
import type { FaultServer } from './helpers/fault-server.js';
import { useRep } from './helpers/cli.js';

const KEY = 'redirect-test-key-0123456789';
const session = useRep();
// The second server must not have been asked anything: close() fails on an unexpected request.
const server = session.server;

function rep(api: FaultServer, args: string[]) {
  return session.rep(args, { env: { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: KEY } });
}

const redirect = (location: string, status = 302) => ({ status, headers: { location } });
const OK = { body: { index: 61.5 } };

describe('same-origin redirects', () => {
  it('are followed, with the key, up to 5 hops', async () => {
    const api = await server();
    for (let hop = 0; hop < 5; hop++) api.expect(hop === 0 ? '/api/pulse' : `/api/hop${hop}`, redirect(`/api/hop${hop + 1}`, [301, 302, 303, 307, 308][hop]));
    api.expect('/api/hop5', OK);
    const result = await rep(api, ['pulse']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(OK.body);
    expect(api.requests).toHaveLength(6);
    for (const request of api.requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('more than 5 hops: exit 1, the sixth redirect is not followed', async () => {
    const api = await server();
    for (let hop = 0; hop < 6; hop++) api.expect(hop === 0 ? '/api/pulse' : `/api/hop${hop}`, redirect(`/api/hop${hop + 1}`));
    const result = await rep(api, ['pulse']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rep: .*redirected more than 5 times/m);
    expect(api.count('/api/hop6')).toBe(0);
    expect(result.stdout).toBe('');
  });
});

describe('a redirect to another origin', () => {
  it('is not followed: the other server sees no request at all, exit 1, the message names the target', async () => {
    const api = await server();
    const other = await server();
    api.expect('/api/audit', redirect(`${other.origin}/api/audit?q=x`));
    const result = await rep(api, ['audit', 'x']);
    expect(result.code).toBe(1);
    expect(other.requests).toEqual([]);
    expect(result.stderr).toContain(`rep: the server redirected to ${other.origin}/api/audit`);
    expect(result.stderr).toMatch(/^hint: .*configured origin/m);
    expect(result.stderr).not.toContain(KEY);
    expect(result.stdout).toBe('');
  });

  it('is refused after a same-origin hop too', async () => {
    const api = await server();
    const other = await server();
    api.expect('/api/pulse', redirect('/api/moved', 307)).expect('/api/moved', redirect(`${other.origin}/api/pulse`, 308));
    const result = await rep(api, ['pulse']);
    expect(result.code).toBe(1);
    expect(other.requests).toEqual([]);
    expect(result.stderr).toContain(other.origin);
  });

  it('counts another port, and a protocol-relative Location, as another origin', async () => {
    const api = await server();
    const other = await server();
    api.expect('/api/pulse', redirect(`//127.0.0.1:${other.port}/api/pulse`));
    const result = await rep(api, ['pulse']);
    expect(result.code).toBe(1);
    expect(other.requests).toEqual([]);
    expect(result.stderr).toContain(`127.0.0.1:${other.port}`);
  });

  it('counts a change of scheme on the same host as another origin', async () => {
    const api = await server();
    api.expect('/api/pulse', redirect(`https://127.0.0.1:${api.port}/api/pulse`));
    const result = await rep(api, ['pulse']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`https://127.0.0.1:${api.port}/api/pulse`);
    expect(api.requests).toHaveLength(1);
  });
});
