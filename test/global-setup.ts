// End-to-end tests run the built CLI: build dist/ once before any test file runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // Without the .d.ts files (seconds of tsc): the tarball test packs, and packing builds them.
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-types'], { cwd: root, stdio: 'inherit' });
}
