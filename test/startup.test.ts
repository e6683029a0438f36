// Start-up stays cheap: the built CLI runs with a module hook that records every file it loads, and each
// loaded chunk's source map says which packages it holds (x_bundled_packages, written by the build). `--help`, `--version` and `completion` must
// load no HTTP client, no conf, no spinner and no table library; a piped command no spinner or table.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, runCli, type TempHome } from './helpers/cli.js';

const HEAVY = ['undici', 'conf', 'ajv', 'ora', 'cli-table3'] as const;

// Runs in Node's hooks thread: appends the URL of every module loaded to the file given in `data`.
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(log, url + '\\n');
  return nextLoad(url, context);
}
`;
const REGISTER = `import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.REP_TEST_LOAD_LOG } });
`;

let home: TempHome;
let runs = 0;

beforeAll(() => {
  home = makeTempHome();
  writeFileSync(join(home.dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(home.dir, 'register.mjs'), REGISTER);
});
afterAll(() => home.cleanup());

/** Runs rep and returns its exit code and the npm packages bundled into the files it loaded. */
async function packagesLoaded(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; files: string[]; packages: Set<string> }> {
  const log = join(home.dir, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  const result = await runCli(args, {
    home,
    env: { ...env, REP_TEST_LOAD_LOG: log, NODE_OPTIONS: `--import=${pathToFileURL(join(home.dir, 'register.mjs')).href}` },
  });
  const files = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((url) => fileURLToPath(url));
  const packages = new Set(files.flatMap(bundledPackagesOf));
  return { code: result.code, files, packages };
}

/** The npm packages bundled into a built file, per its source map. */
function bundledPackagesOf(file: string): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [];
  return (JSON.parse(readFileSync(map, 'utf8')) as { x_bundled_packages: string[] }).x_bundled_packages;
}

const heavyIn = (packages: Set<string>) => HEAVY.filter((name) => packages.has(name));

describe('start-up loads only what the command uses', () => {
  it('--version loads neither commander nor anything heavy', async () => {
    const { code, files, packages } = await packagesLoaded(['--version']);
    expect(code).toBe(0);
    expect(files.some((file) => file.endsWith(join('dist', 'cli.js')))).toBe(true);
    expect([...packages]).toEqual([]);
  });

  it.each([[['--help']], [[]], [['audit', '--help']], [['help', 'audit']], [['completion', 'bash']], [['completion', 'fish']]])('rep %j loads no HTTP client, conf, spinner or table library', async (args) => {
    const { code, packages } = await packagesLoaded(args);
    expect(code).toBe(0);
    expect(packages.has('commander')).toBe(true); // the recorder sees bundled chunks
    expect(heavyIn(packages)).toEqual([]);
  });

  it('a piped command loads undici, but no conf, spinner or table library', async () => {
    const { code, packages } = await packagesLoaded(['--sandbox', 'pulse']);
    expect(code).toBe(0);
    expect(packages.has('undici')).toBe(true);
    expect(heavyIn(packages)).toEqual(['undici']);
  });

  it('a command that fails before any request loads no HTTP client', async () => {
    const { code, packages } = await packagesLoaded(['pulse']);
    expect(code).toBe(4); // no base URL
    expect(heavyIn(packages)).toEqual([]);
  });
});
