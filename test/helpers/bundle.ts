// One module of src/ bundled by esbuild into a single ES module, for a test to run in processes of its
// own (plain node, no vitest): kill -9 at any moment, many writers at once.
import { join } from 'node:path';
import { build } from 'esbuild';

/** Bundles src/`entry` (a path under src/) into `outfile`. */
export async function bundleSource(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(import.meta.dirname, '../../src', entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
  });
}
