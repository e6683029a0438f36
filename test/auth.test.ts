// Where the key and base URL come from, end to end: status, requests with and without a key, the
// environment winning over the file, logout, broken config files and loose permissions.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';
import { startRecordingServer } from './helpers/servers.js';

const STORED_KEY = 'stored-key-aaaa1111';
const ENV_KEY = 'env-key-bbbbbb2222';
const posix = process.platform !== 'win32';
const { home, rep, track } = useRep();

function configDir(): string {
  return home().configDir;
}

function configFile(): string {
  return join(configDir(), 'config.json');
}

function writeConfig(text: string, mode = 0o600): void {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), text, { mode });
  chmodSync(configFile(), mode);
}

describe('rep status', () => {
  it('shows the key from the config file, masked, with its source; JSON when piped', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY, baseUrl: 'https://api.example.com/api' }));
    const result = await rep(['status']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      base_url: 'https://api.example.com/api',
      base_url_source: 'config',
      key: '****1111',
      key_source: 'config',
      config_path: configFile(),
      requests_last_hour: 0,
    });
  });

  it('REP_API_KEY wins over the stored key, and status says so', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY }));
    const result = await rep(['--format', 'table', 'status'], { env: { REP_API_KEY: ENV_KEY } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/API key\s+\*\*\*\*2222 \(from environment\)/);
    expect(result.stdout).toContain(configFile());
  });

  it('an empty REP_API_KEY is ignored', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY }));
    const result = await rep(['--json', 'status'], { env: { REP_API_KEY: '' } });
    expect(JSON.parse(result.stdout)).toMatchObject({ key_source: 'config', key: '****1111' });
  });

  it('exits 4 when no key is set, after showing the rest, with a hint', async () => {
    const result = await rep(['status'], { env: { REP_BASE_URL: 'https://api.example.com/api' } });
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ key: null, key_source: 'none', base_url_source: 'env' });
    expect(result.stderr).toMatch(/^rep: no API key is set\nhint: .*rep login/m);
  });
});

describe('requests and the key', () => {
  it('the environment key is sent, not the stored one', async () => {
    const server = track(await startRecordingServer());
    writeConfig(JSON.stringify({ apiKey: STORED_KEY, baseUrl: server.baseUrl.href }));
    const result = await rep(['pulse'], { env: { REP_API_KEY: ENV_KEY } });
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${ENV_KEY}`]);
  });

  it('without a base URL: exit 4 with a hint, nothing sent', async () => {
    const result = await rep(['audit', 'x'], { env: { REP_API_KEY: ENV_KEY } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^rep: no base URL is set\nhint: .*rep login --base-url/m);
    expect(result.stdout).toBe('');
  });

  it('without a key: one warning on stderr, the request goes without Authorization', async () => {
    const server = track(await startRecordingServer({ body: { company: { name: 'x' }, score: 1 } }));
    const result = await rep(['audit', 'x'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(result.stderr.match(/^rep: warning: no API key is set/gm)).toHaveLength(1);
  });

  it('without a key, an answer from the cache sends nothing and so warns of nothing sent', async () => {
    const server = track(await startRecordingServer({ body: { company: { name: 'x' }, score: 1 } }));
    expect((await rep(['audit', 'x'], { env: { REP_BASE_URL: server.baseUrl.href } })).code).toBe(0);
    const cached = await rep(['audit', 'x'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(cached.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(cached.stderr).toMatch(/^rep: cached answer from .* \(--max-age 0 to refresh\)\n$/);
  });

  it.each([401, 403])('without a key, a %i exits 4 with a hint to `rep login`', async (status) => {
    const server = track(await startRecordingServer({ status, body: { error: 'unauthorized' } }));
    const result = await rep(['audit', 'x'], { env: { REP_BASE_URL: server.baseUrl.href } });
    expect(result.code).toBe(4);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(result.stderr).not.toMatch(/warning/); // the hint below says what to do: one error, one hint
    expect(result.stderr).toMatch(/^hint: .*rep login/m);
    expect(result.stdout).toBe('');
  });
});

describe('rep logout', () => {
  it('removes the key and only the key; the file stays private', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY, baseUrl: 'https://api.example.com/api', theme: 'dark', nested: { a: [1] } }));
    const result = await rep(['logout']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(configFile());
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ baseUrl: 'https://api.example.com/api', theme: 'dark', nested: { a: [1] } });
    if (posix) expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect((await rep(['--json', 'status'])).code).toBe(4);
  });

  it('with nothing stored it creates no file', async () => {
    const result = await rep(['logout']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/No API key was stored/);
    expect(existsSync(configFile())).toBe(false);
  });

  it('warns that REP_API_KEY is still set', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY }));
    const result = await rep(['logout'], { env: { REP_API_KEY: ENV_KEY } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^rep: warning: REP_API_KEY is still set/m);
    expect(result.stderr).not.toContain(ENV_KEY);
  });
});

describe('a broken config file', () => {
  const broken = ['{"apiKey": "half', '{"apiKey": 123}', '["not", "an", "object"]'];

  it.each(broken)('%j: read commands report it by path (exit 1) and leave it as it was', async (text) => {
    writeConfig(text);
    const before = statSync(configFile()).mtimeMs;
    for (const args of [['status'], ['pulse'], ['audit', 'x'], ['search', 'x']]) {
      const result = await rep(args, { env: { REP_BASE_URL: 'https://api.example.com/api', REP_API_KEY: ENV_KEY } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^rep: the config file ${configFile().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} `, 'm'));
      expect(result.stderr).toMatch(/^hint: fix the file by hand, or delete it/m);
      expect(result.stdout).toBe('');
    }
    expect(readFileSync(configFile(), 'utf8')).toBe(text);
    expect(statSync(configFile()).mtimeMs).toBe(before);
  });

  it('login and logout refuse to overwrite it, and send nothing', async () => {
    const server = track(await startRecordingServer());
    writeConfig(broken[0] ?? '');
    const login = await rep(['login', '--base-url', server.baseUrl.href], { input: 'new-key-123456789\n' });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(configFile());
    const logout = await rep(['logout']);
    expect(logout.code).toBe(1);
    expect(readFileSync(configFile(), 'utf8')).toBe(broken[0]);
    expect(server.requests).toEqual([]);
  });
});

describe.runIf(posix)('loose permissions', () => {
  it('every command warns once on stderr, and changes nothing', async () => {
    const server = track(await startRecordingServer());
    writeConfig(JSON.stringify({ apiKey: STORED_KEY, baseUrl: server.baseUrl.href }), 0o644);
    chmodSync(configDir(), 0o755);
    for (const args of [['pulse'], ['status']]) {
      const result = await rep(args);
      expect(result.code).toBe(0);
      expect(result.stderr.match(/^rep: warning: the config file .* is open to other users \(mode 644\); run: chmod 600 /gm)).toHaveLength(1);
      expect(result.stderr.match(/^rep: warning: the config directory .* \(mode 755\); run: chmod 700 /gm)).toHaveLength(1);
    }
    expect(statSync(configFile()).mode & 0o777).toBe(0o644);
    expect((await rep(['--quiet', 'pulse'])).stderr).toBe('');
  });

  it('logout tightens file and directory', async () => {
    writeConfig(JSON.stringify({ apiKey: STORED_KEY, baseUrl: 'https://api.example.com/api' }), 0o664);
    chmodSync(configDir(), 0o775);
    expect((await rep(['logout'])).code).toBe(0);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(configDir()).mode & 0o777).toBe(0o700);
    expect((await rep(['--json', 'status'], { env: { REP_API_KEY: ENV_KEY } })).stderr).toBe('');
  });
});
