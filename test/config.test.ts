// Unit tests of the config layer: precedence (flag > env > file), base URL validation, key masking,
// and reading and writing the config file (modes, broken files, unknown fields).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFileProblem, looseConfigPermissions, readConfigFile, updateConfigFile } from '../src/config/file.js';
import { ensurePrivateDir } from '../src/local-file.js';
import { checkKey, isLoopbackHost, maskKey, parseBaseUrl, resolveSettings } from '../src/config/settings.js';
import { ConfigError, UsageError } from '../src/errors.js';

const posix = process.platform !== 'win32';
const mode = (path: string) => statSync(path).mode & 0o777;

describe('resolveSettings', () => {
  const configPath = '/nowhere/config.json';
  const resolve = (flagBaseUrl: string | undefined, env: NodeJS.ProcessEnv, stored = {}) => resolveSettings({ flagBaseUrl, env, stored, configPath });
  const stored = { baseUrl: 'https://config.example/api', apiKey: 'config-key-123456' };

  it('base URL: flag > env > config', () => {
    const env = { REP_BASE_URL: 'https://env.example/api' };
    expect(resolve('https://flag.example/api', env, stored)).toMatchObject({ baseUrlSource: 'flag' });
    expect(resolve('https://flag.example/api', env, stored).baseUrl?.href).toBe('https://flag.example/api');
    expect(resolve(undefined, env, stored).baseUrl?.href).toBe('https://env.example/api');
    expect(resolve(undefined, env, stored).baseUrlSource).toBe('env');
    expect(resolve(undefined, {}, stored).baseUrl?.href).toBe('https://config.example/api');
    expect(resolve(undefined, {}, stored).baseUrlSource).toBe('config');
    expect(resolve(undefined, {}, {}).baseUrl).toBeUndefined();
    expect(resolve(undefined, {}, {}).baseUrlSource).toBe('none');
  });

  it('key: env > config; there is no flag', () => {
    expect(resolve(undefined, { REP_API_KEY: 'env-key-1234567' }, stored)).toMatchObject({ key: 'env-key-1234567', keySource: 'env' });
    expect(resolve(undefined, {}, stored)).toMatchObject({ key: 'config-key-123456', keySource: 'config' });
    expect(resolve(undefined, {}, {}).key).toBeUndefined();
    expect(resolve(undefined, {}, {}).keySource).toBe('none');
  });

  it('ignores empty and whitespace-only environment variables', () => {
    const settings = resolve(undefined, { REP_API_KEY: '', REP_BASE_URL: '  ' }, stored);
    expect(settings).toMatchObject({ keySource: 'config', baseUrlSource: 'config' });
    expect(resolve('', { REP_BASE_URL: '' }, {}).baseUrlSource).toBe('none');
  });

  it('trims a key (a pasted newline is not part of it)', () => {
    expect(resolve(undefined, { REP_API_KEY: ' abc-123\n' }).key).toBe('abc-123');
  });

  it('validates the winning base URL, whichever source it comes from', () => {
    expect(() => resolve('http://flag.example/api', {}, {})).toThrow(/--base-url/);
    expect(() => resolve(undefined, { REP_BASE_URL: 'http://env.example/api' }, {})).toThrow(/REP_BASE_URL/);
    expect(() => resolve(undefined, {}, { baseUrl: 'http://config.example/api' })).toThrow(/the config file/);
    // A bad value that loses is never looked at.
    expect(resolve('https://flag.example/api', { REP_BASE_URL: 'http://env.example/api' }, {}).baseUrlSource).toBe('flag');
  });

  it('rejects a key that cannot be sent as a header value', () => {
    expect(() => resolve(undefined, { REP_API_KEY: 'abc def' })).toThrow(UsageError);
    expect(() => resolve(undefined, { REP_API_KEY: 'abc\u0000def' })).toThrow(/REP_API_KEY/);
    expect(() => checkKey('ключ', 'stdin')).toThrow(/stdin/);
    expect(checkKey('rk_live_AbC-123.x', 'stdin')).toBe('rk_live_AbC-123.x');
  });
});

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com/api', 'https://api.example.com/api'],
    ['https://api.example.com/v2/api/', 'https://api.example.com/v2/api'],
    ['  https://api.example.com/api  ', 'https://api.example.com/api'],
    ['http://localhost:8080/api', 'http://localhost:8080/api'],
    ['http://LOCALHOST/api', 'http://localhost/api'],
    ['http://127.0.0.1:1/api', 'http://127.0.0.1:1/api'],
    ['http://127.8.9.10/api', 'http://127.8.9.10/api'],
    ['http://[::1]:9/api', 'http://[::1]:9/api'],
    ['http://[::ffff:127.0.0.1]/api', 'http://[::ffff:7f00:1]/api'],
  ])('accepts %s', (input, href) => {
    expect(parseBaseUrl(input).href).toBe(href);
  });

  it.each([
    ['http://api.example.com/api', /plain http/],
    ['http://10.0.0.1/api', /plain http/],
    ['http://[::ffff:10.0.0.1]/api', /plain http/],
    ['http://0.0.0.0/api', /plain http/],
    ['http://localhost./api', /plain http/],
    ['http://evil.localhost/api', /plain http/],
    ['http://localhost.evil.example/api', /plain http/],
    ['ftp://example.com/api', /not http or https/],
    ['example.com/api', /invalid base URL/],
    ['', /invalid base URL/],
    ['https://user:pass@example.com/api', /user name or password/],
    ['https://example.com/api?x=1', /query or fragment/],
    ['https://example.com/api#x', /query or fragment/],
  ])('refuses %s with a usage error', (input, message) => {
    expect(() => parseBaseUrl(input)).toThrow(UsageError);
    expect(() => parseBaseUrl(input)).toThrow(message);
  });

  it.each([
    'http://user:s3cretpw@127.0.0.1:99999/b/api',
    'https://user:s3cretpw@exa mple.com/api',
    'user:s3cretpw@example.com/api',
    'https://user:s3cret@pw/x@exa mple.com:99999/api',
    'https://s3cretpw@[::1/api',
  ])('never echoes the user name or password of an invalid URL: %s', (input) => {
    const error = (() => {
      try {
        parseBaseUrl(input, 'env');
      } catch (caught) {
        return caught as UsageError;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.message).toMatch(/^invalid base URL from REP_BASE_URL: /);
    expect(error?.message).not.toMatch(/s3cret|user:/);
  });

  it('names where the bad value came from', () => {
    expect(() => parseBaseUrl('http://x.example', 'env')).toThrow(/REP_BASE_URL/);
    expect(() => parseBaseUrl('nope', 'config')).toThrow(/the config file/);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LocalHost',
    '127.0.0.1',
    '127.255.255.254',
    '127.1',
    '0x7f.1',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each([
    'localhost.',
    'a.localhost',
    'example.com',
    '128.0.0.1',
    '10.0.0.1',
    '0.0.0.0',
    '::',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '127.0.0.1.example.com',
    '::2',
    '[::ffff:7f00:1',
    '',
    'localhost.localdomain',
  ])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('maskKey', () => {
  it('shows the last 4 characters of a long key', () => {
    expect(maskKey('sk_live_0123456789abcdef')).toBe('****cdef');
  });
  it('shows nothing of a short key (4 characters would be too much of it)', () => {
    for (const key of ['a', 'abcd', 'abcdefgh', 'abcdefghijk']) {
      expect(maskKey(key)).toBe('****');
      expect(maskKey(key)).not.toContain(key.slice(-1));
    }
  });
});

describe('the config file', () => {
  let dir: string;
  let configDir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rep-config-'));
    configDir = join(dir, 'nested', 'rep');
    path = join(configDir, 'config.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (text: string) => {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(path, text);
  };

  it('a missing file is an empty config', () => {
    expect(readConfigFile(path)).toEqual({});
  });

  it('reads key, base URL and unknown fields (a BOM is tolerated)', () => {
    write('\uFEFF{"apiKey":"k","baseUrl":"https://x/api","theme":{"a":1}}');
    expect(readConfigFile(path)).toEqual({ apiKey: 'k', baseUrl: 'https://x/api', theme: { a: 1 } });
  });

  it.each([
    ['{"apiKey": ', /is not valid JSON/],
    ['', /is not valid JSON/],
    ['[1,2]', /does not hold a JSON object/],
    ['null', /does not hold a JSON object/],
    ['{"apiKey": 42}', /"apiKey" that is not a string/],
    ['{"baseUrl": ["https://x"]}', /"baseUrl" that is not a string/],
  ])('%j is a ConfigError naming the path, with a fix', (text, message) => {
    write(text);
    const error = (() => {
      try {
        readConfigFile(path);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(1);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).message).toContain(path);
    expect((error as ConfigError).hint).toMatch(/fix the file|delete it/);
  });

  it('is created with mode 0600 in a directory with mode 0700, leaving no temp file behind', async () => {
    await updateConfigFile(path, (config) => ({ ...config, apiKey: 'secret-key-1234', baseUrl: 'https://x/api' }));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ apiKey: 'secret-key-1234', baseUrl: 'https://x/api' });
    if (posix) {
      expect(mode(path)).toBe(0o600);
      expect(mode(configDir)).toBe(0o700);
    }
    expect(readdirSync(configDir)).toEqual(['config.json']);
  });

  it.runIf(posix)('tightens a file and directory others can read when it writes', async () => {
    write('{"baseUrl":"https://x/api"}');
    chmodSync(path, 0o644);
    chmodSync(configDir, 0o755);
    expect(looseConfigPermissions(path)).toHaveLength(2);
    await updateConfigFile(path, (config) => ({ ...config, apiKey: 'k' }));
    expect(mode(path)).toBe(0o600);
    expect(mode(configDir)).toBe(0o700);
    expect(looseConfigPermissions(path)).toEqual([]);
  });

  it.runIf(posix)('warns through the callback when reading a file others can read', () => {
    write('{"apiKey":"k"}');
    chmodSync(path, 0o640);
    chmodSync(configDir, 0o700);
    const warnings: string[] = [];
    readConfigFile(path, (text) => warnings.push(text));
    expect(warnings).toEqual([`the config file ${path} is open to other users (mode 640); run: chmod 600 ${path}`]);
    expect(mode(path)).toBe(0o640); // reading never changes anything
  });

  it.runIf(posix)('leaves a shared (sticky) directory alone', () => {
    mkdirSync(configDir, { recursive: true });
    chmodSync(configDir, 0o1777);
    ensurePrivateDir(configDir);
    expect(statSync(configDir).mode & 0o1777).toBe(0o1777);
  });

  it('keeps unknown fields and changes only what the update changes', async () => {
    write('{"apiKey":"old","baseUrl":"https://x/api","extra":[1,{"b":true}]}');
    await updateConfigFile(path, ({ apiKey: _removed, ...rest }) => rest);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ baseUrl: 'https://x/api', extra: [1, { b: true }] });
  });

  it('a file over 1 MB is a ConfigError naming the path, read no further', () => {
    write(`{"apiKey":"k","pad":"${' '.repeat(1024 * 1024)}"}`);
    expect(() => readConfigFile(path)).toThrow(ConfigError);
    expect(() => readConfigFile(path)).toThrow(`the config file ${path} is larger than 1 MB`);
  });

  it('a directory where the file should be is a ConfigError naming the path', () => {
    mkdirSync(path, { recursive: true });
    expect(() => readConfigFile(path)).toThrow(`the config file ${path} is a directory, not a regular file`);
  });

  it('a config path under a file says what happened, not "check its permissions" (reading and writing)', async () => {
    mkdirSync(join(dir, 'nested'), { recursive: true });
    writeFileSync(configDir, 'a file where the directory should be');
    for (const attempt of [() => readConfigFile(path), () => updateConfigFile(path, () => ({ apiKey: 'k' }))]) {
      const error = await (async () => attempt())().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toBe(`cannot read the config file ${path}: a part of its path is not a directory`);
      expect((error as ConfigError).hint).toBe('set REP_CONFIG_DIR to a directory rep can write to');
    }
  });

  it.each([
    ['ENOSPC', 'write', 'no space is left on the device', /free some space/],
    ['EDQUOT', 'write', 'the disk quota is used up', /free some space/],
    ['EROFS', 'write', 'the file system is read-only', /REP_CONFIG_DIR/],
    ['EISDIR', 'write', 'it is a directory', /remove or rename/],
    ['EACCES', 'write', 'permission denied', /check the permissions of its directory/],
    ['EACCES', 'read', 'permission denied', /check its permissions/],
    ['EIO', 'read', 'an input/output error (EIO)', /--debug/],
  ] as const)('%s on a %s is told as "%s"', (code, doing, what, hint) => {
    const problem = configFileProblem(Object.assign(new Error(`${code}: raw`), { code }), doing);
    expect(problem.what).toBe(what);
    expect(problem.hint).toMatch(hint);
    if (code !== 'EACCES') expect(problem.hint).not.toMatch(/permissions/);
  });

  it('refuses to overwrite a broken file, and leaves it as it was', async () => {
    write('{"apiKey": "half');
    await expect(updateConfigFile(path, () => ({ apiKey: 'new' }))).rejects.toThrow(ConfigError);
    expect(readFileSync(path, 'utf8')).toBe('{"apiKey": "half');
  });
});
