#!/usr/bin/env node
// Tiny shim: cache compiled code across runs where Node supports it (22.1+; 20.x lacks it), then run the
// CLI's bundle. CommonJS, like the bundle: Node starts no ES module loader for rep (see scripts/build.mjs).
'use strict';
const { enableCompileCache } = require('node:module');
const { join } = require('node:path');

enableCompileCache?.();
const cli = join(__dirname, '..', 'dist', 'cli.cjs');
try {
  require(cli);
} catch (error) {
  // The package always ships dist/; a clone has it only once built (npm ci does not build).
  if (error?.code !== 'MODULE_NOT_FOUND' || !error.message.includes(cli)) throw error;
  process.stderr.write('rep: dist/ is not built in this checkout\nhint: run `npm run build` (`npm test` builds it too)\n');
  process.exitCode = 1;
}
