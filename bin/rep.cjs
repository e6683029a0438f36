#!/usr/bin/env node
// The bin: runs the CLI's bundle, dist/cli.cjs, and the files of dist/lib/ it requires, with a V8 code
// cache of rep's own, on every Node line (20 has no compile cache of its own).
//
// Why not Node's compile cache (module.enableCompileCache): it keeps the code V8 compiled before a
// file ran, little more than its top level, so every function a command calls (commander's parser,
// the views, the renderers, undici) was compiled again on every run. A code cache made after the run
// holds them all, so a cached answer costs less CPU (docs/performance.md). As the cache holds what one run
// compiled, each command keeps entries of its own, and a run that sent a request (which compiled the
// HTTP client too) keeps them apart from a run answered from the cache (see keepPending).
//
// The cache is `code/` in rep's cache directory (0700, owned by this user, else not used); V8 checks
// each entry against the source's length and its own version and flags, and an entry it rejects is
// written again. V8 accepts an entry made from any source of that length, so an entry runs as code:
// one is used only when the open file is this user's and no one else's to write, and the cache not at
// all when another user could swap a folder on the way to it (see trustedFolders).
// Nothing here may fail a run: any error of the cache's is a run without it.
// NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns it off; so does --debug, whose stack traces go through
// the source maps that Node reads for files it loads itself.
'use strict';
// Node's own modules come through process.getBuiltinModule (Node 20.16+): require()'s way to a built-in
// (the CommonJS loader, and an ES module facade for it) costs more on its first use on Node 20.
const builtin = (id) => process.getBuiltinModule(id);
const { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, renameSync, rmSync, writeFileSync } =
  builtin('node:fs');
// The CommonJS Module class, as node:module exports it, without loading node:module unless its
// compile cache is used.
const Module = module.constructor;
const { dirname, isAbsolute, join } = builtin('node:path');
const { Script } = builtin('node:vm');

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'cli.cjs');
const args = process.argv.slice(2);
// A cache entry holds what one run compiled, so each command has entries of its own (the first run of
// a command makes them); `--version` and the completion helper run little code and keep small ones.
// COMMANDS are program.ts's commands (test/startup.test.ts checks that they agree).
const COMMANDS = ['audit', 'search', 'pulse', 'history', 'report', 'status', 'login', 'logout', 'sandbox', 'cache', 'completion', 'api', 'version', 'help'];
const trivial = isTrivial(args);
const kind = entryKind(args);
/** undici, which rep loads only for requests through a proxy. */
const PROXY_CLIENT = join(dist, 'lib', 'undici.cjs');
const STALE_DAYS = 30;
/** An entry's name ends in LEAN when the run that wrote it sent no request, in SENT when it sent one; WANT_LEAN asks the next run for a lean one (keepPending). */
const LEAN = '.bin';
const SENT = '-sent.bin';
const WANT_LEAN = '.want';
/** Set (on globalThis) by src/cli.ts as a long run tunes V8's heap flags (see runCached). */
const FLAGS_TUNED = Symbol.for('rep.v8FlagsTuned');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// dist/ is ASCII (scripts/build.mjs checks), which latin1 reads as utf8 would: faster on Node 22+;
// Node 20 decodes utf8 the faster.
const SOURCE_ENCODING = NODE_MAJOR < 22 ? 'utf8' : 'latin1';
/** The wrapper Node puts around a CommonJS module's code; its first line is line 0 of the file (lineOffset -1). */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAP_TAIL = '\n})';
/** Whether --liftoff-only is set (see runCached), the scripts run with what their entries were, and where those are. */
let liftoffOnly = false;
const ran = [];
let cacheDir;
/** Node's compile cache switch (node:module, 22.1+), for `--version` only. */
let compileCache;
// `--sandbox` writes no file (README): it reads entries other runs made, and makes none.
const writes = !args.includes('--sandbox');

// Run as the bin (always, but when a test requires this file for repCacheDir or entryKind).
if (require.main === module) run();
module.exports = { repCacheDir, entryKind };

function run() {
  try {
    if (args.includes('--debug')) {
      // Node reads a file's source map as it loads the file, and only once this is on: stack traces
      // then point at src/*.ts lines and name rep's own functions.
      process.setSourceMapsEnabled(true);
      require(bundle);
    } else if (process.env.NODE_DISABLE_COMPILE_CACHE) require(bundle);
    else if (trivial && (compileCache = builtin('node:module').enableCompileCache)) {
      // Node's compile cache (22.1+) does as well for `--version`, which compiles hardly more than the
      // top level; it is kept beside rep's own, in code/node.
      const dir = cachePath('node');
      if (dir) compileCache(dir);
      require(bundle);
    } else {
      runCached(bundle);
      // ('exit' comes once: `on` does, and costs less than `once` on Node 20.) A run that read lean entries
      // only has nothing to write, and does not compile keepPending to find that out.
      process.on('exit', () => ran.length > 0 && keepPending());
    }
  } catch (error) {
    // The package always ships dist/; a clone has it only once built (npm ci does not build).
    if (error?.code !== 'MODULE_NOT_FOUND' && error?.code !== 'ENOENT') throw error;
    if (!String(error.message).includes(bundle) && error.path !== bundle) throw error;
    process.stderr.write('rep: dist/ is not built in this checkout\nhint: run `npm run build` (`npm test` builds it too)\n');
    process.exitCode = 1;
  }
}

/** `--version` and the completion helper: they run little code (and keep small entries). */
function isTrivial(args) {
  return (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) || args[0] === '__complete';
}

/** Which command's entries a run of `rep …args` uses (the test helpers seed a new home's cache with them). */
function entryKind(args) {
  return isTrivial(args) ? 'version' : (args.find((arg) => COMMANDS.includes(arg)) ?? 'other');
}

/**
 * Compiles and runs a file of dist/ as Node runs a CommonJS module, reading and then keeping its code
 * cache; the files of dist/lib/ that it requires are run the same way. Returns its exports.
 */
function runCached(file) {
  const cached = require.cache[file];
  if (cached) return cached.exports;
  if (file === PROXY_CLIENT && !liftoffOnly && NODE_MAJOR < 22) {
    // On Node 20 undici sets --liftoff-only (src/api/undici.ts, BASELINE_WASM_ONLY). V8 reads
    // a cache entry only under the flags it was made under: the entries of the files compiled so far
    // are made now, and the flag is set before the client is compiled, so each entry is made and read
    // under the same flags.
    keepPending(true); // this run sends its request through undici
    builtin('node:v8').setFlagsFromString('--liftoff-only');
    liftoffOnly = true;
  }
  const fd = openSync(file, 'r');
  let source;
  let stat;
  try {
    stat = fstatSync(fd);
    source = readWrapped(fd, stat.size);
  } finally {
    closeSync(fd);
  }
  // Its path in dist/ (every file run here is one of dist/), as a file name: `cli.cjs`, `lib_undici.cjs`
  // (without a regex, as each costs the run a compile).
  const name = file
    .slice(dist.length + 1)
    .replaceAll('\\', '_')
    .replaceAll('/', '_');
  // V8 reads an entry only under the flags it was made under, and a long run tunes the heap's flags
  // (src/cli.ts, longRun): a file first run after that is compiled as it comes, and keeps no entry
  // (made then, every later run would refuse it and write it again).
  const stem = globalThis[FLAGS_TUNED]
    ? undefined
    : cachePath(`${name}-${kind}${liftoffOnly ? '-liftoff' : ''}-${process.versions.v8}-${stat.size}-${Math.trunc(stat.mtimeMs)}`);
  // The lean entry, else the one a sending run made, unless a run asked for a lean one (keepPending).
  let cachedData;
  let read;
  for (const made of stem ? [LEAN, SENT] : []) {
    if (made === SENT && present(`${stem}${WANT_LEAN}`)) break;
    try {
      cachedData = readOwnEntry(`${stem}${made}`);
    } catch {}
    if (cachedData) {
      read = made;
      break;
    }
  }
  // The wrapper's first line is line 0, so line numbers in stack traces are the file's.
  const script = new Script(source, {
    filename: file,
    lineOffset: -1,
    ...(cachedData ? { cachedData } : {}),
  });
  // A lean entry V8 took is kept as it is (see keepPending): only the others are noted for the exit.
  if (stem && writes && (read !== LEAN || script.cachedDataRejected))
    ran.push({ stem, script, ...(script.cachedDataRejected ? { rejected: read } : { read }) });
  const module = new Module(file, null);
  module.filename = file;
  module.loaded = true;
  require.cache[file] = module;
  // A relative require in dist/ is a file of dist/lib/; the rest are Node's own modules.
  const requireHere = (id) => (id.startsWith('./') ? runCached(join(dirname(file), id)) : (builtin(id) ?? module.require(id)));
  script.runInThisContext().call(module.exports, module.exports, requireHere, module, file, dirname(file));
  return module.exports;
}

/**
 * A file's code inside WRAP_HEAD and WRAP_TAIL, read into one buffer and decoded once: joined as strings,
 * V8 copies the whole text again when it compiles it (283 KB for the bundle). Decoded by Buffer's own
 * utf8Slice or latin1Slice, which toString() calls after looking the encoding up by name: that lookup
 * is more of Node's code to compile, and a cached answer runs no other toString().
 */
function readWrapped(fd, size) {
  const bytes = Buffer.allocUnsafe(WRAP_HEAD.length + size + WRAP_TAIL.length);
  let at = readInto(fd, bytes, bytes.latin1Write(WRAP_HEAD, 0), WRAP_HEAD.length + size);
  at += bytes.latin1Write(WRAP_TAIL, at);
  return SOURCE_ENCODING === 'utf8' ? bytes.utf8Slice(0, at) : bytes.latin1Slice(0, at);
}

/** Reads on from the open file into bytes[at, end); returns where it stopped (before end if the file was shorter). */
function readInto(fd, bytes, at, end) {
  for (let read; at < end && (read = readSync(fd, bytes, at, end - at, null)) > 0; ) at += read;
  return at;
}

/**
 * The entry's path in `code/` of rep's cache directory (repCacheDir), or undefined when there is none to
 * trust: it must be a directory of this user's that no one else can write to.
 */
function cachePath(name) {
  try {
    cacheDir ??= codeCacheDir();
    return cacheDir ? join(cacheDir, name) : undefined;
  } catch {
    cacheDir = false;
    return undefined;
  }
}

function codeCacheDir() {
  const dir = join(repCacheDir(process.env, process.platform), 'code');
  const uid = process.getuid?.();
  let info = lstatSync(dir, { throwIfNoEntry: false });
  if (!info && writes) {
    // Checked before it is made too: root (`sudo -E`) makes no folder in a user's home.
    if (!trustedFolders(dirname(dir), uid)) return false;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    info = lstatSync(dir);
  }
  if (!info?.isDirectory() || !(uid === undefined || (info.uid === uid && (info.mode & 0o077) === 0))) return false;
  return trustedFolders(dirname(dir), uid) ? dir : false;
}

/**
 * Whether no other user can swap a folder on the way to dir: each folder from it up is this user's or
 * root's and not writable by others (or sticky, like /tmp), up to the first of root's (up to / when
 * rep runs as root); a link's target is checked too. Folders not there yet are skipped (rep makes them).
 */
function trustedFolders(dir, uid) {
  if (uid === undefined) return true;
  for (let path = dir; ; path = dirname(path)) {
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info?.isSymbolicLink()) {
      if (!trustedFolders(realpathSync(path), uid)) return false;
    } else if (info) {
      if (!info.isDirectory() || (info.uid !== uid && info.uid !== 0)) return false;
      if ((info.mode & 0o022) !== 0 && (info.mode & 0o1000) === 0) return false;
      if (info.uid === 0 && uid !== 0) return true;
    }
    if (dirname(path) === path) return true;
  }
}

/**
 * An entry's bytes, read from the file it opened (never a link, never a FIFO), if that file is a regular
 * file of this user's that no one else can write to; else undefined. Throws when there is none.
 */
function readOwnEntry(path) {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    const uid = process.getuid?.();
    if (!info.isFile() || (uid !== undefined && (info.uid !== uid || (info.mode & 0o022) !== 0))) return undefined;
    // Read as readWrapped reads (readFileSync's way, with its own fstat, is more of Node's code to compile on a cold run).
    const bytes = Buffer.allocUnsafe(info.size);
    return bytes.subarray(0, readInto(fd, bytes, 0, info.size));
  } finally {
    closeSync(fd);
  }
}

/**
 * `repPaths(env, platform).cacheDir` of src/config/paths.ts, the platform's cache dir for rep (so HOME and
 * XDG_CACHE_HOME move it, as they move every file rep keeps), written out again here: finding the code
 * cache then compiles no file of dist/ but the bundle. test/startup.test.ts checks that the two agree.
 */
function repCacheDir(env, platform) {
  const home = () => env.HOME || builtin('node:os').homedir();
  if (platform === 'darwin') return join(home(), 'Library', 'Caches', 'rep');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(env.USERPROFILE || home(), 'AppData', 'Local'), 'rep', 'Cache');
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home(), '.cache'), 'rep');
}

/**
 * Writes the entries this run had none for (or V8 rejected): what V8 compiled of each file by now.
 *
 * A run that sent a request compiled the HTTP client, the answer's parsing and the writes of a fresh
 * answer too, which a run answered from the cache never runs: its entry is larger (402 KB against 345 KB
 * for an audit on Node 20), and V8 deserialises all of it on every run that reads it: 0.4-0.5 ms of a
 * cached audit (docs/performance.md). So a sending run's entry is kept as `-sent.bin`, read only where
 * there is no lean one (`.bin`). A run that sent nothing and read a `-sent` one cannot write a lean entry
 * (what it compiled includes all it read): it leaves `.want` for the next run, which reads none, compiles
 * as it goes, and writes the lean entry if it sends nothing either. Once there is a lean entry, a sending
 * run reads it and compiles its HTTP code as it goes (a request takes far longer).
 */
function keepPending(sent = sentRequest()) {
  let wrote = false;
  for (const { stem, script, read, rejected } of ran.splice(0)) {
    if (read === LEAN || (read === SENT && sent)) continue;
    if (read === SENT) {
      wrote = flag(`${stem}${WANT_LEAN}`) || wrote;
      continue;
    }
    // None read (none there, V8 rejected it, or a lean one was asked for): this run's is written.
    const made = sent ? SENT : LEAN;
    if (rejected && rejected !== made) unflag(`${stem}${rejected}`);
    if (!sent) {
      wrote = keep(`${stem}${LEAN}`, script) || wrote;
      unflag(`${stem}${WANT_LEAN}`);
    } else if (!present(`${stem}${WANT_LEAN}`)) wrote = keep(`${stem}${SENT}`, script) || wrote;
  }
  if (!wrote) return;
  try {
    removeStale(cacheDir);
  } catch {}
}

/**
 * Whether this run sent a request, as far as the code cache cares: it loaded Node's HTTP client, or
 * undici (for a proxy). Where Node lists no loaded modules, every run counts as one that sent.
 */
function sentRequest() {
  const loaded = process.moduleLoadList;
  return !loaded || require.cache[PROXY_CLIENT] !== undefined || loaded.includes('NativeModule http') || loaded.includes('NativeModule https');
}

/** Whether there is a file (or anything) at path; an error counts as none. */
function present(path) {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** Leaves an empty file (made anew, never through a link); whether it did. */
function flag(path) {
  try {
    writeFileSync(path, '', { mode: 0o600, flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Removes a file (a link itself, never what it points to). */
function unflag(path) {
  try {
    rmSync(path, { force: true });
  } catch {}
}

/** Writes what V8 compiled of a script, whole (temp file made anew, never through a link; then rename), for the next run; whether it did. */
function keep(cacheFile, script) {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
    renameSync(temp, cacheFile);
    return true;
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
    return false;
  }
}

/**
 * Entries are named by their file's size and time, so each upgrade of rep makes new ones: when one is
 * written (seldom), those not written for STALE_DAYS go (an entry in use is never rewritten, so one
 * still in use may go too, and is written again by its next run).
 */
function removeStale(dir) {
  const before = Date.now() - STALE_DAYS * 24 * 60 * 60 * 1000;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if ((name.endsWith('.bin') || name.endsWith('.tmp') || name.endsWith(WANT_LEAN)) && lstatSync(path).mtimeMs < before) rmSync(path, { force: true });
  }
}
