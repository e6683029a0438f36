// `npm test`'s steps before vitest, run at once: the type check, Biome, the layers (dependency-cruiser)
// and the build of dist/ that the end-to-end tests run (`--no-types --if-changed`, as vitest's global
// setup asks for it, which then finds dist/ up to date). tsc takes one core for seconds; the others fit
// beside it. Each step's output is printed whole when it ends; the exit code is the first failure's.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// npm's shims: a shell script, and on Windows a .cmd, which Node runs only through a shell.
const WINDOWS = process.platform === 'win32';
const bin = (name) => join(root, 'node_modules', '.bin', WINDOWS ? `${name}.cmd` : name);
const STEPS = [
  { name: 'tsc --noEmit', file: bin('tsc'), args: ['--noEmit'] },
  { name: 'biome check', file: bin('biome'), args: ['check'] },
  { name: 'layers', file: bin('depcruise'), args: ['src', '--config', '.dependency-cruiser.cjs'] },
  { name: 'build --no-types', file: process.execPath, args: ['scripts/build.mjs', '--no-types', '--if-changed'] },
];

const results = await Promise.all(
  STEPS.map(
    (step) =>
      new Promise((resolve) => {
        const shell = WINDOWS && step.file !== process.execPath;
        const child = spawn(shell ? `"${step.file}"` : step.file, step.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], shell });
        const output = [];
        child.stdout.on('data', (chunk) => output.push(chunk));
        child.stderr.on('data', (chunk) => output.push(chunk));
        // Once: a step that cannot start says 'error', and may say 'close' after it.
        let ended = false;
        const end = (code, said = '') => {
          if (ended) return;
          ended = true;
          const text = `${Buffer.concat(output).toString()}${said}`;
          process.stdout.write(`> ${step.name}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}`);
          resolve({ step, code });
        };
        child.on('error', (error) => end(1, `${error.message}\n`));
        child.on('close', (code, signal) => end(code ?? (signal ? 1 : 0)));
      }),
  ),
);
const failed = results.find((result) => result.code !== 0);
if (failed) {
  process.stderr.write(`npm test: ${failed.step.name} failed (exit ${failed.code})\n`);
  process.exitCode = failed.code;
}
