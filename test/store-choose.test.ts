// Choosing the store and reading its URL: precedence, libpq's URL forms, where the password comes
// from, and that it never shows (a password on the command line is refused before anything runs).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../src/api/errors.js';
import { chooseStoreUrl } from '../src/store/choose.js';
import { describeTarget, parseStoreUrl, queryValues } from '../src/store/postgres/url.js';
import { useRep } from './helpers/cli.js';

describe('chooseStoreUrl', () => {
  it('--store wins over REP_STORE, which wins over the config file; none of them: local files', () => {
    const env = { REP_STORE: 'postgres://env@db/rep' };
    expect(chooseStoreUrl({ flag: 'postgres://flag@db/rep', env, config: 'postgres://config@db/rep' })).toEqual({
      url: 'postgres://flag@db/rep',
      source: 'flag',
    });
    expect(chooseStoreUrl({ env, config: 'postgres://config@db/rep' })).toEqual({ url: 'postgres://env@db/rep', source: 'env' });
    expect(chooseStoreUrl({ env: {}, config: 'postgresql://config@db/rep' })).toEqual({ url: 'postgresql://config@db/rep', source: 'config' });
    expect(chooseStoreUrl({ env: { REP_STORE: '  ' } })).toBeUndefined();
  });

  it('refuses a password in --store (and never says it), but takes one from REP_STORE', () => {
    const refuse = () => chooseStoreUrl({ flag: 'postgres://rep:hunter2-secret@db/rep', env: {} });
    expect(refuse).toThrow(UsageError);
    expect(refuse).toThrow('--store must not carry a password: the command line is visible to other processes');
    expect(() => chooseStoreUrl({ flag: 'postgres://rep@db/rep?password=hunter2-secret', env: {} })).toThrow(/must not carry a password/);
    expect(chooseStoreUrl({ env: { REP_STORE: 'postgres://rep:hunter2-secret@db/rep' } })?.source).toBe('env');
  });

  it('refuses a URL of another kind, naming where it came from', () => {
    expect(() => chooseStoreUrl({ env: { REP_STORE: 'mysql://db/rep' } })).toThrow('REP_STORE must be a postgres:// or postgresql:// URL');
  });
});

describe('parseStoreUrl', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('refuses a URL holding a tab or line break, and a port that is not plain digits (the library’s way in too)', () => {
    expect(() => parseStoreUrl('postgres://u@db/rep\nstaging', {})).toThrow('the store URL holds a tab or line break: it is no URL');
    expect(() => parseStoreUrl('postgres://u@d\tb/rep', {})).toThrow('the store URL holds a tab or line break: it is no URL');
    for (const port of ['0x1F90', '8e3', '+80', '80.0'])
      expect(() => parseStoreUrl(`postgres://u@db/rep?port=${encodeURIComponent(port)}`, {}), port).toThrow(
        `the store URL's port is not a port number: ${port}`,
      );
    expect(parseStoreUrl('postgres://u@db/rep?port=6543', {}).port).toBe(6543);
  });

  it('reads host, port, database, user and sslmode, and libpq’s ?host=/socket/dir form', () => {
    expect(parseStoreUrl('postgresql://team@db.internal:6543/rep?sslmode=verify-full', {})).toMatchObject({
      host: 'db.internal',
      port: 6543,
      database: 'rep',
      user: 'team',
      sslmode: 'verify-full',
      passwordSource: 'none',
    });
    expect(parseStoreUrl('postgres:///rep?host=/var/run/postgresql&user=ci', {})).toMatchObject({
      host: '/var/run/postgresql',
      port: 5432,
      database: 'rep',
      user: 'ci',
      sslmode: 'prefer',
    });
    expect(parseStoreUrl('postgres://u@h/d?options=-c%20statement_timeout%3D5000', {}).settings).toEqual({
      statement_timeout: '5000',
      application_name: 'rep',
    });
    expect(() => parseStoreUrl('postgres://u@h/d?sslmode=sometimes', {})).toThrow(
      /sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full, not sometimes/,
    );
  });

  it('reads the query as URLSearchParams does', () => {
    const searches = ['', '?', '?a=1&a=2&b', '?&&x=%41%e2%82%ac+y&%zz=%4&%C3=%FF', '?options=-c%20a%3Db&application_name=r+e%2Bp', '?=v&k=a=b'];
    for (const search of searches) {
      const expected = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(search)) if (!expected.has(name)) expected.set(name, value);
      expect(queryValues(search), search).toEqual(expected);
    }
  });

  it('takes the password from the URL, else PGPASSWORD, else a private ~/.pgpass; describing it never shows it', () => {
    dir = mkdtempSync(join(tmpdir(), 'rep-pgpass-'));
    writeFileSync(join(dir, '.pgpass'), '# team\nother:5432:*:*:nope\ndb.internal:5432:rep:team:from\\:pgpass\n');
    chmodSync(join(dir, '.pgpass'), 0o600);
    const url = 'postgres://team@db.internal/rep';
    expect(parseStoreUrl('postgres://team:from%20url@db.internal/rep', { PGPASSWORD: 'x' })).toMatchObject({ password: 'from url', passwordSource: 'url' });
    expect(parseStoreUrl(url, { PGPASSWORD: 'from-env' }, dir)).toMatchObject({ password: 'from-env', passwordSource: 'PGPASSWORD' });
    const fromFile = parseStoreUrl(url, {}, dir);
    expect(fromFile).toMatchObject({ password: 'from:pgpass', passwordSource: 'pgpass' });
    expect(JSON.stringify(describeTarget(fromFile))).not.toContain('pgpass');
    expect(describeTarget(fromFile)).toEqual([
      { label: 'store', value: 'postgres' },
      { label: 'host', value: 'db.internal:5432' },
      { label: 'database', value: 'rep' },
      { label: 'user', value: 'team' },
      { label: 'sslmode', value: 'prefer' },
    ]);
    chmodSync(join(dir, '.pgpass'), 0o644);
    expect(parseStoreUrl(url, {}, dir).passwordSource).toBe('none');
  });
});

describe('rep --store', () => {
  const { rep } = useRep();
  it('exits 2 on a URL with a password, pointing at REP_STORE, PGPASSWORD or ~/.pgpass, and never echoes it', async () => {
    const result = await rep(['--store', 'postgres://rep:hunter2-secret@db.internal/rep', 'status']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'rep: --store must not carry a password: the command line is visible to other processes\nhint: put the URL in REP_STORE, or the password in PGPASSWORD or ~/.pgpass\n',
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });
});
