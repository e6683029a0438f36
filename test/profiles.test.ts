// Profiles end to end: `--profile NAME` / REP_PROFILE select base URL, key and store together; login
// and logout write one profile; status lists them; a config written before profiles keeps working;
// answers, ledger and history never mix across profiles.
import { readFileSync, statSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';

const { rep, home, server } = useRep();
const posix = process.platform !== 'win32';

const KEY_A = 'rk_live_default_0001';
const KEY_B = 'rk_live_staging_0002';

function writeConfig(config: unknown): string {
  const file = join(home().configDir, 'config.json');
  mkdirSync(home().configDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

const readConfig = () => JSON.parse(readFileSync(join(home().configDir, 'config.json'), 'utf8')) as Record<string, unknown>;
const audit = (score: number) => ({ body: { company: { name: 'Acme' }, score, score_scale: 100, sources: [] } });

describe('profiles', () => {
  it("a config file in today's exact format is the default profile, unchanged", async () => {
    const api = await server();
    // What `rep login` has always written: two fields at the top level.
    const file = writeConfig({ apiKey: KEY_A, baseUrl: api.baseUrl.href.replace(/\/$/, '') });
    const before = readFileSync(file, 'utf8');
    api.expect('/api/pulse', { body: { index: 71.5 } });
    const pulse = await rep(['pulse', '--format', 'json']);
    expect(pulse).toMatchObject({ code: 0 });
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${KEY_A}`);
    const status = await rep(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'default', profile_source: 'default', profiles: ['default'], key_source: 'config' });
    expect(readFileSync(file, 'utf8')).toBe(before); // read commands never write it
    // The default profile's data stays where it always was: no profiles/ folder.
    expect(readdirSync(join(home().dir, 'state', 'rep'))).not.toContain('profiles');
  });

  it('login --profile writes only that profile; logout --profile removes only its key', async () => {
    const file = writeConfig({ apiKey: KEY_A, baseUrl: 'https://prod.example/api', theme: 'kept' });
    const login = await rep(['login', '--profile', 'staging', '--base-url', 'https://staging.example/api', '--no-verify'], { input: `${KEY_B}\n` });
    expect(login).toMatchObject({ code: 0 });
    expect(login.stderr).toBe(`Logged in to https://staging.example/api with key ****0002 (not verified); stored in ${file} (profile staging)\n`);
    expect(readConfig()).toEqual({
      apiKey: KEY_A,
      baseUrl: 'https://prod.example/api',
      theme: 'kept',
      profiles: { staging: { apiKey: KEY_B, baseUrl: 'https://staging.example/api' } },
    });
    if (posix) expect(statSync(file).mode & 0o777).toBe(0o600);

    const logout = await rep(['logout'], { env: { REP_PROFILE: 'staging' } });
    expect(logout).toMatchObject({ code: 0, stderr: `Removed the stored API key from ${file} (profile staging)\n` });
    expect(readConfig()).toEqual({
      apiKey: KEY_A,
      baseUrl: 'https://prod.example/api',
      theme: 'kept',
      profiles: { staging: { baseUrl: 'https://staging.example/api' } },
    });
  });

  it('status lists the profiles and the active one, in every format; --profile wins over REP_PROFILE', async () => {
    writeConfig({
      apiKey: KEY_A,
      baseUrl: 'https://prod.example/api',
      profiles: { staging: { apiKey: KEY_B, baseUrl: 'https://staging.example/api' }, ci: {} },
    });
    const env = { REP_PROFILE: 'ci' };
    const json = JSON.parse((await rep(['status', '--profile', 'staging', '--json'], { env })).stdout);
    expect(json).toMatchObject({
      profile: 'staging',
      profile_source: 'flag',
      profiles: ['default', 'ci', 'staging'],
      base_url: 'https://staging.example/api',
      key: '****0002',
    });
    const table = await rep(['status', '--profile', 'staging', '--format', 'table'], { env });
    expect(table.stdout).toMatch(/^Profile +staging \(from --profile\)\nOther profiles +default, ci\n/);
    expect(table.stdout).toMatch(/Base URL +https:\/\/staging\.example\/api \(from profile staging\)/);
    const markdown = await rep(['status', '--format', 'markdown'], { env });
    expect(markdown.stdout).toContain('| Profile | ci (from REP\\_PROFILE) |');
    expect(markdown.code).toBe(4); // ci has no key: the rest is still shown
    const csv = (await rep(['status', '--profile', 'staging', '--format', 'csv'])).stdout.split('\n');
    expect(csv[0]).toMatch(/^profile,profile_source,profiles,base_url,/);
    expect(csv[1]).toMatch(/^staging,flag,default ci staging,https:\/\/staging\.example\/api,/);
  });

  it('REP_API_KEY and REP_BASE_URL still win over the profile, and status says so', async () => {
    writeConfig({ profiles: { staging: { apiKey: KEY_B, baseUrl: 'https://staging.example/api' } } });
    const result = await rep(['status', '--profile', 'staging', '--format', 'table'], {
      env: { REP_API_KEY: 'rk_env_key_9999', REP_BASE_URL: 'https://env.example/api' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/API key +\*\*\*\*9999 \(from environment: REP_API_KEY wins over profile staging\)/);
    expect(result.stdout).toMatch(/Base URL +https:\/\/env\.example\/api \(from environment: REP_BASE_URL wins over profile staging\)/);
  });

  it('an unknown profile exits 4 with a hint to log in to it; a bad name exits 2', async () => {
    writeConfig({ apiKey: KEY_A, baseUrl: 'https://prod.example/api' });
    const unknown = await rep(['pulse', '--profile', 'stagign']);
    expect(unknown).toMatchObject({ code: 4, stdout: '' });
    expect(unknown.stderr).toMatch(
      /^rep: no profile named stagign in .*config\.json\nhint: run `rep login --profile stagign` to create it, or `rep status` to list the profiles\n$/,
    );
    const fromEnv = await rep(['status'], { env: { REP_PROFILE: 'nope' } });
    expect(fromEnv).toMatchObject({ code: 4 });
    expect(fromEnv.stderr).toMatch(/^rep: no profile named nope \(from REP_PROFILE\)/);
    for (const [args, env, shown] of [
      [['status', '--profile', '../x'], {}, '--profile is not a valid profile name ("../x")'],
      [['status', '--profile=.hidden'], {}, '--profile is not a valid profile name (".hidden")'],
      [['status', '--profile=-x'], {}, '--profile is not a valid profile name ("-x")'],
      [['status'], { REP_PROFILE: 'a\\b' }, 'REP_PROFILE is not a valid profile name ("a\\\\b")'],
    ] as const) {
      const bad = await rep([...args], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(`rep: ${shown}\nhint: use letters, digits, dots, dashes and underscores (at most 64), not starting with a dot or a dash\n`);
    }
    expect(readdirSync(home().dir)).not.toContain('state'); // nothing made for a refused name
  });

  it('answers and history never mix: same base URL and key, each profile asks and remembers alone', async () => {
    const api = await server();
    const base = api.baseUrl.href.replace(/\/$/, '');
    writeConfig({ apiKey: KEY_A, baseUrl: base, profiles: { staging: { apiKey: KEY_A, baseUrl: base } } });
    // Each profile sends its own request: the default profile's cached answer is not served to staging.
    api.expect('/api/audit', audit(80), audit(60));
    expect(await rep(['audit', 'Acme', '--format', 'json'])).toMatchObject({ code: 0 });
    // A 20-point drop from the default profile's point would fail this gate: staging has no previous point.
    const staging = await rep(['audit', 'Acme', '--profile', 'staging', '--fail-on-drop', '5', '--format', 'json']);
    expect(staging).toMatchObject({ code: 0 });
    expect(JSON.parse(staging.stdout).score).toBe(60);
    expect(api.count('/api/audit')).toBe(2);

    const history = (profile: string[]) => rep(['history', 'Acme', '--format', 'json', ...profile]);
    expect(JSON.parse((await history([])).stdout).map((point: { score: number }) => point.score)).toEqual([80]);
    expect(JSON.parse((await history(['--profile', 'staging'])).stdout).map((point: { score: number }) => point.score)).toEqual([60]);
    // The staging profile's files are under profiles/staging of the state and cache dirs.
    expect(readdirSync(join(home().dir, 'state', 'rep', 'profiles'))).toEqual(['staging']);
    expect(readdirSync(join(home().dir, 'cache', 'rep', 'profiles'))).toEqual(['staging']);
  });
});
