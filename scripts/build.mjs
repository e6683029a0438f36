// Bundles src/ into dist/ with esbuild: two entries, the CLI (cli.js) and the library (index.js, with
// its .d.ts types from tsc), and lazy chunks, one per command module, so `rep --version` loads only the
// CLI parser and each command loads only what it uses. Everything but Node's built-ins is bundled, so
// the package installs with no dependencies; dist/ also gets the bundled packages' licence notices,
// and source maps of rep's own code only.
import { build } from 'esbuild';
import { isBuiltin } from 'node:module';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libraryDeclarations } from './declarations.mjs';
import { pruneSourceMap } from './prune-source-maps.mjs';
import { bundledPackageDirs, thirdPartyNotices } from './third-party-notices.mjs';

/**
 * Requires that bundled packages make at load but use only on paths rep never takes, made lazy:
 * - undici's Client requires its HTTP/2 half (and with it node:http2, tls and crypto, ~8 ms), used only
 *   when a server negotiates h2, which rep never allows;
 * - commander requires node:child_process (and with it net and dgram, ~4 ms on every command), used
 *   only to spawn executable subcommands, which rep has none of.
 */
const DEFERRED = [
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    eager: "const connectH2 = require('./client-h2.js')",
    lazy: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
  },
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    eager: "const childProcess = require('node:child_process');",
    lazy: "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
];
const deferRequires = {
  name: 'defer-requires',
  setup(build) {
    for (const { file, eager, lazy } of DEFERRED) {
      build.onLoad({ filter: file }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes(eager)) throw new Error(`${args.path} no longer has "${eager}": update DEFERRED in scripts/build.mjs`);
        return { contents: source.replace(eager, lazy), loader: 'js' };
      });
    }
  },
};

/**
 * `import process from 'node:process'` in bundled packages (env-paths, chalk, ora, conf) goes through
 * Node's ESM facade of the process object, which reads all its properties once, process.stdin among
 * them: a stream made for nothing (~3 ms). They get the global instead; require() calls stay as they are.
 */
const processGlobal = {
  name: 'process-global',
  setup(build) {
    build.onResolve({ filter: /^(node:)?process$/ }, (args) =>
      args.kind === 'import-statement' ? { path: 'process', namespace: 'process-global' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'process-global' }, () => ({ contents: 'export default process;', loader: 'js' }));
  },
};

/**
 * `import { readFileSync } from 'node:fs'` goes through Node's ESM facade of the module, which reads
 * every export once, getters included: fs.promises (and with it readline), crypto.webcrypto, and so
 * on, about twenty of Node's own modules that no command needs (~5 ms a run). Imports of these
 * built-ins take the CommonJS module from process.getBuiltinModule instead, with the names listed
 * here (an import of a name missing from the list fails the build; none of them is a getter).
 */
const WITHOUT_FACADE = {
  fs: 'chmodSync closeSync constants createWriteStream existsSync fchmodSync fstatSync linkSync lstatSync mkdirSync openSync readdirSync readFileSync readSync realpathSync renameSync rmSync Stats statSync unlinkSync writeFileSync writeSync',
  crypto: 'createHash randomBytes randomUUID timingSafeEqual',
  os: 'homedir tmpdir EOL platform',
};
const builtinsWithoutFacade = {
  name: 'builtins-without-facade',
  setup(build) {
    const names = new RegExp(`^(node:)?(${Object.keys(WITHOUT_FACADE).join('|')})$`);
    build.onResolve({ filter: names }, (args) =>
      args.kind === 'import-statement' ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin-cjs' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
      contents: `const m = process.getBuiltinModule('node:${args.path}');\nexport default m;\nexport const { ${WITHOUT_FACADE[args.path].split(' ').join(', ')} } = m;\n`,
      loader: 'js',
    }));
  },
};

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts', 'src/index.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  // Licence comments inside bundled files stay, at the end of their chunk; licence files go to NOTICES.
  legalComments: 'eof',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  metafile: true,
  write: false,
  plugins: [deferRequires, processGlobal, builtinsWithoutFacade],
  define: { __REP_VERSION__: JSON.stringify(version) },
  // Several dependencies are CommonJS and call require(); give the ESM bundle a real one.
  banner: { js: "import { createRequire as __repCreateRequire } from 'node:module'; const require = __repCreateRequire(import.meta.url);" },
});

// A bare import left in dist/ would need a package the tarball does not install. (`node:` names are
// Node's own even where this Node lacks them, like undici's lazy node:sqlite.)
const unbundled = new Set();
for (const output of Object.values(result.metafile.outputs)) {
  for (const { path, external } of output.imports) if (external && !path.startsWith('node:') && !isBuiltin(path)) unbundled.add(path);
}
if (unbundled.size > 0) throw new Error(`dist/ would import ${[...unbundled].join(', ')} at run time: bundle it (esbuild left it external)`);

const NOTICES = join(root, 'dist', 'THIRD_PARTY_NOTICES.txt');
const files = result.outputFiles.map(({ path, text }) => ({
  path,
  text: path.endsWith('.map') ? `${JSON.stringify(pruneSourceMap(JSON.parse(text)))}\n` : text,
}));
files.push({ path: NOTICES, text: thirdPartyNotices(bundledPackageDirs(result.metafile, root)) });
// Types take tsc seconds; `--no-types` (the test suite's build, which runs JavaScript only) skips them.
if (!process.argv.includes('--no-types')) files.push(...libraryDeclarations(root));
// Each file is replaced whole (write, then rename), so a concurrent run of the CLI never reads half a chunk.
for (const { path, text } of files) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.${process.pid}.tmp`, text);
  await rename(`${path}.${process.pid}.tmp`, path);
}

// Remove chunks of earlier builds only after the new ones are written, so a concurrent run of
// the CLI never finds dist/ half-empty.
const built = new Set(files.map(({ path }) => path));
for (const entry of await readdir(join(root, 'dist'), { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath, entry.name);
  if (entry.isFile() && !built.has(file)) await rm(file, { force: true });
}
console.error(`built ${built.size} files into ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);
