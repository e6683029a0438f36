// Start-up stays cheap: the built CLI runs with a hook that records every file it loads, and each
// loaded file's source map says which packages it holds (x_bundled_packages, written by the build). `--help`, `--version` and `completion` must
// load no HTTP client, no conf, no spinner and no table library; a piped command no spinner or table.
// The same runs on every Node line found (this node, and those scripts/node-lines.sh installed in
// .cache/node-lines/, as `npm run bench` measures): Node 22+ carries its own undici behind lazy web
// globals (fetch, Headers, node:http's WebSocket export…), and rep, which bundles the undici package,
// must never wake it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, REP_BIN, runCli, type TempHome } from './helpers/cli.js';
import { writeLoadHooks } from './helpers/load-hooks.js';
import { startFaultServer } from './helpers/fault-server.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const HEAVY = ['undici', 'conf', 'ajv', 'ora', 'cli-table3'] as const;
const NODE_OWN_UNDICI = 'internal/deps/undici/undici';

function nodeLines(): string[] {
  const dir = process.env.REP_NODE_LINES_DIR ?? join(import.meta.dirname, '..', '.cache', 'node-lines');
  const installed = existsSync(dir)
    ? readdirSync(dir)
        .map((line) => join(dir, line, 'bin', 'node'))
        .filter((node) => existsSync(node))
    : [];
  return [process.execPath, ...installed];
}

/** Node 22.1+ has a compile cache, which bin/rep.cjs turns on. */
function hasCompileCache(node: string): boolean {
  return spawnSync(node, ['-p', "typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).stdout.trim() === 'function';
}

let home: TempHome;
let register: string;
let runs = 0;

beforeAll(() => {
  home = makeTempHome();
  register = writeLoadHooks(home.dir);
});
afterAll(() => home.cleanup());

/** Runs rep (on `node`, default this one): its exit code, stderr, the npm packages bundled into the files it loaded, Node's own modules it loaded, whether it made process.stdin. */
async function packagesLoaded(args: string[], env: Record<string, string> = {}, node = process.execPath) {
  const log = join(home.dir, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  const result = await runCli([REP_BIN, ...args], {
    home,
    bin: node,
    env: { ...env, REP_TEST_LOAD_LOG: log, NODE_OPTIONS: `--import=${register}` },
  });
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => fileURLToPath(url));
  const packages = new Set(files.flatMap(bundledPackagesOf));
  const builtins = new Set(readFileSync(`${log}.builtins`, 'utf8').split('\n'));
  return { code: result.code, stderr: result.stderr, files, packages, builtins, stdinMade: existsSync(`${log}.stdin`) };
}

/** The npm packages bundled into a built file, per its source map. */
function bundledPackagesOf(file: string): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [];
  return (JSON.parse(readFileSync(map, 'utf8')) as { x_bundled_packages: string[] }).x_bundled_packages;
}

const heavyIn = (packages: Set<string>) => HEAVY.filter((name) => packages.has(name));

describe('start-up loads only what the command uses', () => {
  it('--version loads the CLI bundle alone: no leaf of dist/lib/, nothing heavy', async () => {
    const { code, files, packages } = await packagesLoaded(['--version']);
    expect(code).toBe(0);
    expect(files.filter((file) => file.includes(`${sep}dist${sep}`)).map((file) => relative(DIST, file))).toEqual(['cli.cjs']);
    expect(heavyIn(packages)).toEqual([]);
  });

  it.each([[['--help']], [[]], [['audit', '--help']], [['help', 'audit']], [['completion', 'bash']], [['completion', 'fish']]])(
    'rep %j loads no HTTP client, conf, spinner or table library',
    async (args) => {
      const { code, packages } = await packagesLoaded(args);
      expect(code).toBe(0);
      expect(packages.has('commander')).toBe(true); // the recorder sees the bundle
      expect(heavyIn(packages)).toEqual([]);
    },
  );

  it('a piped command loads undici, but no conf, spinner or table library', async () => {
    const { code, packages } = await packagesLoaded(['--sandbox', 'pulse']);
    expect(code).toBe(0);
    expect(packages.has('undici')).toBe(true);
    expect(heavyIn(packages)).toEqual(['undici']);
  });

  it('an answer from the cache loads no HTTP client (the miss before it does)', async () => {
    const api = await startFaultServer();
    try {
      api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
      const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_cache_0123' };
      const miss = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env);
      expect(miss.packages.has('undici')).toBe(true);
      const hit = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env);
      expect(hit.code).toBe(0);
      expect(api.count()).toBe(1);
      expect(heavyIn(hit.packages)).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('a command that fails before any request loads no HTTP client', async () => {
    const { code, packages } = await packagesLoaded(['pulse']);
    expect(code).toBe(4); // no base URL
    expect(heavyIn(packages)).toEqual([]);
  });
});

describe.each(nodeLines())('on %s', (node) => {
  it("rep --sandbox pulse sends its request with rep's undici, without waking Node's own or perf_hooks", async () => {
    const { code, stderr, builtins } = await packagesLoaded(['--sandbox', 'pulse'], {}, node);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(builtins.has('http')).toBe(true); // the recorder sees Node's modules
    expect(builtins.has(NODE_OWN_UNDICI)).toBe(false);
    expect(builtins.has('perf_hooks')).toBe(false);
  });

  it('--help loads no child_process (commander spawns only for executable subcommands, which rep has none of)', async () => {
    const { code, builtins } = await packagesLoaded(['--help'], {}, node);
    expect(code).toBe(0);
    expect(builtins.has('child_process')).toBe(false);
  });

  it('an answer from the cache loads no HTTP stack (neither undici), no crypto, no child_process, no line reader, and leaves stdin alone', async () => {
    const api = await startFaultServer();
    try {
      api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
      const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_cache_0123' };
      await packagesLoaded(['audit', 'Blue Bottle Coffee'], env, node);
      const hit = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env, node);
      expect(hit.code).toBe(0);
      expect(api.count()).toBe(1);
      expect(heavyIn(hit.packages)).toEqual([]);
      // node:crypto alone is ~17 of Node's modules (~8 ms): the cache key and key fingerprint are hashed without it.
      expect(['http', NODE_OWN_UNDICI, 'crypto', 'child_process', 'readline', 'fs/promises'].filter((id) => hit.builtins.has(id))).toEqual([]);
      // Nor what an ESM import of node:fs or node:crypto would load through its facade's getters (beyond
      // what Node's own ESM loader loads for any module on this line: `rep --version` is the baseline).
      const { builtins: baseline } = await packagesLoaded(['--version'], env, node);
      const facade = ['internal/fs/promises', 'internal/readline/interface', 'internal/crypto/webcrypto'];
      expect(facade.filter((id) => hit.builtins.has(id) && !baseline.has(id))).toEqual([]);
      expect(hit.stdinMade).toBe(false);
    } finally {
      await api.close();
    }
  });

  it.skipIf(!hasCompileCache(node))("keeps rep's compiled bundle in Node's compile cache under the temp dir, not in the package", async () => {
    const tmp = join(home.dir, `tmp-${++runs}`);
    mkdirSync(tmp);
    const env = { TMPDIR: tmp, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    expect((await runCli([REP_BIN, '--help'], { home, bin: node, env })).code).toBe(0);
    const second = await runCli([REP_BIN, '--help'], { home, bin: node, env });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/\/dist\/cli\.cjs was accepted/);
    expect(readdirSync(join(tmp, 'node-compile-cache')).length).toBe(1); // one directory for this Node version
  });
});
