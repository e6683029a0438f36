// Hints that lead somewhere: a rejected key says where it came from, a name not found suggests a
// search that finds it, and every suggested command keeps the flags that made the run's context.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

const sandbox = useSandbox();
const { rep, home } = useRep();

describe('a rejected key says where it came from', () => {
  it('REP_API_KEY: names the variable and what to check, with the server message', async () => {
    const result = await rep(['pulse'], { env: { REP_BASE_URL: sandbox.url, REP_API_KEY: 'not-the-sandbox-key-0000' } });
    expect(result).toMatchObject({ code: 4, stdout: '' });
    expect(result.stderr).toBe(
      'rep: the server rejected the API key (401 Unauthorized): Invalid API key\n' +
        'hint: the key comes from REP_API_KEY, which wins over `rep login`: check its value, or unset it to use the stored key\n',
    );
  });

  it('the config file: names it, and `rep login` (with the --base-url given) stores a new key', async () => {
    const { configDir } = home();
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const configFile = join(configDir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ apiKey: 'stale-stored-key-0000' }), { mode: 0o600 });
    const result = await rep(['--base-url', sandbox.url, 'pulse']);
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      'rep: the server rejected the API key (401 Unauthorized): Invalid API key\n' +
        `hint: the key is the one \`rep login\` stored in ${configFile}: run \`rep --base-url ${sandbox.url} login\` to store a new one\n`,
    );
  });
});

describe('a name not found suggests a search that finds it, in the same context', () => {
  /** A sandbox company of several words, and the name with a typo in a word other than its longest. */
  async function typoOfACompany(): Promise<{ name: string; typo: string }> {
    const { view } = await createClient({ baseUrl: sandbox.url, apiKey: sandbox.key }).search('a');
    const names = view.groups.flatMap((group) => (group.type === 'company' ? group.rows.map((row) => String(row.name)) : []));
    const name = names.find((each) => each.split(' ').length >= 3);
    if (!name) throw new Error(`no company of three words among ${names.join(', ')}`);
    const words = name.split(' ');
    const longest = Math.max(...words.map((word) => word.length));
    const at = words.findIndex((word) => word.length >= 3 && word.length < longest);
    words[at] = `${words[at]?.slice(0, -2)}${words[at]?.slice(-1)}`; // a letter dropped near its end
    return { name, typo: words.join(' ') };
  }

  it('--sandbox: the hint keeps --sandbox, searches by one word, and that search lists the company', async () => {
    const { name, typo } = await typoOfACompany();
    const result = await rep(['--sandbox', 'audit', typo]);
    expect(result.code).toBe(3);
    const hint = /^hint: no company has exactly that name; search by one word: (rep --sandbox search (\S+))$/m.exec(result.stderr);
    expect(hint, result.stderr).not.toBeNull();
    const word = hint?.[2] ?? '';
    expect(typo).toContain(word);
    const found = await rep(['--sandbox', '--json', 'search', word]);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain(JSON.stringify(name));
  });

  it('--base-url from the command line is kept in the suggested command; REP_BASE_URL needs none', async () => {
    const flag = await rep(['--base-url', sandbox.url, 'audit', 'Nowhere Whatsoever Trading'], { env: { REP_API_KEY: sandbox.key } });
    expect(flag.stderr).toContain(`hint: no company has exactly that name; search by one word: rep --base-url ${sandbox.url} search Whatsoever\n`);
    const env = await rep(['audit', 'Nowhere Whatsoever Trading'], { env: { REP_API_KEY: sandbox.key, REP_BASE_URL: sandbox.url } });
    expect(env.stderr).toContain('search by one word: rep search Whatsoever\n');
  });

  it('a batch of bare words that all miss: the quoting hint keeps --sandbox', async () => {
    const result = await rep(['--sandbox', 'audit', 'Nowhere', 'Whatsoever']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("hint: to audit one company whose name has spaces, quote it: rep --sandbox audit 'Nowhere Whatsoever'\n");
  });
});
