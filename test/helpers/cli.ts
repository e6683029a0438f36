// Runs rep the two ways tests need, with HOME, XDG_* and REP_CONFIG_DIR pointing into a fresh temp
// dir, so no test touches the real home directory: in this process through main() with a test IO
// (most tests), or as a child process of the built CLI (only where the process is the point: start-up,
// signals, pipes, terminals, proxies, the bin shim, the tarball, parallel processes). `useRep()` is
// the one fixture: a home, strict servers and `rep` per test, all cleaned up after it.
import { spawn, type ChildProcessByStdio, type StdioOptions } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, inject } from 'vitest';
import { testIO, type TestIOOptions } from '../../src/io.js';
import { main } from '../../src/main.js';
import { startFaultServer, type FaultServer } from './fault-server.js';

export const REP_BIN = fileURLToPath(new URL('../../bin/rep.cjs', import.meta.url));

export interface CliResult {
  code: number | null;
  /** The signal that killed a spawned rep (never one in-process). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface TempHome {
  dir: string;
  configDir: string;
  /** HOME, XDG_* and REP_CONFIG_DIR, all inside dir. */
  env: Record<string, string>;
  cleanup(): void;
}

const liveHomes = new Set<TempHome>();

/** Removes every temp home still present; test/setup.ts runs it after each test file. */
export function cleanupTempHomes(): void {
  for (const home of liveHomes) home.cleanup();
}

/** A throwaway home: every file rep reads or writes lands below it. */
export function makeTempHome(): TempHome {
  const dir = mkdtempSync(join(tmpdir(), 'rep-test-'));
  const configDir = join(dir, 'config', 'rep');
  const home: TempHome = {
    dir,
    configDir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      XDG_DATA_HOME: join(dir, 'data'),
      REP_CONFIG_DIR: configDir,
    },
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      liveHomes.delete(home);
    },
  };
  liveHomes.add(home);
  return home;
}

/** Environment changes for a run; `undefined` removes a variable, even one of the home's. */
export type EnvChanges = Record<string, string | undefined>;

export interface RunOptions {
  home: TempHome;
  env?: EnvChanges;
  /** Written to stdin, then stdin ends. Without it stdin is empty. */
  input?: string;
  /** Leave stdin open after `input`, like a pipe whose writer has not finished (closed when rep ends). */
  keepStdinOpen?: boolean;
  /** Called with stdout as it arrives (for streaming tests). */
  onStdout?: (chunk: string) => void;
  /** Called with stderr as it arrives. */
  onStderr?: (chunk: string) => void;
  /** Abort to interrupt rep: in-process the run's signal aborts (what Ctrl-C does); a child gets SIGINT (or `interruptWith`). */
  signal?: AbortSignal;
}

export interface SpawnOptions extends RunOptions {
  /** An installed `rep` to run as a shell would (its own shebang); without it, `node bin/rep.cjs` of this checkout. */
  bin?: string;
  /** Kill the child after this long (a safety net, not an assertion). */
  killAfterMs?: number;
  /** The signal `signal` sends (default SIGINT); several are sent while the child is stopped, so they arrive together. */
  interruptWith?: NodeJS.Signals | NodeJS.Signals[];
  /** A file (or device: /dev/zero) opened as stdin instead of a pipe; `input` is then ignored. */
  stdinFrom?: string;
  /** The child's working directory (default: this process's). */
  cwd?: string;
  /** A file descriptor for the child's stdout (/dev/full, a file) instead of a pipe; stdout is then ''. */
  stdoutFd?: number;
  /** The same for stderr. */
  stderrFd?: number;
}

export interface InProcessOptions extends RunOptions {
  /** The test IO's terminal flags and width (all off, 80 columns, by default). */
  io?: Pick<TestIOOptions, 'stdinIsTTY' | 'stdinPiped' | 'stdoutIsTTY' | 'stderrIsTTY' | 'columns' | 'stderrColumns'>;
  /** main()'s longRun: what the CLI does as a batch starts (cli.ts tunes V8's heap). */
  longRun?: () => void;
  /** main()'s clock (Date.now by default). */
  now?: () => number;
}

/** The home's environment with `changes` applied; nothing else (in-process, not even PATH). */
function envFor(home: TempHome, changes: EnvChanges = {}, base: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...base, ...home.env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs `rep …args` in this process: main() with a test IO and the home's environment (never process.env). */
export async function runInProcess(args: string[], options: InProcessOptions): Promise<CliResult> {
  const env = envFor(options.home, options.env);
  const stdin = new PassThrough();
  if (options.keepStdinOpen) stdin.write(options.input ?? '');
  else stdin.end(options.input ?? '');
  const io = testIO({
    ...options.io,
    stdin,
    env,
    ...(options.onStdout ? { onStdout: options.onStdout } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  });
  try {
    const code = await main(['node', 'rep', ...args], {
      io,
      env,
      signal: options.signal ?? new AbortController().signal,
      ...(options.longRun ? { longRun: options.longRun } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    return { code, signal: null, stdout: io.stdoutText(), stderr: io.stderrText() };
  } finally {
    stdin.destroy();
  }
}

const bin = createRequire(import.meta.url)(REP_BIN) as {
  repCacheDir: (env: Record<string, string | undefined>, platform: NodeJS.Platform) => string;
  entryKind: (args: string[]) => string;
};

/**
 * A new home's first spawned rep starts with the code cache entries an earlier new home's first rep
 * made for the same command (copies, from the run's pool: global-setup.ts), as a user's rep starts
 * with the entries of their earlier runs; without them every spawn compiled the CLI afresh and wrote
 * its entries at exit, some 10-15 ms of CPU each. Only into a code/ folder not there yet (a test that
 * plants entries makes it first), never under --sandbox (it writes no file) or --debug, nor with the
 * cache turned off. Returns the folder, for feedCodeCachePool, when it was seeded.
 */
function seedCodeCache(args: string[], env: Record<string, string>): { dir: string; pool: string } | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE || args.includes('--sandbox') || args.includes('--debug')) return undefined;
  const dir = join(bin.repCacheDir(env, process.platform), 'code');
  if (existsSync(dir)) return undefined;
  const pool = inject('codeCachePool');
  const kind = bin.entryKind(args);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(pool)) if (name.endsWith('.bin') && name.split('-')[1] === kind) copyFileSync(join(pool, name), join(dir, name));
  return { dir, pool };
}

/** Adds the entries the first rep of a seeded home made to the pool (each whole: a copy renamed into place). */
function feedCodeCachePool({ dir, pool }: { dir: string; pool: string }): void {
  const have = new Set(readdirSync(pool));
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.bin') || have.has(name)) continue;
    const temp = join(pool, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}`);
    copyFileSync(join(dir, name), temp);
    renameSync(temp, join(pool, name));
  }
}

/** Runs `node bin/rep.cjs …args` (or `options.bin …args`) and collects its exit code and output. Never blocks the event loop. */
export function runCli(args: string[], options: SpawnOptions): Promise<CliResult> {
  const env = envFor(options.home, options.env, { PATH: process.env.PATH ?? '' });
  const seeded = options.bin ? undefined : seedCodeCache(args, env);
  return new Promise<CliResult>((resolve, reject) => {
    const stdinFd = options.stdinFrom === undefined ? undefined : openSync(options.stdinFrom, 'r');
    const stdio: StdioOptions = [stdinFd ?? 'pipe', options.stdoutFd ?? 'pipe', options.stderrFd ?? 'pipe'];
    const [file, argv] = options.bin ? [options.bin, args] : [process.execPath, [REP_BIN, ...args]];
    const child = spawn(file, argv, { env, cwd: options.cwd, stdio }) as ChildProcessByStdio<Writable | null, Readable | null, Readable | null>;
    if (stdinFd !== undefined) closeSync(stdinFd); // the child has its own copy
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(chunk);
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
    const interrupt = () => {
      const signals = [options.interruptWith ?? 'SIGINT'].flat();
      // Several arrive together: sent while the child is stopped. Two kill() calls in a row can land a
      // time slice apart under load, and a second one that lands while the child tears down its run
      // (its signal handlers closed) meets the signal's default action.
      if (signals.length > 1) child.kill('SIGSTOP');
      for (const signal of signals) child.kill(signal);
      if (signals.length > 1) child.kill('SIGCONT');
    };
    options.signal?.addEventListener('abort', interrupt, { once: true });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      if (seeded) feedCodeCachePool(seeded);
      resolve({ code, signal, stdout, stderr });
    });
    const { stdin } = child;
    if (stdin) {
      stdin.on('error', () => {}); // the child may exit before reading its input
      if (options.keepStdinOpen) stdin.write(options.input ?? '');
      else stdin.end(options.input ?? '');
      child.on('close', () => stdin.destroy());
    }
  });
}

export interface RepFixture {
  /** This test's home, made on first use and removed after the test. */
  home(): TempHome;
  /** A strict test server for this test (a new one each call), closed after it: close fails on any request it was not told to expect. */
  server(): Promise<FaultServer>;
  /** Closes `thing` after the test, whether it passed or not (a sandbox, a TLS server, a proxy). */
  track<T extends { close(): Promise<unknown> }>(thing: T): T;
  /** `rep --retries 0 …args` in this test's process and home. */
  rep(args: string[], options?: Omit<InProcessOptions, 'home'>): Promise<CliResult>;
  /** The same as a child process of the built CLI: only where the process is the point. */
  spawn(args: string[], options?: Omit<SpawnOptions, 'home'>): Promise<CliResult>;
}

/**
 * For a test file's (or describe's) top level: the one fixture. `defaults` gives the environment every
 * run starts from (e.g. a sandbox's base URL and key, read once the tests run); a run's `env` goes on top.
 */
export function useRep(defaults: { env?: () => EnvChanges } = {}): RepFixture {
  let current: TempHome | undefined;
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    try {
      await Promise.all(open.splice(0).map((thing) => thing.close()));
    } finally {
      current?.cleanup();
      current = undefined;
    }
  });
  const home = () => (current ??= makeTempHome());
  const track = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    open.push(thing);
    return thing;
  };
  const env = (changes: EnvChanges = {}) => ({ ...defaults.env?.(), ...changes });
  return {
    home,
    track,
    server: async () => track(await startFaultServer()),
    rep: (args, options = {}) => runInProcess(['--retries', '0', ...args], { ...options, home: home(), env: env(options.env) }),
    spawn: (args, options = {}) => runCli(['--retries', '0', ...args], { ...options, home: home(), env: env(options.env) }),
  };
}
