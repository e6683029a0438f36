// One module of src/ bundled by esbuild into a single ES module, and a worker script beside it that
// imports it, for a test to run in processes of its own (plain node, no vitest): kill -9 at any
// moment, many writers at once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export interface BundledWorker {
  /** The worker script's path: run it with `node`. */
  worker: string;
  /** Removes the folder of the bundle and the worker. */
  remove(): void;
}

/**
 * Bundles src/`entry` into a temp folder and writes the worker there: `source` gets the bundle's
 * file URL to import (`await import(${JSON.stringify(url)})`).
 */
export async function bundleWorker(entry: string, source: (bundleUrl: string) => string): Promise<BundledWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'rep-bundle-'));
  const bundle = join(dir, 'bundle.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src', entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'warning',
  });
  const worker = join(dir, 'worker.mjs');
  writeFileSync(worker, source(pathToFileURL(bundle).href));
  return { worker, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
