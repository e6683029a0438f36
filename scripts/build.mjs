// Bundles src/ into dist/ with esbuild: one entry (cli.js) and lazy chunks, one per command module,
// so `rep --version` loads only the CLI parser and each command loads only what it uses.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await rm(`${root}dist`, { recursive: true, force: true });
await build({
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
  logLevel: 'warning',
  // Several dependencies are CommonJS and call require(); give the ESM bundle a real one.
  banner: { js: "import { createRequire as __repCreateRequire } from 'node:module'; const require = __repCreateRequire(import.meta.url);" },
});
