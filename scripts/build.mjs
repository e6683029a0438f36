// Bundles src/ into dist/ with esbuild: one entry (cli.js) and lazy chunks, one per command module,
// so `rep --version` loads only the CLI parser and each command loads only what it uses.
import { build } from 'esbuild';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * undici's Client requires its HTTP/2 half (and with it node:http2, tls and crypto, ~8 ms) at load,
 * but uses it only when a server negotiates h2, which rep never allows: require it on that call.
 */
const deferHttp2 = {
  name: 'defer-undici-http2',
  setup(build) {
    build.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, async (args) => {
      const eager = "const connectH2 = require('./client-h2.js')";
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(eager)) throw new Error(`${args.path} no longer has "${eager}": update defer-undici-http2 in scripts/build.mjs`);
      return { contents: source.replace(eager, "const connectH2 = (...args) => require('./client-h2.js')(...args)"), loader: 'js' };
    });
  },
};

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  metafile: true,
  plugins: [deferHttp2],
  define: { __REP_VERSION__: JSON.stringify(version) },
  // Several dependencies are CommonJS and call require(); give the ESM bundle a real one.
  banner: { js: "import { createRequire as __repCreateRequire } from 'node:module'; const require = __repCreateRequire(import.meta.url);" },
});

// Remove chunks of earlier builds only after the new ones are written, so a concurrent run of
// the CLI never finds dist/ half-empty.
const built = new Set(Object.keys(result.metafile.outputs).map((file) => join(root, file)));
for (const entry of await readdir(join(root, 'dist'), { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath, entry.name);
  if (entry.isFile() && !built.has(file)) await rm(file, { force: true });
}
console.error(`built ${built.size} files into ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);
