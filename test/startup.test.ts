// Start-up stays cheap: the built CLI runs with a hook that records every file it loads, and each
// loaded file's source map says which packages it holds (x_bundled_packages, written by the build). `--help`, `--version` and `completion` must
// load no HTTP client, no conf, no spinner and no table library; a piped command no spinner or table.
// The same runs on every Node line found (this node, and those scripts/node-lines.sh installed in
// .cache/node-lines/, as `npm run bench` measures): a request without a proxy goes through Node's own
// HTTP client and loads no package; undici (bundled, for proxies) only when a proxy is set. Node 22+
// carries its own undici behind lazy web globals (fetch, Headers, node:http's WebSocket export…), which
// rep must never wake.
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, REP_BIN, runCli, type TempHome } from './helpers/cli.js';
import { writeLoadHooks } from './helpers/load-hooks.js';
import { buildProgram } from '../src/program.js';
import { repPaths } from '../src/config/paths.js';
import { startFaultServer } from './helpers/fault-server.js';
import { startProxy } from './helpers/proxy.js';
import { postgresAvailable, sharedPostgres, type PostgresCluster } from './helpers/postgres.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const HEAVY = ['undici', 'conf', 'ajv', 'ora', 'cli-table3', 'jmespath', 'postgres'] as const;
const NODE_OWN_UNDICI = 'internal/deps/undici/undici';

/**
 * This node and each line scripts/node-lines.sh installed, each once (the node running the suite may
 * be one of them). REP_TEST_NODE_LINES=self checks this node's alone: CI runs the suite on every line,
 * and each pass checks its own.
 */
function nodeLines(): string[] {
  if (process.env.REP_TEST_NODE_LINES === 'self') return [process.execPath];
  const dir = process.env.REP_NODE_LINES_DIR ?? join(import.meta.dirname, '..', '.cache', 'node-lines');
  const installed = existsSync(dir)
    ? readdirSync(dir)
        .map((line) => join(dir, line, 'bin', 'node'))
        .filter((node) => existsSync(node))
    : [];
  const self = realpathSync(process.execPath);
  return [process.execPath, ...installed.filter((node) => realpathSync(node) !== self)];
}

/** Node 22.1+ has a compile cache, which bin/rep.cjs turns on for `--version` (other runs use rep's own code cache). */
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
    const loaded = files.filter((file) => file.includes(`${sep}dist${sep}`)).map((file) => relative(DIST, file));
    expect(loaded).toEqual(['cli.cjs']);
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

  it("a piped command sends its request with Node's own client: no undici, conf, spinner or table library", async () => {
    const { code, packages, builtins } = await packagesLoaded(['--sandbox', 'pulse']);
    expect(code).toBe(0);
    expect(builtins.has('http')).toBe(true); // the recorder sees the client
    expect(heavyIn(packages)).toEqual([]);
  });

  it('a request through a proxy loads undici, and only then', async () => {
    // A remote host (loopback ones are never proxied); the proxy refuses the tunnel, which is enough.
    const proxy = await startProxy({ connectStatus: 502 });
    try {
      const env = { REP_BASE_URL: 'https://api.rep.test/api', REP_API_KEY: 'rk_test_startup_proxy_0123', HTTPS_PROXY: proxy.url };
      const { code, stderr, packages } = await packagesLoaded(['--retries', '0', 'pulse'], env);
      expect([code, stderr.split('\n')[0]]).toEqual([
        6,
        `rep: the proxy ${new URL(proxy.url).host} from HTTPS_PROXY answered 502 Bad Gateway to the tunnel to api.rep.test:443`,
      ]);
      expect(proxy.forwarded).toHaveLength(1);
      expect(heavyIn(packages)).toEqual(['undici']);
    } finally {
      await proxy.close();
    }
  });

  it('an answer from the cache loads no HTTP client (the miss before it does)', async () => {
    const api = await startFaultServer();
    try {
      api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
      const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_cache_0123' };
      const miss = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env);
      expect(miss.builtins.has('http')).toBe(true);
      const hit = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env);
      expect(hit.code).toBe(0);
      expect(api.count()).toBe(1);
      expect(heavyIn(hit.packages)).toEqual([]);
      expect(hit.builtins.has('http')).toBe(false);
      // The bundle alone: what only other commands run (batches, the team store, history, report…) is in dist/lib/.
      expect(hit.files.filter((file) => file.includes(`${sep}dist${sep}`)).map((file) => relative(DIST, file))).toEqual(['cli.cjs']);
    } finally {
      await api.close();
    }
  });

  it('the chart leaf loads only for a chart or a report', async () => {
    const history = join(home.dir, 'chart-history.jsonl');
    const point = { id: 'c1', at: '2026-01-01T00:00:00.000Z', base_url: 'http://127.0.0.1:9/api', query: 'acme', score: 70, sources: [] };
    writeFileSync(history, `${JSON.stringify(point)}\n${JSON.stringify({ ...point, id: 'c2', at: '2026-01-02T00:00:00.000Z', score: 72 })}\n`);
    const env = { REP_HISTORY_FILE: history, REP_BASE_URL: 'http://127.0.0.1:9/api' };
    const leaves = (files: string[]) => files.filter((file) => file.includes(`${sep}dist${sep}lib${sep}`)).map((file) => relative(DIST, file));
    const table = await packagesLoaded(['history', 'acme', '--format', 'csv'], env);
    expect(table.code).toBe(0);
    expect(leaves(table.files)).toEqual([join('lib', 'history.cjs')]);
    const chart = await packagesLoaded(['history', 'acme', '--chart'], env);
    expect(chart.code).toBe(0);
    expect(leaves(chart.files)).toEqual([join('lib', 'history.cjs'), join('lib', 'chart.cjs')]);
    const report = await packagesLoaded(['report', '--since', '2025-12-01'], env);
    expect(report.code).toBe(0);
    expect(leaves(report.files)).toEqual([join('lib', 'report.cjs'), join('lib', 'chart.cjs')]);
  });

  it('a command that fails before any request loads no HTTP client', async () => {
    const { code, packages } = await packagesLoaded(['pulse']);
    expect(code).toBe(4); // no base URL
    expect(heavyIn(packages)).toEqual([]);
  });
});

describe("bin/rep.cjs's code cache", () => {
  it("keys entries by program.ts's commands", () => {
    const listed = /const COMMANDS = \[([^\]]*)\]/.exec(readFileSync(REP_BIN, 'utf8'))?.[1] ?? '';
    const names = [...listed.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    const program = buildProgram(async () => {});
    expect(names.sort()).toEqual(program.commands.map((command) => command.name()).sort());
  });

  it("is in rep's cache dir, as src/config/paths.ts says, on every platform", () => {
    // Required, not run: the bin runs the CLI only as the main module.
    const { repCacheDir } = createRequire(import.meta.url)(REP_BIN) as { repCacheDir: (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => string };
    const environments: NodeJS.ProcessEnv[] = [
      { HOME: '/home/ana' },
      { HOME: '/home/ana', XDG_CACHE_HOME: '/var/cache/ana' },
      { HOME: '/home/ana', XDG_CACHE_HOME: 'relative/cache' },
      { HOME: '/home/ana', XDG_CACHE_HOME: '' },
      { HOME: '/home/ana', XDG_CONFIG_HOME: '/etc/ana', XDG_STATE_HOME: '/var/state', REP_CONFIG_DIR: '/tmp/rep-config' },
      { HOME: '/home/ana', LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local', USERPROFILE: 'C:\\Users\\ana' },
      { HOME: '/home/ana', USERPROFILE: 'C:\\Users\\ana' },
      { USERPROFILE: 'C:\\Users\\ana', APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' },
      {}, // no HOME: the account's home directory
    ];
    for (const platform of ['linux', 'darwin', 'win32', 'freebsd'] as const) {
      for (const env of environments) {
        expect({ platform, env, dir: repCacheDir(env, platform) }).toEqual({ platform, env, dir: repPaths(env, platform).cacheDir });
      }
    }
  });
});

describe.each(nodeLines())('on %s', (node) => {
  it("rep --sandbox pulse sends its request without waking Node's own undici or perf_hooks", async () => {
    const { code, stderr, builtins } = await packagesLoaded(['--sandbox', 'pulse', '--max-age', '0'], {}, node); // a request, not its cache
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(builtins.has('http')).toBe(true); // the recorder sees Node's modules
    expect(builtins.has(NODE_OWN_UNDICI)).toBe(false);
    expect(builtins.has('perf_hooks')).toBe(false);
  });

  it("a request without a proxy goes through Node's own client: no undici, no WebAssembly parser, no node:assert or node:v8", async () => {
    const api = await startFaultServer();
    try {
      api.always('/api/pulse', { body: { index: 70.1 } });
      const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_http_0123' };
      const { code, stderr, builtins, packages } = await packagesLoaded(['pulse'], env, node);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(api.count()).toBe(1);
      expect(builtins.has('http')).toBe(true); // the recorder sees the client's modules
      expect(heavyIn(packages)).toEqual([]);
      expect([NODE_OWN_UNDICI, 'assert', 'v8', 'https', 'tls'].filter((id) => builtins.has(id))).toEqual([]);
    } finally {
      await api.close();
    }
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
      // node:os is for a home the environment does not name, and the team store's machine id (~0.15 ms on Node 20).
      expect(['http', NODE_OWN_UNDICI, 'crypto', 'child_process', 'readline', 'fs/promises', 'os'].filter((id) => hit.builtins.has(id))).toEqual([]);
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

  it("writes stdout and stderr that are files, /dev/null or pipes without Node's stream modules, as a stream would write them", async () => {
    const api = await startFaultServer();
    const descriptors: number[] = [];
    // The load hooks start a worker, which loads streams itself: here, a preload that only lists Node's modules at exit.
    const recorder = join(home.dir, 'builtins.cjs');
    writeFileSync(recorder, "process.on('exit', () => require('node:fs').writeFileSync(process.env.REP_TEST_LOAD_LOG, process.moduleLoadList.join('\\n')));\n");
    /** Runs rep with stdout and stderr on files, on pipes, or stdout on a file and stderr on /dev/null: what each got, and Node's modules loaded. */
    const into = async (args: string[], env: Record<string, string>, target: 'files' | 'pipes' | 'stderr on /dev/null') => {
      const [out, err, log] = [join(home.dir, `out-${++runs}.txt`), join(home.dir, `err-${runs}.txt`), join(home.dir, `builtins-${runs}.txt`)];
      let output = {};
      if (target !== 'pipes') {
        const [stdoutFd, stderrFd] = [openSync(out, 'w'), openSync(target === 'files' ? err : '/dev/null', 'w')];
        descriptors.push(stdoutFd, stderrFd);
        output = { stdoutFd, stderrFd };
      }
      const run = await runCli([REP_BIN, ...args], {
        home,
        bin: node,
        env: { ...env, REP_TEST_LOAD_LOG: log, NODE_OPTIONS: `--require=${recorder}` },
        ...output,
      });
      const builtins = new Set(
        readFileSync(log, 'utf8')
          .split('\n')
          .map((entry) => entry.replace(/^NativeModule /, '')),
      );
      if (target === 'pipes') return { code: run.code, stdout: run.stdout, stderr: run.stderr, builtins };
      return { code: run.code, stdout: readFileSync(out, 'utf8'), stderr: target === 'files' ? readFileSync(err, 'utf8') : '', builtins };
    };
    try {
      api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
      const env = { REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_files_0123' };
      const miss = await into(['audit', 'Blue Bottle Coffee'], env, 'files');
      expect(miss).toMatchObject({ code: 0, stderr: '' });
      expect(miss.stdout).toContain('"name": "Blue Bottle Coffee"');
      // "just now" up to 5 s; a loaded machine can take longer over three runs.
      const cached = /^rep: cached answer from (just now|\d+ s ago) \(--max-age 0 to refresh\)\n$/;
      const hits = [await into(['audit', 'Blue Bottle Coffee'], env, 'files'), await into(['audit', 'Blue Bottle Coffee'], env, 'pipes')];
      for (const hit of hits) expect(hit).toMatchObject({ code: 0, stdout: miss.stdout, stderr: expect.stringMatching(cached) });
      const version = `${JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')).version}\n`;
      const versions = [await into(['--version'], {}, 'stderr on /dev/null'), await into(['--version'], {}, 'pipes')];
      for (const run of versions) expect(run).toMatchObject({ code: 0, stdout: version, stderr: '' });
      for (const run of [...hits, ...versions]) expect(['stream', 'internal/fs/sync_write_stream', 'net'].filter((id) => run.builtins.has(id))).toEqual([]);
      // A request's client needs streams anyway; the recorder sees them.
      expect(miss.builtins.has('stream')).toBe(true);
    } finally {
      for (const fd of descriptors) closeSync(fd);
      await api.close();
    }
  });

  it("keeps rep's code cache in code/ of rep's cache dir (0700), one entry a file and command, and reads it back", async () => {
    const cacheHome = join(home.dir, `cache-${++runs}`);
    const env = { XDG_CACHE_HOME: cacheHome };
    // Through a proxy (to a remote host: loopback ones are never proxied), so that a leaf of dist/lib/
    // (undici) has an entry too; the proxy refuses the tunnel, which is enough to load it.
    const proxy = await startProxy({ connectStatus: 502 });
    try {
      const apiEnv = { ...env, REP_BASE_URL: 'https://api.rep.test/api', REP_API_KEY: 'rk_test_startup_code_0123', REP_MAX_AGE: '0', HTTPS_PROXY: proxy.url };
      const first = await runCli([REP_BIN, '--retries', '0', 'pulse'], { home, bin: node, env: apiEnv });
      expect(first.code).toBe(6);
      const dir = join(cacheHome, 'rep', 'code');
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const entries = readdirSync(dir).sort();
      expect(entries.map((name) => name.split('-')[0])).toEqual(['cli.cjs', 'lib_undici.cjs']);
      for (const name of entries) {
        expect(name).toMatch(/-pulse-/);
        expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
      }
      const before = entries.map((name) => statSync(join(dir, name)).mtimeMs);
      const second = await runCli([REP_BIN, '--retries', '0', 'pulse'], { home, bin: node, env: apiEnv });
      expect(second).toMatchObject({ code: 6, stderr: first.stderr });
      // Read, accepted by V8 and so not written again.
      expect(readdirSync(dir).sort()).toEqual(entries);
      expect(entries.map((name) => statSync(join(dir, name)).mtimeMs)).toEqual(before);
      expect(proxy.forwarded.length).toBe(2); // each run sends its one request (no retries)
      // `--version`: Node's compile cache where Node has one (22.1+), in code/node; else an entry of rep's.
      expect((await runCli([REP_BIN, '--version'], { home, bin: node, env })).code).toBe(0);
      const added = readdirSync(dir).filter((name) => !entries.includes(name));
      expect(added).toEqual(hasCompileCache(node) ? ['node'] : [expect.stringMatching(/^cli\.cjs-version-/)]);
    } finally {
      await proxy.close();
    }
  });

  it("keeps a lean entry for runs answered from the cache apart from a sending run's, and makes it once", async () => {
    const cacheHome = join(home.dir, `cache-${++runs}`);
    const api = await startFaultServer();
    api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
    try {
      const env = { XDG_CACHE_HOME: cacheHome, REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_lean_0123' };
      const dir = join(cacheHome, 'rep', 'code');
      const audit = async (name: string) => expect((await runCli([REP_BIN, 'audit', name], { home, bin: node, env })).code).toBe(0);
      const bundleEntries = () =>
        readdirSync(dir)
          .filter((name) => name.startsWith('cli.cjs-'))
          .sort();
      const listing = () => bundleEntries().map((name) => name.replace(/^cli\.cjs-audit-.*?(-sent\.bin|\.bin|\.want)$/, '$1'));
      await audit('Blue Bottle Coffee'); // sends: the entry it makes holds the HTTP client too
      expect(listing()).toEqual(['-sent.bin']);
      await audit('Blue Bottle Coffee'); // from the cache, reading that entry: it asks the next run for a lean one
      expect(listing()).toEqual(['-sent.bin', '.want']);
      await audit('Blue Bottle Coffee'); // reads none, compiles as it goes, and writes it
      expect(listing()).toEqual(['-sent.bin', '.bin']);
      const [sentEntry, leanEntry] = bundleEntries();
      const lean = statSync(join(dir, leanEntry!));
      expect(lean.size).toBeLessThan(statSync(join(dir, sentEntry!)).size);
      // Later runs, answered from the cache or sending, read the lean entry and write nothing.
      await audit('Blue Bottle Coffee');
      await audit('Intelligentsia');
      expect(api.count()).toBe(2);
      expect(listing()).toEqual(['-sent.bin', '.bin']);
      const after = statSync(join(dir, leanEntry!));
      expect([after.ino, after.mtimeMs]).toEqual([lean.ino, lean.mtimeMs]);
    } finally {
      await api.close();
    }
  });

  it("a batch, which tunes V8's heap as it runs, leaves an entry that later runs accept", async () => {
    const cacheHome = join(home.dir, `cache-${++runs}`);
    const api = await startFaultServer();
    api.always('/api/audit', { body: { name: 'x', score: 80 } });
    try {
      const env = { XDG_CACHE_HOME: cacheHome, REP_BASE_URL: api.baseUrl.href, REP_API_KEY: 'rk_test_startup_batch_0123', REP_MAX_AGE: '0' };
      const batch = [REP_BIN, 'audit', 'Alpha', 'Beta', 'Gamma', '--format', 'ndjson'];
      expect(await runCli(batch, { home, bin: node, env })).toMatchObject({ code: 0, stderr: '3 names: 3 audited\n' });
      const dir = join(cacheHome, 'rep', 'code');
      // The bundle's entry, and those of the batch's leaves (dist/lib/batch.cjs, batch-output.cjs).
      const entries = () => readdirSync(dir).map((name) => ({ name, ...pick(statSync(join(dir, name))) }));
      const pick = ({ ino, mtimeMs }: { ino: number; mtimeMs: number }) => ({ ino, mtimeMs });
      const first = entries();
      expect(first.map(({ name }) => name.slice(0, name.indexOf('.cjs') + 4)).sort()).toEqual(['cli.cjs', 'lib_batch-output.cjs', 'lib_batch.cjs']);
      // V8 stamps an entry with its flags: made under the batch's heap flag, every later run refused it and wrote it again.
      expect((await runCli(batch, { home, bin: node, env })).code).toBe(0);
      expect((await runCli([REP_BIN, 'audit', 'Alpha'], { home, bin: node, env })).code).toBe(0);
      expect(entries()).toEqual(first);
      // The table's leaves (dist/lib/table.cjs, cli-table3.cjs) are first run after the heap is tuned: they keep no entry.
      const tableBatch = [REP_BIN, 'audit', 'Alpha', 'Beta', 'Gamma', '--format', 'table'];
      for (let run = 0; run < 2; run++) expect((await runCli(tableBatch, { home, bin: node, env })).code).toBe(0);
      expect(entries()).toEqual(first);
    } finally {
      await api.close();
    }
  });

  it('--sandbox writes no code cache (only its own store, in sandbox/)', async () => {
    const cacheHome = join(home.dir, `cache-${++runs}`);
    const run = await runCli([REP_BIN, '--sandbox', 'pulse'], { home, bin: node, env: { XDG_CACHE_HOME: cacheHome } });
    expect(run.code).toBe(0);
    expect(readdirSync(cacheHome)).toEqual(['rep']);
    expect(readdirSync(join(cacheHome, 'rep'))).toEqual(['sandbox']);
  });

  it('writes an entry V8 rejects again, runs as well with it, and removes entries not written for 30 days', async () => {
    const cacheHome = join(home.dir, `cache-${++runs}`);
    const env = { XDG_CACHE_HOME: cacheHome };
    expect((await runCli([REP_BIN, '--help'], { home, bin: node, env })).code).toBe(0);
    const dir = join(cacheHome, 'rep', 'code');
    const [entry] = readdirSync(dir);
    writeFileSync(join(dir, entry!), 'not a code cache');
    // Entries of an older rep: those not written for 30 days go when an entry is written.
    const old = Date.now() / 1000 - 31 * 24 * 60 * 60;
    for (const name of ['cli.cjs-audit-1.0.0-1-1.bin', 'cli.cjs-audit-1.0.0-1-1.bin.99.tmp', 'cli.cjs-pulse-1.0.0-2-2.bin']) writeFileSync(join(dir, name), '');
    for (const name of ['cli.cjs-audit-1.0.0-1-1.bin', 'cli.cjs-audit-1.0.0-1-1.bin.99.tmp']) utimesSync(join(dir, name), old, old);
    const run = await runCli([REP_BIN, '--help'], { home, bin: node, env });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: rep /);
    expect(readFileSync(join(dir, entry!), 'utf8')).not.toBe('not a code cache');
    expect(readdirSync(dir).sort()).toEqual(['cli.cjs-pulse-1.0.0-2-2.bin', entry!].sort());
  });

  it.skipIf(process.getuid === undefined)(
    'uses no code cache directory that others can write to, and writes none with NODE_DISABLE_COMPILE_CACHE',
    async () => {
      const cacheHome = join(home.dir, `cache-${++runs}`);
      const dir = join(cacheHome, 'rep', 'code');
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777);
      const open = await runCli([REP_BIN, '--help'], { home, bin: node, env: { XDG_CACHE_HOME: cacheHome } });
      expect(open.code).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
      const off = join(home.dir, `cache-${++runs}`);
      const disabled = await runCli([REP_BIN, '--help'], { home, bin: node, env: { XDG_CACHE_HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' } });
      expect(disabled.code).toBe(0);
      expect(existsSync(off)).toBe(false);
    },
  );
});

describe.skipIf(!postgresAvailable())('with a PostgreSQL store', () => {
  let cluster: PostgresCluster | undefined;
  afterAll(() => cluster?.cleanup());

  it('an answer from the shared cache over a trusted socket loads the driver, but no node:tls, node:crypto or perf_hooks', async () => {
    cluster = await sharedPostgres();
    const database = await cluster.createDatabase();
    const api = await startFaultServer();
    try {
      api.always('/api/audit', { body: { name: 'Blue Bottle Coffee', score: 4.4 } });
      const env = {
        REP_BASE_URL: api.baseUrl.href,
        REP_API_KEY: 'rk_test_startup_store_0123',
        REP_STORE: `postgres:///${database}?host=${cluster.socketDir}&port=${cluster.port}&user=postgres`,
      };
      expect((await packagesLoaded(['audit', 'Blue Bottle Coffee'], env)).code).toBe(0);
      const hit = await packagesLoaded(['audit', 'Blue Bottle Coffee'], env);
      expect([hit.code, hit.stderr]).toEqual([0, expect.stringMatching(/^rep: cached answer from/)]);
      expect(api.count()).toBe(1);
      expect(heavyIn(hit.packages)).toEqual(['postgres']);
      // The team store's code is in the bundle; its driver is a leaf.
      expect(hit.files.filter((file) => file.includes(`${sep}dist${sep}`)).map((file) => relative(DIST, file))).toEqual([
        'cli.cjs',
        join('lib', 'postgres.cjs'),
      ]);
      expect(hit.builtins.has('net')).toBe(true); // the recorder sees the driver's modules
      // node:tls and node:crypto (~25 of Node's modules) serve TLS and passwords; perf_hooks (~10) one clock reading.
      expect(['tls', 'crypto', 'perf_hooks'].filter((id) => hit.builtins.has(id))).toEqual([]);
    } finally {
      await api.close();
    }
  }, 60_000);

  it("a leaf's error is the bundle's class: a team store the history cannot read is exit 8, told once", async () => {
    cluster ??= await sharedPostgres();
    const env = { REP_STORE: `postgres:///no_such_database?host=${cluster.socketDir}&port=${cluster.port}&user=postgres` };
    // The history command is a leaf: the StoreError the store throws must be the class the leaf was
    // given, the bundle's own, which the command rethrows (exit 8) and the report tells once.
    const { code, stderr, files } = await packagesLoaded(['history', 'acme'], env);
    expect([code, stderr]).toEqual([8, expect.stringMatching(/^rep: [^\n]*no_such_database[^\n]*\n(hint: [^\n]*\n)?$/)]);
    expect(files.filter((file) => file.includes(`${sep}dist${sep}lib${sep}`)).map((file) => relative(DIST, file))).toEqual([
      join('lib', 'history.cjs'),
      join('lib', 'postgres.cjs'),
    ]);
  }, 60_000);
});
