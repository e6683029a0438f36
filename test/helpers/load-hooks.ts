// A Node module hook that records every file module a process loads (ES modules as the loader loads
// them; CommonJS ones, like rep's bundle, from require's cache at exit), for tests that prove what a
// command or a cache hit does not load. The process needs `--import <url>` and REP_TEST_LOAD_LOG=<file>;
// at exit, <file>.builtins gets the ids of Node's own modules it loaded (process.moduleLoadList), and
// <file>.stdin is written if anything made process.stdin (a stream that a command reading no input need not make).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// For Node without module.registerHooks (20): runs in Node's hooks thread, appends the URL of every
// module loaded to the file given in `data`.
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(log, url + '\\n');
  return nextLoad(url, context);
}
`;
// No ESM import of node:fs here: its facade would load what the test looks for (fs.promises, readline).
const REGISTER = `const { appendFileSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { pathToFileURL } = process.getBuiltinModule('node:url');
const { register, registerHooks, createRequire } = process.getBuiltinModule('node:module');
const require = createRequire(import.meta.url);
const log = process.env.REP_TEST_LOAD_LOG;
// registerHooks where Node has it (it sees require() too): module.register() is deprecated from Node 26 (DEP0205, on stderr).
const loaded = new Set();
if (registerHooks) registerHooks({ load(url, context, nextLoad) { if (url.startsWith('file:')) loaded.add(url); return nextLoad(url, context); } });
else register(new URL('./hooks.mjs', import.meta.url), { data: { log } });
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', { ...stdin, get() { writeFileSync(log + '.stdin', ''); return stdin.get.call(this); } });
process.on('exit', () => {
  for (const id of Object.keys(require.cache).filter((id) => id.startsWith('/'))) loaded.add(pathToFileURL(id).href);
  appendFileSync(log, [...loaded].map((url) => url + '\\n').join(''));
});
process.on('exit', () => writeFileSync(log + '.builtins', process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice(13)).join('\\n')));
`;

/** Writes the hook files into dir; returns the URL to pass to `node --import`. */
export function writeLoadHooks(dir: string): string {
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), REGISTER);
  return pathToFileURL(join(dir, 'register.mjs')).href;
}
