// Bundles src/ into dist/ with esbuild, as CommonJS: Node loads a CommonJS file with far less work than
// an ES module (no ESM loader: no resolve, link and evaluate steps per file), and that work was most of
// rep's own start-up on Node 22 and 24. Everything but Node's built-ins is bundled, so the package
// installs with no dependencies.
// - dist/cli.cjs: the CLI (bin/rep.cjs requires it), in one file: rep's code, commander and chalk. A
//   module that a command imports lazily is in it too, but runs only when imported (esbuild's lazy init).
// - dist/lib/*.cjs: the LEAVES, what only some commands need, each in a file of its own that is read and
//   compiled only when first required: the HTTP client, the table and spinner libraries, conf, the sandbox,
//   and the commands and stores a cached audit never runs. A leaf that imports modules of the core gets
//   them from the bundle that loads it (see coreImports): one copy of each, so classes and state are shared.
// - dist/index.cjs: the library (src/index.ts), sharing dist/lib/ with the CLI; dist/index.js is its ES
//   module face for `import { createClient } from 'rep-cli'`, the same objects, so `instanceof` holds.
// dist/ also gets the library's .d.ts types (from tsc), the bundled packages' licence notices, and source
// maps of rep's own code only.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { createRequire, isBuiltin } from 'node:module';
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libraryDeclarations } from './declarations.mjs';
import { writeManPage } from './man.mjs';
import { pruneSourceMap } from './prune-source-maps.mjs';
import { bundledPackageDirs, thirdPartyNotices } from './third-party-notices.mjs';

/**
 * The leaves: each is bundled alone into dist/lib/<name>.cjs, and an import of one of its entries in rep's code (a lazy
 * `await import(...)`: test/startup.test.ts checks what each command loads) becomes a
 * require of that file. A leaf must not bundle a module of rep's that the CLI or library bundles too: that module
 * would then exist twice, with two copies of its classes and state (the build checks this).
 */
const LEAVES = [
  // undici, for requests through a proxy (EnvHttpProxyAgent): read only when one is set.
  { name: 'undici', entries: ['src/api/undici.ts'] },
  // The offline API server and its data set (`rep sandbox`, `--sandbox`).
  { name: 'sandbox', entries: ['src/sandbox/server.ts'] },
  // The line chart's drawing and sampling (`rep history --chart`, `rep report`).
  { name: 'chart', entries: ['src/chart/line-chart.ts'] },
  { name: 'cli-table3', entries: ['cli-table3'] },
  { name: 'ora', entries: ['ora'] },
  { name: 'conf', entries: ['conf'] },
  // The PostgreSQL driver (Postgres.js): read only when a store URL is set and the store is first used.
  { name: 'postgres', entries: ['postgres'] },
  // JMESPath, for --query only.
  { name: 'jmespath', entries: ['jmespath'] },
  // rep's own code that a cached audit never runs: the bundle is read, and its code cache entry
  // deserialised, on every run (~95 KB of the 283 KB bundle was such code; docs/performance.md). Each
  // takes the modules only it reaches; those it imports from the core come from the loading bundle.
  // (The team store stays in the bundle: as a leaf, a team store's cached audit, whose bar is nearer,
  // read one file more and ran its lookup: 4.8 M instructions more, against 0.36 M saved without a store.)
  // A batch (`audit --file`, several names) and its summary.
  { name: 'batch', entries: ['src/batch/run.ts'], takesCore: true },
  { name: 'batch-output', entries: ['src/output/batch.ts'], takesCore: true },
  // Commands other than the lookups, and the help topics.
  { name: 'history', entries: ['src/commands/history.ts'], takesCore: true },
  { name: 'report', entries: ['src/commands/report.ts'], takesCore: true },
  { name: 'status', entries: ['src/commands/status.ts'], takesCore: true },
  { name: 'login', entries: ['src/commands/login.ts'], takesCore: true },
  { name: 'completion', entries: ['src/commands/completion.ts'], takesCore: true },
  { name: 'help-topics', entries: ['src/help/topics.ts'], takesCore: true },
  // The commands seldom run, in one file (each command's exports under a key of its own).
  {
    name: 'commands',
    entries: [
      'src/commands/version.ts',
      'src/commands/logout.ts',
      'src/commands/sandbox.ts',
      'src/commands/cache.ts',
      'src/commands/cache-show.ts',
      'src/commands/history-prune.ts',
      'src/commands/history-import.ts',
    ],
    takesCore: true,
  },
  // Output that JSON does without: tables (a terminal's), --fields and --query.
  { name: 'table', entries: ['src/output/table-kit.ts', 'src/output/table.ts'], takesCore: true },
  { name: 'shaped', entries: ['src/output/shaped.ts', 'src/output/query.ts'], takesCore: true },
];

/**
 * Requires that bundled packages make at load but use only on paths rep never takes, made lazy (for
 * undici, which rep loads only for a proxy, they still speed up a proxied request; docs/performance.md):
 * - undici's Client requires its HTTP/2 half (and with it node:http2, tls and crypto), used only
 *   when a server negotiates h2, which rep never allows;
 * - undici requires node:http (its agent, client and server) for two things: the default
 *   maxHeaderSize (src/api/undici.ts gives its agent one, so it is asked for at most by a proxy's own
 *   connection) and telling an
 *   IncomingMessage apart when it destroys a stream (only an IncomingMessage's constructor is one once
 *   node:http is loaded by someone else);
 * - commander requires node:child_process (and with it net and dgram, on every command), used
 *   only to spawn executable subcommands, which rep has none of.
 * Each listed text must be in its file (else the build fails: the package changed).
 */
const DEFERRED = [
  {
    file: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    edits: [
      ["const connectH2 = require('./client-h2.js')", "const connectH2 = (...args) => require('./client-h2.js')(...args)"],
      ["const http = require('node:http')\n", ''],
      [
        `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
        `const getDefaultNodeMaxHeaderSize = () => {
  const { maxHeaderSize } = require('node:http')
  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
      ],
    ],
  },
  {
    file: /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    edits: [
      ["const { IncomingMessage } = require('node:http')\n", ''],
      [
        'if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {',
        "if (Object.getPrototypeOf(stream).constructor.name === 'IncomingMessage' && Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage) {",
      ],
    ],
  },
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    edits: [
      ["const childProcess = require('node:child_process');", "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"],
    ],
  },
];
/**
 * undici requires node:assert in 33 files, only to call assert(condition) on paths that hold:
 * it gets a function that requires node:assert to throw its AssertionError when one does not hold.
 */
const UNDICI_FILE = /[\\/]undici[\\/]lib[\\/].*\.js$/;
const EAGER_ASSERT = "const assert = require('node:assert')";
const LAZY_ASSERT = "const assert = (value, message) => { if (!value) require('node:assert')(value, message) }";
const deferRequires = {
  name: 'defer-requires',
  setup(build) {
    const filter = new RegExp([UNDICI_FILE, ...DEFERRED.map(({ file }) => file)].map(({ source }) => source).join('|'));
    build.onLoad({ filter }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      for (const [eager, lazy] of DEFERRED.find(({ file }) => file.test(args.path))?.edits ?? []) {
        if (!source.includes(eager)) throw new Error(`${args.path} no longer has "${eager.split('\n')[0]}": update DEFERRED in scripts/build.mjs`);
        source = source.replace(eager, lazy);
      }
      if (UNDICI_FILE.test(args.path)) source = source.replaceAll(EAGER_ASSERT, LAZY_ASSERT);
      return { contents: source, loader: 'js' };
    });
  },
};

/** Where esbuild's legalComments: 'eof' starts the licence comments of a bundle. */
const LICENCE_COMMENTS = '\n/*! Bundled license information:';
const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const dist = join(root, 'dist');

// `--if-changed` (the test suite's global setup): no build when dist/ is what this build would write:
// the same inputs and flags as the last build, and dist/ as that build left it. CI then builds once for
// its four Node lines, and a re-run of the tests without a change builds nothing.
const STAMP = join(root, '.cache', 'build-stamp.json');
const flags = process.argv.slice(2).filter((flag) => flag !== '--if-changed');
const inputs = await inputsDigest(flags);
if (process.argv.includes('--if-changed')) {
  const stamp = await readFile(STAMP, 'utf8').then(JSON.parse, () => undefined);
  if (stamp?.inputs === inputs && stamp.outputs === (await outputsDigest())) {
    console.error('dist/ is up to date');
    process.exit(0);
  }
}

/**
 * Imports of a leaf, from rep's code or another leaf, become a require of its dist/lib/ file (at run
 * time, from the importing file's folder), through a small module that gives the import the leaf's
 * exports as they are, `default` included. (esbuild would otherwise apply Node's rule for importing
 * CommonJS, default = the whole exports object, since rep's sources are ES modules of a "type": "module" package.)
 */
/** A module that exports what `path` exports, `default` included. */
const reExport = (path) => `export * from '${path}';\nexport { default } from '${path}';\n`;
/** A leaf's entry module: a package's exports, or what each of rep's modules in it exports. */
const leafEntry = (entries) => (entries[0].startsWith('src/') ? entries.map((entry) => `export * from './${entry}';\n`).join('') : reExport(entries[0]));
/** The entry module of a leaf of several modules that takes the core: each module's exports under its own key (they may share names). */
const namespacedEntry = (entries) => entries.map((entry, index) => `export * as ${entryKey(index)} from './${entry}';\n`).join('');
/** The key of a leaf's entry module in its exports, where the leaf has several (namespacedEntry). */
const entryKey = (index) => `entry${index}`;

const leafImports = (from, self = [], selfTakesCore = false) => ({
  name: 'leaf-imports',
  setup(build) {
    const inLeaf = self.length > 0;
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point' || args.namespace === 'leaf' || args.namespace === 'core-lookup') return undefined;
      const target = args.path.startsWith('.') ? relative(root, resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'))) : args.path;
      const leaf = LEAVES.find(({ entries }) => entries.includes(target) && !self.includes(target));
      if (!leaf) return undefined;
      const file = `${relative(from, join(dist, 'lib')) || '.'}/${leaf.name}.cjs`.replace(/^(?!\.)/, './');
      // A leaf of several modules that takes the core: one import module an entry (`file#key`), each taking its key.
      const key = leaf.takesCore && leaf.entries.length > 1 ? entryKey(leaf.entries.indexOf(target)) : undefined;
      return { path: key ? `${file}#${key}` : file, namespace: 'leaf', pluginData: { file, key, takesCore: leaf.takesCore === true } };
    });
    // Only the leaf's file is left to run time (the core's lookup, CORE_LOOKUP, is bundled).
    build.onResolve({ filter: LEAF_FILE, namespace: 'leaf' }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'leaf' }, (args) => {
      const { file, key, takesCore } = args.pluginData;
      if (!takesCore) return { contents: reExport(file), loader: 'js' };
      if (inLeaf && !selfTakesCore) throw new Error(`${self.join(', ')} imports ${file}, which takes the core: give its leaf takesCore too`);
      // A leaf that takes the core is given the loading bundle's lookup for it; from another such leaf, the one it was given.
      const lookup = inLeaf ? '__repCore' : `require(${JSON.stringify(`${CORE_LOOKUP}/${basename(file, '.cjs')}`)}).lookup`;
      return { contents: `module.exports = require(${JSON.stringify(file)})(${lookup})${key ? `.${key}` : ''};\n`, loader: 'js' };
    });
  },
});
/** A file of dist/lib/ as a leaf's import names it (`./lib/x.cjs` from the core, `./x.cjs` from another leaf). */
const LEAF_FILE = /^\.\/(lib\/)?[\w-]+\.cjs$/;
/** The core's lookups of its modules, one a leaf that takes the core (`rep:core-lookup/NAME`, coreLookup). */
const CORE_LOOKUP = 'rep:core-lookup';

/**
 * The leaf's side of a leaf that takes the core: an import of a module that the core bundles (`core`:
 * paths as esbuild's metafile writes them) becomes the loading bundle's copy, asked of the lookup its
 * file is called with (LEAF_FACTORY); `needs` gets each such module's id. The rest is bundled into the leaf.
 */
const coreImports = (core, needs) => ({
  name: 'core-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === 'core-imports' || args.namespace !== 'file') return undefined;
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'core-imports' });
      if (found.errors.length > 0 || found.external || found.namespace !== 'file') return undefined;
      const path = relative(root, found.path).replaceAll('\\', '/');
      if (!core.has(path)) return found;
      // A package the core bundles would be a second copy in the leaf, with its own state.
      if (!path.startsWith('src/'))
        throw new Error(`${args.importer} imports ${args.path}, which the core bundles: import it in the leaf through a module of rep's`);
      needs.add(path);
      return { path, namespace: 'core' };
    });
    build.onLoad({ filter: /.*/, namespace: 'core' }, (args) => ({ contents: `module.exports = __repCore(${JSON.stringify(args.path)});\n`, loader: 'js' }));
  },
});

/**
 * The core's side: a lookup for each leaf that takes the core (`rep:core-lookup/NAME`): a function from a
 * module's id to the bundle's copy of its exports, for the modules that leaf and the leaves it loads
 * ask for (`exported`: leaf name → id → names). It imports those names, and so runs those modules,
 * only when that leaf is first loaded: one lookup for every leaf would run every module any leaf asks
 * for (one of them compiles a Unicode property regex, 13 M instructions). It imports names, not
 * modules (a namespace object of each, made as the bundle starts, would cost every run), and gives the
 * leaf an object of their values, made when the leaf asks: the exports of rep's modules never change
 * once they have run (no `export let`: the build checks). Each lookup carries the bundle's `bundle`
 * object, by which a leaf keeps one instance a bundle (LEAF_FACTORY).
 */
const coreLookup = (exported) => ({
  name: 'core-lookup',
  setup(build) {
    build.onResolve({ filter: /^rep:core-lookup\// }, (args) => ({ path: args.path.slice(CORE_LOOKUP.length + 1), namespace: 'core-lookup' }));
    build.onResolve({ filter: /^rep:bundle$/ }, () => ({ path: 'bundle', namespace: 'core-lookup' }));
    build.onLoad({ filter: /.*/, namespace: 'core-lookup' }, (args) => {
      if (args.path === 'bundle') return { contents: 'export const BUNDLE = {};\n', loader: 'js' };
      const modules = exported.get(args.path) ?? new Map();
      const ids = [...modules.keys()].sort();
      const local = (index, name) => `m${index}_${name}`;
      const imports = ids.map(
        (id, index) =>
          `import { ${modules
            .get(id)
            .map((name) => `${name} as ${local(index, name)}`)
            .join(', ')} } from ${JSON.stringify(`./${id}`)};`,
      );
      const cases = ids.map(
        (id, index) =>
          `    case ${JSON.stringify(id)}: return { ${modules
            .get(id)
            .map((name) => `${name}: ${local(index, name)}`)
            .join(', ')} };`,
      );
      const lookup = `export function lookup(id) {\n  switch (id) {\n${cases.join('\n')}\n  }\n  throw new Error(\`rep's core has no module \${id} for a leaf\`);\n}\nlookup.bundle = BUNDLE;\n`;
      return { contents: `import { BUNDLE } from 'rep:bundle';\n${imports.join('\n')}\n${lookup}`, loader: 'js', resolveDir: root };
    });
  },
});
/**
 * A leaf that takes the core is a function of the lookup (it runs, strict, when first called), and
 * returns its exports; called again with the same lookup (from the core and from another leaf), the same ones.
 */
const LEAF_FACTORY = {
  banner: {
    js: 'var __repLeafMade = new WeakMap();\nmodule.exports = function (__repCore) {\n"use strict";\nif (__repLeafMade.has(__repCore.bundle)) return __repLeafMade.get(__repCore.bundle);\nvar module = { exports: {} }, exports = module.exports;',
  },
  footer: { js: '__repLeafMade.set(__repCore.bundle, module.exports);\nreturn module.exports;\n};' },
};

/**
 * Postgres.js 3.4.9, edited as it is bundled (each text must be in its file, else the build fails):
 * - it writes a small message on the next turn; a connection closed in between (the database stopped
 *   mid-batch) made that write throw outside any query and end the process (porsager/postgres#1208).
 *   The guard fails the connection's queries instead, as a closed one does;
 * - node:tls and node:crypto (some 25 of Node's modules) are required when first used: for sslmode
 *   and for password authentication, which a trusted or local connection does without;
 * - its clock is process.hrtime, not perf_hooks' performance (ten modules more) for one difference;
 * - Node's modules are required, not imported: esbuild makes an ES module's default import of a
 *   CommonJS module a copy of it (a getter defined for each of node:fs's ~100 names, and node:net's,
 *   node:stream's), 0.8 ms of a cached audit's CPU on Node 20; and node:os is required only for its
 *   user name, which rep always gives;
 * - a connection's first connect waits no timer: Postgres.js's `setTimeout(connect, 0)`, which Node
 *   makes at least 1 ms, left the loop idle until it fired (a reconnect still waits its backoff);
 * - its pool makes a connection (the object: sockets were already opened on demand) when a query finds
 *   none free, up to `max`, not all `max` of them as it starts: ten made at once were 0.5 ms and 200 KB
 *   of a cached audit's young generation, where one query needs one.
 */
const POSTGRES_EDITS = {
  'connection.js': [
    [
      '  function nextWrite(fn) {\n',
      "  function nextWrite(fn) {\n    if (!socket) { chunk = nextWriteTimer = null; error(Errors.connection('CONNECTION_CLOSED', options)); return false }\n",
    ],
    [
      '    setTimeout(connect, closedTime ? Math.max(0, closedTime + delay - performance.now()) : 0)\n',
      '    closedTime ? setTimeout(connect, Math.max(0, closedTime + delay - performance.now())) : setImmediate(connect)\n',
    ],
    ["import net from 'net'\n", "const net = require('node:net')\n"],
    ["import tls from 'tls'\n", "const tls = { connect: (...args) => require('node:tls').connect(...args) }\n"],
    ["import crypto from 'crypto'\n", "const crypto = new Proxy({}, { get: (_, name) => require('node:crypto')[name] })\n"],
    ["import Stream from 'stream'\n", "const Stream = require('node:stream')\n"],
    ["import { performance } from 'perf_hooks'\n", 'const performance = { now: () => { const [s, ns] = process.hrtime(); return s * 1e3 + ns / 1e6 } }\n'],
  ],
  'index.js': [
    ["import os from 'os'\n", "const os = { userInfo: () => require('node:os').userInfo() }\n"],
    ["import fs from 'fs'\n", "const fs = require('node:fs')\n"],
    [
      '  const connections = [...Array(options.max)].map(() => Connection(options, queues, { onopen, onend, onclose }))\n',
      '  const connections = []\n  const more = () => connections.length < options.max && connections.push(Connection(options, queues, { onopen, onend, onclose })) > 0\n',
    ],
    ['        closed.length && connect(closed.shift(), query)\n', '        if (closed.length || more()) connect(closed.shift(), query)\n'],
    [
      '    if (closed.length)\n      return connect(closed.shift(), query)\n',
      '    if (closed.length || more())\n      return connect(closed.shift(), query)\n',
    ],
  ],
  'large.js': [["import Stream from 'stream'\n", "const Stream = require('node:stream')\n"]],
};
const postgresEdits = {
  name: 'postgres-edits',
  setup(build) {
    build.onLoad({ filter: /[\\/]postgres[\\/](cjs[\\/])?src[\\/](connection|index|large)\.js$/ }, async (args) => {
      let text = await readFile(args.path, 'utf8');
      for (const [from, to] of POSTGRES_EDITS[basename(args.path)]) {
        if (!text.includes(from))
          throw new Error(`${args.path} no longer has "${from.trim()}": check POSTGRES_EDITS in scripts/build.mjs (porsager/postgres#1208 for the guard)`);
        text = text.replace(from, to);
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // `await import(x)` of a leaf becomes `Promise.resolve().then(() => require(x))`: no ESM loader at all.
  supported: { 'dynamic-import': false },
  sourcemap: 'linked',
  // Licence comments inside bundled files stay, at the end of their file; licence files go to NOTICES.
  legalComments: 'eof',
  minifyWhitespace: true,
  minifySyntax: true,
  // Characters past ASCII as escapes (esbuild's default, relied on: see the check below the build).
  charset: 'ascii',
  logLevel: 'warning',
  metafile: true,
  write: false,
  define: { __REP_VERSION__: JSON.stringify(version) },
};
/** The core: the CLI and the library, each with its own copy of rep's modules (they never load each other). */
const coreOptions = { ...common, outdir: 'dist', outExtension: { '.js': '.cjs' } };
const core = [
  // The CLI's bundle gets short names too: a third smaller, and less to read and run from the code
  // cache (fewer pages touched, fewer strings for V8 to make). Under --debug its stack traces point at
  // src/*.ts lines through the source map, which maps most function names back, not all (Node maps a
  // frame's name only where the map names a token at the function's start or the calling site). The
  // library keeps its names, for the stacks its users read. Error classes spell out their `name`.
  { ...coreOptions, entryPoints: { cli: 'src/cli.ts' }, minifyIdentifiers: true },
  // The library is not minified: Node prints the source line of an uncaught error's throw, which in a
  // minified file is a line of tens of kilobytes (its start-up matters less than the CLI's).
  { ...coreOptions, entryPoints: { index: 'src/index.ts' }, minifyWhitespace: false, minifySyntax: false },
];
const corePlugins = (exported) => [deferRequires, leafImports(dist), coreLookup(exported)];
// Three passes: what the core bundles (its modules, with every leaf left out), then the leaves (those
// that take the core get its modules from it), then the core, with a lookup for each such leaf.
const coreModules = new Set();
const corePass = await Promise.all(
  core.map((options) => build({ ...options, plugins: corePlugins(new Map()), sourcemap: false, minify: false, legalComments: 'none' })),
);
for (const { metafile } of corePass) for (const input of Object.keys(metafile.inputs)) coreModules.add(input);
/** A leaf's bundle: one that takes the core gets its modules from it (coreImports), and adds their ids to `needs`. */
const buildLeaf = ({ name, entries, takesCore }, needs) =>
  build({
    ...common,
    ...(entries.length === 1 && entries[0].startsWith('src/')
      ? { entryPoints: entries }
      : { stdin: { contents: (takesCore ? namespacedEntry : leafEntry)(entries), resolveDir: root, sourcefile: `${name}-leaf.js` } }),
    outfile: join('dist', 'lib', `${name}.cjs`),
    ...(takesCore ? LEAF_FACTORY : {}),
    plugins: [
      deferRequires,
      leafImports(join(dist, 'lib'), entries, takesCore === true),
      ...(takesCore ? [coreImports(coreModules, needs)] : []),
      ...(name === 'postgres' ? [postgresEdits] : []),
    ],
  });
const plainLeaves = Promise.all(LEAVES.filter(({ takesCore }) => !takesCore).map(async (leaf) => [leaf.name, await buildLeaf(leaf)]));
// A module of rep's that two leaves taking the core both import goes to the core, which gives it to both.
/** Each leaf that takes the core: the ids of the core's modules it asks for. */
let needs;
let coreTakers;
for (;;) {
  needs = new Map(LEAVES.filter(({ takesCore }) => takesCore).map(({ name }) => [name, new Set()]));
  coreTakers = await Promise.all(LEAVES.filter(({ takesCore }) => takesCore).map(async (leaf) => [leaf.name, await buildLeaf(leaf, needs.get(leaf.name))]));
  const seen = new Set();
  const shared = new Set();
  for (const [, { metafile }] of coreTakers) {
    for (const input of Object.keys(metafile.inputs).filter((input) => input.startsWith('src/'))) (seen.has(input) ? shared : seen).add(input);
  }
  if (shared.size === 0) break;
  for (const input of shared) coreModules.add(input);
}
/** Each leaf's bundle, by name. */
const leafBundles = new Map([...(await plainLeaves), ...coreTakers]);
/** The leaves a bundle's file imports (`lib/x.cjs` or `x.cjs`), by name. */
const leavesImported = ({ metafile }) =>
  Object.values(metafile.outputs).flatMap(({ imports }) =>
    imports.filter(({ path, external }) => external && LEAF_FILE.test(path)).map(({ path }) => basename(path, '.cjs')),
  );
/** The ids a leaf's lookup gives: what it asks for, and what each leaf it loads (itself, or through another) asks for. */
const lookupIds = (leaf) => {
  const given = new Set();
  const reached = new Set();
  for (let queue = [leaf]; queue.length > 0; ) {
    const name = queue.pop();
    if (reached.has(name)) continue;
    reached.add(name);
    for (const id of needs.get(name) ?? []) given.add(id);
    queue.push(...leavesImported(leafBundles.get(name)));
  }
  return given;
};
/** Each module's export names, as esbuild reads them (re-exports followed). */
const exportNames = async (ids) => {
  if (ids.size === 0) return new Map();
  // The lookup hands a leaf the values of a module's exports (coreLookup): one that could change later would go stale.
  for (const id of ids) {
    if (/^export\s+(let|var)\s/m.test(await readFile(join(root, id), 'utf8')))
      throw new Error(`${id} exports a variable a leaf would see only as it was when the leaf loaded: export a constant or a function`);
  }
  const { metafile } = await build({
    ...common,
    entryPoints: [...ids],
    format: 'esm',
    outdir: join(root, '.cache', 'export-names'),
    sourcemap: false,
    minify: false,
    packages: 'external',
    plugins: [leafImports(dist), coreLookup(new Map())],
  });
  return new Map(
    Object.values(metafile.outputs)
      .filter(({ entryPoint }) => entryPoint)
      .map(({ entryPoint, exports }) => [entryPoint, exports]),
  );
};
const names = await exportNames(new Set([...needs.values()].flatMap((ids) => [...ids])));
/** Each leaf that takes the core: its lookup's modules and their export names. */
const lookups = new Map([...needs.keys()].map((leaf) => [leaf, new Map([...lookupIds(leaf)].map((id) => [id, names.get(id)]))]));
const bundles = [...(await Promise.all(core.map((options) => build({ ...options, plugins: corePlugins(lookups) })))), ...leafBundles.values()];

// A bare import left in dist/ would need a package the tarball does not install. (`node:` names are
// Node's own even where this Node lacks them, like undici's lazy node:sqlite.)
const unbundled = new Set();
for (const { metafile } of bundles) {
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, external } of output.imports)
      if (external && !/^\.\.?\/(lib\/)?[\w-]+\.cjs$/.test(path) && !path.startsWith('node:') && !isBuiltin(path)) unbundled.add(path);
  }
}
if (unbundled.size > 0) throw new Error(`dist/ would import ${[...unbundled].join(', ')} at run time: bundle it (esbuild left it external)`);
// A module of rep's in a leaf and in another bundle would be two modules, each with its own classes and
// state. (The CLI and the library each have their copy of the core: they never load each other.)
const owner = new Map();
for (const [index, { metafile }] of bundles.entries()) {
  const [file] = Object.keys(metafile.outputs).filter((path) => path.endsWith('.cjs'));
  const side = index < core.length ? 'the core (dist/cli.cjs, dist/index.cjs)' : file;
  for (const input of Object.keys(metafile.inputs).filter((input) => input.startsWith('src/'))) {
    if (owner.has(input) && owner.get(input) !== side)
      throw new Error(`${input} is bundled into ${owner.get(input)} and into ${file} too: import it only from one side of a leaf`);
    owner.set(input, side);
  }
}

// bin/rep.cjs reads the bundles as latin1, the faster decoding, which equals utf8 only for ASCII:
// esbuild's charset writes other characters of the code as escapes, and only the licence comments at
// the end (legalComments) may hold some, where how they decode changes nothing. (The library,
// dist/index.cjs, is read by Node's require as utf8, and keeps its comments: it is not minified.)
for (const { outputFiles } of bundles) {
  for (const { path, text } of outputFiles) {
    const code = text.split(LICENCE_COMMENTS)[0];
    const at = path.endsWith('.cjs') && path !== join(dist, 'index.cjs') ? code.search(/[^\x00-\x7f]/) : -1;
    if (at >= 0) throw new Error(`${relative(root, path)} has code that is not ASCII at offset ${at}: bin/rep.cjs reads it as latin1`);
  }
}

// What a cached answer loads copies no module of Node's (esbuild's interop for an ES module's default
// import of one: a getter defined for each of its names; POSTGRES_EDITS).
for (const { outputFiles } of bundles) {
  for (const { path, text } of outputFiles.filter(({ path }) => [join(dist, 'cli.cjs'), join(dist, 'lib', 'postgres.cjs')].includes(path))) {
    const copied = /__toESM\(require\("([^".]+)"\)/.exec(text);
    if (copied) throw new Error(`${relative(root, path)} copies ${copied[1]} (an ES module's default import of it): require it instead`);
  }
}

const NOTICES = join(dist, 'THIRD_PARTY_NOTICES.txt');
const files = bundles.flatMap(({ outputFiles }) =>
  outputFiles.map(({ path, text }) => ({ path, text: path.endsWith('.map') ? `${JSON.stringify(pruneSourceMap(JSON.parse(text)))}\n` : text })),
);
const packageDirs = new Set(bundles.flatMap(({ metafile }) => bundledPackageDirs(metafile, root)));
files.push({ path: NOTICES, text: thirdPartyNotices([...packageDirs]) });
files.push({ path: join(dist, 'index.js'), text: esmFace(files.find(({ path }) => path === join(dist, 'index.cjs')).text) });
// Types take tsc seconds; `--no-types` (the test suite's build, which runs JavaScript only) skips them,
// and only them: the tarball test packs that build's dist/ with libraryDeclarations' files added, as
// the full build (prepack) would write it.
if (!process.argv.includes('--no-types')) files.push(...libraryDeclarations(root));
// Each file is replaced whole (write, then rename), so a concurrent run of the CLI never reads half a file.
for (const { path, text } of files) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.${process.pid}.tmp`, text);
  await rename(`${path}.${process.pid}.tmp`, path);
}

// The man page (package.json `man`), from the help of the CLI just built: it cannot drift from --help.
const MAN = join(dist, 'rep.1');
await writeManPage(join(root, 'bin', 'rep.cjs'), MAN, version);

// Remove files of earlier builds only after the new ones are written, so a concurrent run of the CLI
// never finds dist/ half-empty.
const built = new Set([...files.map(({ path }) => path), MAN]);
for (const entry of await readdir(dist, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath, entry.name);
  if (entry.isFile() && !built.has(file)) await rm(file, { force: true });
}
// and the folders that held only them (deepest first; rmdir refuses one that is not empty)
const folders = (await readdir(dist, { recursive: true, withFileTypes: true })).filter((entry) => entry.isDirectory());
for (const folder of folders.map((entry) => join(entry.parentPath, entry.name)).sort((a, b) => b.length - a.length)) {
  await rmdir(folder).catch((error) => {
    if (error.code !== 'ENOTEMPTY') throw error;
  });
}
await mkdir(dirname(STAMP), { recursive: true });
await writeFile(STAMP, `${JSON.stringify({ inputs, outputs: await outputsDigest() })}\n`);
console.error(`built ${built.size} files into ${relative(process.cwd(), dist) || 'dist'}`);

/** What a build reads: rep's sources, the build's scripts, the bin (the man page runs it), the manifests, what npm installed, and the flags. */
async function inputsDigest(flags) {
  const hash = createHash('sha256').update(`${flags.join(' ')}\n`);
  const files = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
  for (const folder of ['src', 'scripts', 'bin']) {
    for (const entry of await readdir(join(root, folder), { recursive: true, withFileTypes: true }))
      if (entry.isFile()) files.push(relative(root, join(entry.parentPath, entry.name)));
  }
  for (const file of files.sort()) hash.update(`${file}\n`).update(await readFile(join(root, file)).catch(() => '(none)'));
  return hash.digest('hex');
}

/** dist/ as it is: every file's path and bytes. */
async function outputsDigest() {
  const hash = createHash('sha256');
  const entries = await readdir(dist, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile()).map((entry) => relative(dist, join(entry.parentPath, entry.name)));
  for (const file of files.sort()) hash.update(`${file}\n`).update(await readFile(join(dist, file)));
  return hash.digest('hex');
}

/**
 * dist/index.js: the library as an ES module, re-exporting by name what dist/index.cjs exports (read by
 * loading that file here: the library does nothing on load), so there is one copy of every class.
 */
function esmFace(libraryCode) {
  const module = { exports: {} };
  new Function('module', 'exports', 'require', libraryCode)(module, module.exports, createRequire(join(dist, 'index.cjs')));
  const names = Object.keys(module.exports).filter((name) => name !== '__esModule' && name !== 'default');
  return [
    '// The library as an ES module: the same objects as ./index.cjs (one copy, so `instanceof` holds for both).',
    "import library from './index.cjs';",
    '',
    `export const { ${names.sort().join(', ')} } = library;`,
    '',
  ].join('\n');
}
