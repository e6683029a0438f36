// State another user owns or can write (the answer cache, the history, the request count, their folders)
// is neither read nor written: one warning, then rep goes on without it; and rep never chmods through a
// link. The planted files belong to a second user (uid 65534), which needs root.
import { chmodSync, chownSync, lchownSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrlKey } from '../src/api/base-url.js';
import { foldJournal, openAnswerCache } from '../src/state/answer-cache.js';
import { useRep } from './helpers/cli.js';
import { startFaultServer, type FaultServer } from './helpers/fault-server.js';

const OTHER = 65534;
const KEY = 'rk_test_state_trust_0123456789';
const { home, rep, track } = useRep();

/** A strict API whose audit of Acme scores 41.2. */
async function api(): Promise<FaultServer> {
  const server = track(await startFaultServer());
  server.always('/api/audit', { headers: { 'content-type': 'application/json' }, body: { name: 'Acme', score: 41.2, sources: [] } });
  return server;
}

const envFor = (server: FaultServer, extra: Record<string, string> = {}) => ({
  env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: KEY, ...extra },
});

/** A forged entry in the answer cache at dir: Acme scores 99.9. Returns its path. */
async function forgedAnswer(dir: string, server: FaultServer): Promise<string> {
  const body = JSON.stringify({ name: 'Acme', score: 99.9, sources: [] });
  const key = { baseUrl: server.baseUrl, endpoint: 'audit', query: 'Acme', apiKey: KEY } as const;
  await openAnswerCache(dir).put(key, { status: 200, headers: { 'content-type': 'application/json' }, bodyText: body, receivedAt: Date.now() });
  await foldJournal(dir); // from the journal to its entry file, which the cases below tamper with
  const [name] = readdirSync(dir).filter((file) => file.endsWith('.answer'));
  return join(dir, name!);
}

const cacheDir = () => join(home().dir, 'cache', 'rep');

describe.skipIf(process.getuid?.() !== 0)('state another user owns or can write is not trusted', () => {
  describe('the answer cache', () => {
    const forgedCases: Array<[string, (dir: string, entry: string) => void, RegExp]> = [
      [
        'a folder another user owns',
        (dir, entry) => {
          for (const path of [dir, entry]) chownSync(path, OTHER, OTHER);
        },
        /the folder .* is owned by another user \(uid 65534\)/,
      ],
      ['a folder others can write to', (dir) => chmodSync(dir, 0o777), /the folder .* is writable by other users \(mode 777\)/],
      ['an entry another user owns', (_dir, entry) => chownSync(entry, OTHER, OTHER), /cached answer .*\.answer: it is owned by another user \(uid 65534\)/],
      ['an entry others can write to', (_dir, entry) => chmodSync(entry, 0o666), /cached answer .*\.answer: it is writable by other users \(mode 666\)/],
    ];
    it.each(forgedCases)('%s: not read (one warning), the question goes to the API', async (_name, plant, warning) => {
      const server = await api();
      const entry = await forgedAnswer(cacheDir(), server);
      plant(cacheDir(), entry);
      const result = await rep(['audit', 'Acme', '--fail-under', '60', '--format', 'json'], envFor(server));
      expect(server.count('/api/audit')).toBe(1);
      expect(result.stdout).not.toContain('99.9');
      expect(result.stdout).toContain('41.2');
      expect(result.code).toBe(7);
      expect(result.stderr.match(/rep: warning: not using the /g)).toHaveLength(1);
      expect(result.stderr).toMatch(warning);
    });

    it('the same entry of this user’s in a private folder is used (the forgery is a real entry)', async () => {
      const server = await api();
      await forgedAnswer(cacheDir(), server);
      const result = await rep(['audit', 'Acme', '--fail-under', '60', '--format', 'json'], envFor(server));
      expect(server.count('/api/audit')).toBe(0);
      expect(result.stdout).toContain('99.9');
    });

    it('REP_CACHE_DIR a link another user made: its target is not chmodded, and the cache is not used', async () => {
      const server = await api();
      const target = join(home().dir, 'etc-like');
      mkdirSync(target, { mode: 0o755 });
      chmodSync(target, 0o755);
      const link = join(home().dir, 'cache-link');
      symlinkSync(target, link);
      lchownSync(link, OTHER, OTHER);
      const result = await rep(['audit', 'Acme', '--format', 'json'], envFor(server, { REP_CACHE_DIR: link }));
      expect(result.code).toBe(0);
      expect(statSync(target).mode & 0o777).toBe(0o755);
      expect(readdirSync(target)).toEqual([]);
      expect(result.stderr).toMatch(/^rep: warning: not using the answer cache: the folder .*cache-link is a link another user made \(uid 65534\)$/m);
    });
  });

  describe('the history', () => {
    /** A history file with a planted point of Acme at 95.6 yesterday; REP_HISTORY_FILE names it. */
    function plantedHistory(server: FaultServer): { file: string; text: string } {
      const dir = join(home().dir, 'hist');
      mkdirSync(dir, { mode: 0o700 });
      const file = join(dir, 'history.jsonl');
      const point = {
        id: 'planted1',
        at: new Date(Date.now() - 86_400_000).toISOString(),
        base_url: baseUrlKey(server.baseUrl),
        query: 'Acme',
        score: 95.6,
        sources: [],
      };
      const text = `${JSON.stringify(point)}\n`;
      writeFileSync(file, text, { mode: 0o600 });
      return { file, text };
    }

    const cases: Array<[string, (file: string) => void, RegExp]> = [
      [
        'a 0666 file another user made',
        (file) => {
          chownSync(file, OTHER, OTHER);
          chmodSync(file, 0o666);
        },
        /history\.jsonl is owned by another user \(uid 65534\)/,
      ],
      ['a file of this user’s others can write to', (file) => chmodSync(file, 0o666), /history\.jsonl is writable by other users \(mode 666\)/],
      [
        'a folder another user owns',
        (file) => chownSync(join(file, '..'), OTHER, OTHER),
        /history\.jsonl: its folder .*hist is owned by another user \(uid 65534\)/,
      ],
    ];
    it.each(cases)('%s: not read, not written, one warning naming the file', async (_name, plant, warning) => {
      const server = await api();
      const { file, text } = plantedHistory(server);
      plant(file);
      const result = await rep(['audit', 'Acme', '--fail-on-drop', '5', '--format', 'json'], envFor(server, { REP_HISTORY_FILE: file }));
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/fell/);
      expect(result.stderr.match(/rep: warning: cannot (read|record the score in) the history in .*history\.jsonl/g)).toHaveLength(1);
      expect(result.stderr).toMatch(warning);
      expect(readFileSync(file, 'utf8')).toBe(text);
    });

    it('a private file of this user’s is read (the planted point is a real one)', async () => {
      const server = await api();
      const { file } = plantedHistory(server);
      const result = await rep(['audit', 'Acme', '--fail-on-drop', '5', '--format', 'json'], envFor(server, { REP_HISTORY_FILE: file }));
      expect(result.code).toBe(7);
    });
  });

  it('a request-count folder another user owns is not read: `rep status` says so', async () => {
    const server = await api();
    expect((await rep(['audit', 'Acme'], envFor(server))).code).toBe(0);
    const dir = join(home().env.XDG_STATE_HOME as string, 'rep', 'requests');
    chownSync(dir, OTHER, OTHER);
    const status = await rep(['--json', 'status'], envFor(server));
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requests_last_hour: 0 });
    expect(status.stderr).toMatch(/^rep: warning: cannot read the request count in .*requests \(the folder is owned by another user \(uid 65534\)\)$/m);
  });

  describe('the config file', () => {
    const login = () => rep(['login', '--no-verify', '--base-url', 'https://api.example.com/api'], { input: `${KEY}\n` });

    it('in a folder another user owns: login writes no key there, and says why', async () => {
      const dir = home().configDir;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chownSync(dir, OTHER, OTHER);
      const result = await login();
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^rep: will not write the config file .*config\.json: its folder .* is owned by another user \(uid 65534\)\nhint: set REP_CONFIG_DIR/m,
      );
      expect(readdirSync(dir)).toEqual([]);
    });

    it('a link another user made: not written through', async () => {
      const dir = home().configDir;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const victim = join(home().dir, 'victim.json');
      writeFileSync(victim, '{}', { mode: 0o644 });
      symlinkSync(victim, join(dir, 'config.json'));
      lchownSync(join(dir, 'config.json'), OTHER, OTHER);
      const result = await login();
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^rep: will not write the config file .*config\.json: it is a link another user made \(uid 65534\)$/m);
      expect(readFileSync(victim, 'utf8')).toBe('{}');
    });
  });
});
