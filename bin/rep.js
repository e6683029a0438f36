#!/usr/bin/env node
// Tiny shim: cache compiled bytecode across runs where Node supports it (22.1+, 20.x lacks it), then load the bundle.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/cli.js');
