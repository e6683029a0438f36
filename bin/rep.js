#!/usr/bin/env node
// Tiny shim: cache compiled bytecode across runs where Node supports it (22.1+, 20.x lacks it), then load the bundle.
import module from 'node:module';

module.enableCompileCache?.();
try {
  await import('../dist/cli.js');
} catch (error) {
  // The package always ships dist/; a clone has it only once built (npm ci no longer builds).
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !error.url?.startsWith(new URL('../dist/', import.meta.url).href)) throw error;
  process.stderr.write('rep: dist/ is not built in this checkout\nhint: run `npm run build` (`npm test` builds it too)\n');
  process.exitCode = 1;
}
