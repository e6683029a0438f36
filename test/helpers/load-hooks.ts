// A Node module hook that records every file module a process loads, for tests that prove what a
// command or a cache hit does not load. The process needs `--import <url>` and REP_TEST_LOAD_LOG=<file>.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Runs in Node's hooks thread: appends the URL of every module loaded to the file given in `data`.
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(log, url + '\\n');
  return nextLoad(url, context);
}
`;
const REGISTER = `import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.REP_TEST_LOAD_LOG } });
`;

/** Writes the hook files into dir; returns the URL to pass to `node --import`. */
export function writeLoadHooks(dir: string): string {
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), REGISTER);
  return pathToFileURL(join(dir, 'register.mjs')).href;
}
