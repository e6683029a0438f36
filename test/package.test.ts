// The package as a user gets it: `npm pack` of a copy of this checkout, then `npm install -g` of the
// tarball into a temp prefix, offline: nothing to download, nothing run, no warnings, and the installed
// `rep` works. The copy's dist/ is what prepack's full build (`node scripts/build.mjs`) writes, without
// building it again (seconds of CPU): the global setup's build of this checkout (`--no-types`, the same
// JavaScript and man page, finished before any test file runs) and the types the full build adds,
// emitted from the copy's sources by the build's own libraryDeclarations. So `npm pack` skips prepack,
// and a test checks that prepack is that full build and that the tarball holds what it writes.
// Two fresh projects, an ES module one and a CommonJS one, use that install (packed and installed once
// a run: npm takes its time) and import the library with strict TypeScript types. npm gets an empty
// user config and a temp cache, so the machine's own npm settings neither leak in nor get touched.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type TypeScript from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libraryDeclarations } from '../scripts/declarations.mjs';
import { startSandbox } from '../src/sandbox/server.js';
import { makeTempHome, runCli } from './helpers/cli.js';

// Required, not imported, as scripts/declarations.mjs does (the one load they share): an import of it
// scans all its megabytes for the names it exports first.
const ts: typeof TypeScript = createRequire(import.meta.url)('typescript');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** What a fresh clone does not have: installed or built files, caches, VCS data. */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', '.git', '.cache', 'coverage']);

/** Whether a checkout's file is one a fresh clone has: git's list where there is one (which leaves out ignored files, like a mutation run's .stryker-tmp/ or packed tarballs), else all but NOT_IN_A_CLONE. */
function inAClone(): (path: string) => boolean {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  const files = listed.status === 0 ? new Set(listed.stdout.split('\0').filter(Boolean)) : undefined;
  const folders = new Set(
    [...(files ?? [])].flatMap((file) =>
      file
        .split('/')
        .slice(0, -1)
        .map((_, at, parts) => parts.slice(0, at + 1).join('/')),
    ),
  );
  return (path) => !NOT_IN_A_CLONE.has(path.split('/')[0] ?? '') && (files === undefined || path === '' || files.has(path) || folders.has(path));
}

interface NpmResult {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let npmEnv: Record<string, string>;
let packed: { filename: string; files: Array<{ path: string }> };
/** The files of the global setup's build (`dist/…`, as in the package), and the declarations added to them. */
let built: string[];
let declarations: Array<{ path: string; text: string }>;
let install: NpmResult;
let installed: string;

function npm(args: string[], cwd: string): Promise<NpmResult> {
  return run('npm', args, cwd);
}

function run(file: string, args: string[], cwd: string, env: Record<string, string> = npmEnv): Promise<NpmResult> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rep-package-'));
  writeFileSync(join(dir, 'npmrc'), '');
  npmEnv = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    npm_config_userconfig: join(dir, 'npmrc'),
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  const project = join(dir, 'project');
  const copied = inAClone();
  cpSync(ROOT, project, { recursive: true, filter: (source) => copied(relative(ROOT, source)) });
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
  cpSync(join(ROOT, 'dist'), join(project, 'dist'), { recursive: true });
  built = readdirSync(join(project, 'dist'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(project, join(entry.parentPath, entry.name)));
  // Here, where TypeScript is loaded already (a `node scripts/build.mjs` would load it again).
  declarations = libraryDeclarations(project);
  for (const { path, text } of declarations) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }

  const pack = await npm(['pack', '--ignore-scripts', '--offline', '--json', '--pack-destination', dir], project);
  expect(pack.stderr).not.toMatch(/npm warn/i);
  expect(pack.code).toBe(0);
  [packed] = JSON.parse(pack.stdout) as [typeof packed];
  install = await npm(['install', '--global', '--offline', '--prefix', join(dir, 'prefix'), join(dir, packed.filename)], dir);
  installed = join(dir, 'prefix', 'lib', 'node_modules', 'rep-cli');
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('installs alone, offline, running nothing and printing no warning', () => {
    expect(`${install.stdout}${install.stderr}`).not.toMatch(/npm warn/i);
    expect(install.code).toBe(0);
    expect(install.stdout).toMatch(/^added 1 package\b/m);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: object; scripts?: Record<string, string> };
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
  });

  it('runs from the installed bin: --version and a sandbox request', async () => {
    const home = makeTempHome();
    const bin = join(dir, 'prefix', 'bin', 'rep');
    const versionRun = await runCli(['--version'], { home, bin });
    expect(versionRun).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const pulse = await runCli(['--sandbox', 'pulse', '--json'], { home, bin });
    expect(pulse.stderr).toBe('');
    expect(pulse.code).toBe(0);
    expect(JSON.parse(pulse.stdout)).toMatchObject({ index: expect.any(Number) });
  });

  it("is what prepack builds in a clone: the full build's JavaScript and man page, and its types", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // The full build, which writes what the global setup's `--no-types` build wrote, and the declarations.
    expect(scripts.prepack).toBe('node scripts/build.mjs');
    const inDist = packed.files.map((file) => file.path).filter((path) => path.startsWith('dist/'));
    expect(inDist.sort()).toEqual([...built, ...declarations.map(({ path }) => relative(join(dir, 'project'), path))].sort());
    for (const file of built) expect(readFileSync(join(installed, file)).equals(readFileSync(join(ROOT, file))), file).toBe(true);
    for (const { path, text } of declarations) expect(readFileSync(join(installed, relative(join(dir, 'project'), path)), 'utf8')).toBe(text);
  });

  it('carries the MIT licence and the notices of every bundled package, and no sources or build scripts', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/rep.cjs',
        'dist/cli.cjs',
        'dist/index.cjs',
        'dist/index.js',
        'dist/lib/undici.cjs',
        'dist/index.d.ts',
        'dist/THIRD_PARTY_NOTICES.txt',
      ]),
    );
    expect(paths.filter((path) => !/^(bin|dist)\//.test(path)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} rep contributors\n/);

    const notices = readFileSync(join(installed, 'dist', 'THIRD_PARTY_NOTICES.txt'), 'utf8');
    const bundled = new Set(mapsOf(installed).flatMap((map) => map.x_bundled_packages));
    expect([...bundled]).toEqual(expect.arrayContaining(['undici', 'commander', 'conf', 'ora', 'cli-table3', 'chalk']));
    for (const name of bundled) expect(notices, name).toMatch(new RegExp(`^${name.replace(/[/.]/g, '\\$&')} \\d+\\.\\d+\\.\\d+ \\(`, 'm'));
  });

  it("has source maps of rep's own code only, and imports no package at run time", () => {
    const maps = mapsOf(installed);
    const sources = maps.flatMap((map) => map.sources);
    expect(sources.filter((source) => source.includes('node_modules'))).toEqual([]);
    expect(sources).toContain('../src/cli.ts');
    for (const map of maps) expect(map.sourcesContent?.length ?? 0).toBe(map.sources.length);

    const bare = new Set<string>();
    for (const file of readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((name) => /\.c?js$/.test(name))) {
      const code = readFileSync(join(installed, 'dist', file), 'utf8');
      // esbuild's forms: `from"x"`, `import"x"`, `import("x")`, and `require("x")` (`__require` where it wraps
      // one); not a require quoted in a string, like the code ajv writes for standalone validators, nor
      // the word in a string (`"history import"`).
      for (const [, specifier = ''] of code.matchAll(/(?:\bfrom\s*|(?<![ '"`])\bimport\s*|\bimport\(\s*|(?<!['"`])\b(?:__)?require\(\s*)["']([^"'\s]+)["']/g)) {
        if (!/^(\.|\/|node:)/.test(specifier) && !isBuiltin(specifier)) bare.add(`${file}: ${specifier}`);
      }
    }
    expect([...bare]).toEqual([]);
  });
});

// A script in a fresh project: type-checked strictly against the shipped .d.ts files, then run as its
// .mjs twin (the same code with the types stripped) against a sandbox. It may not use Node's typings:
// the project has none, and the package's types must not need them.
const SCRIPT = `import { createClient, NotFoundError, RepError, type RepResult, type AuditView } from 'rep-cli';

export async function main(baseUrl: string, apiKey: string): Promise<string> {
  const rep = createClient({ baseUrl, apiKey, timeout: 10, retries: 0, hooks: { onRetry: ({ attempt }) => void attempt } });
  const r: RepResult<AuditView> = await rep.audit('Кофейня Ромашка');
  const s: number | undefined = r.view.score;
  // @ts-expect-error the score is a number, so typed views catch this
  const wrong: string = r.view.score;
  const groups: string[] = (await rep.search('coffee')).view.groups.map((group) => group.type);
  const index: number | undefined = (await rep.pulse()).view.index;
  let exitCode = 0;
  try {
    await rep.audit('No Such Company Anywhere');
  } catch (e) {
    if (e instanceof RepError) exitCode = e.exitCode;
    if (e instanceof NotFoundError) exitCode += 100;
  }
  return JSON.stringify({ score: s, wrong, body: r.body, groups, index, remaining: r.rateLimit.remaining, exitCode });
}
`;

/** A fresh project with `manifest` as its package.json and the installed package in its node_modules. */
function consumer(name: string, manifest: object): string {
  const project = join(dir, name);
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest));
  symlinkSync(installed, join(project, 'node_modules', 'rep-cli'));
  return project;
}

describe('the library from the tarball', () => {
  let esm: string;
  let cjs: string;
  const nodeEnv = () => ({ PATH: npmEnv.PATH ?? '' });

  beforeAll(() => {
    esm = consumer('esm', { name: 'esm', private: true, type: 'module' });
    // What `npm init -y` writes: no "type", so .ts files are CommonJS under node16 resolution.
    cjs = consumer('cjs', { name: 'cjs', version: '1.0.0', main: 'index.js', license: 'ISC' });
    for (const project of [esm, cjs]) writeFileSync(join(project, 'main.ts'), SCRIPT);
    const twin = (module: TypeScript.ModuleKind) => ts.transpileModule(SCRIPT, { compilerOptions: { module, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(esm, 'main.mjs'), `${twin(ts.ModuleKind.ESNext)}\nprocess.stdout.write(await main(...process.argv.slice(2)));\n`);
    writeFileSync(join(cjs, 'main.cjs'), `${twin(ts.ModuleKind.CommonJS)}\nmain(...process.argv.slice(2)).then((said) => process.stdout.write(said));\n`);
  });

  it('is the same library to require() as to import: one copy of each class', async () => {
    const both = `const required = require('rep-cli');
import('rep-cli').then((imported) => {
  const names = Object.keys(imported).sort();
  process.stdout.write(JSON.stringify({ names, same: names.every((name) => imported[name] === required[name]) }));
});
`;
    writeFileSync(join(cjs, 'both.cjs'), both);
    const result = await run(process.execPath, ['both.cjs'], cjs, nodeEnv());
    expect(result.stderr).toBe('');
    const said = JSON.parse(result.stdout) as { names: string[]; same: boolean };
    expect(said.names).toEqual(expect.arrayContaining(['createClient', 'RepError', 'NotFoundError', 'auditView']));
    expect(said.same).toBe(true);
  });

  it('type-checks a strict TypeScript import of createClient and RepError, from an ES module and a CommonJS project', async () => {
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    // One tsc run for both: each file's module system comes from its own project's package.json. The
    // package's .d.ts files are checked (no skipLibCheck); TypeScript's own lib files are not (two thirds of tsc's time).
    const args = [
      '--strict',
      '--noEmit',
      '--skipDefaultLibCheck',
      '--module',
      'node16',
      '--moduleResolution',
      'node16',
      join(esm, 'main.ts'),
      join(cjs, 'main.ts'),
    ];
    const checked = await run(tsc, args, dir);
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.code).toBe(0);
  });

  it('runs against a sandbox, imported and required alike: body, view, rate limit, and a RepError with its exit code', async () => {
    for (const [project, script] of [
      [esm, 'main.mjs'],
      [cjs, 'main.cjs'],
    ] as const) {
      const sandbox = await startSandbox({ port: 0 });
      try {
        const result = await run(process.execPath, [script, sandbox.url, sandbox.key], project, nodeEnv());
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const said = JSON.parse(result.stdout) as {
          score: number;
          wrong: unknown;
          body: { score: number };
          groups: string[];
          index: number;
          remaining: number;
          exitCode: number;
        };
        expect(said.score).toBe(said.body.score);
        expect(said.wrong).toBe(said.score);
        expect(said.groups).toContain('company');
        expect(said.index).toEqual(expect.any(Number));
        expect(said.remaining).toBe(99);
        expect(said.exitCode).toBe(103);
      } finally {
        await sandbox.close();
      }
    }
  });

  it("an uncaught library error prints a short stderr: Node's source line of the throw is one readable line", async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      writeFileSync(join(cjs, 'throws.cjs'), "require('rep-cli').createClient({ baseUrl: 'http://example.com/api', apiKey: 'rk_x' });\n");
      writeFileSync(
        join(esm, 'rejects.mjs'),
        "import { createClient } from 'rep-cli';\nawait createClient({ baseUrl: process.argv[2], apiKey: process.argv[3], retries: 0 }).audit('No Such Company Anywhere');\n",
      );
      const thrown = await run(process.execPath, ['throws.cjs'], cjs, nodeEnv());
      const rejected = await run(process.execPath, ['rejects.mjs', sandbox.url, sandbox.key], esm, nodeEnv());
      for (const [result, error] of [
        [thrown, 'UsageError: refusing the plain http:// base URL'],
        [rejected, 'NotFoundError: '],
      ] as const) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(error);
        expect(result.stderr).toMatch(/rep-cli[/\\]dist[/\\]index\.c?js:\d+\n/);
        expect(result.stderr.length).toBeLessThan(3000);
        expect(Math.max(...result.stderr.split('\n').map((line) => line.length))).toBeLessThan(200);
      }
      // and so for any throw: no line of the library is long
      const library = readFileSync(join(installed, 'dist', 'index.cjs'), 'utf8').split('\n');
      expect(Math.max(...library.map((line) => line.length))).toBeLessThan(300);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the checkout', () => {
  it('says how to build when dist/ is missing, instead of a module-not-found stack', async () => {
    const clone = join(dir, 'unbuilt');
    cpSync(join(ROOT, 'bin'), join(clone, 'bin'), { recursive: true });
    const result = await runCli(['--version'], { home: makeTempHome(), bin: join(clone, 'bin', 'rep.cjs') });
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'rep: dist/ is not built in this checkout\nhint: run `npm run build` (`npm test` builds it too)\n',
    });
  });

  it('leaves no dependency install script unreviewed, so `npm ci` does not warn about one', async () => {
    const pending = await npm(['install-scripts', 'ls', '--json'], ROOT);
    expect(pending.code).toBe(0);
    expect(JSON.parse(pending.stdout)).toEqual({ allowScripts: [] });
  });
});

interface SourceMapFile {
  sources: string[];
  sourcesContent?: string[];
  x_bundled_packages: string[];
}

function mapsOf(packageDir: string): SourceMapFile[] {
  const dist = join(packageDir, 'dist');
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.map'))
    .map((name) => JSON.parse(readFileSync(join(dist, name), 'utf8')) as SourceMapFile);
}
