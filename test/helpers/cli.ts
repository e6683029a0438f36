// Spawns the built `rep` as a child process, the way a user or a CI job runs it, with HOME, XDG_* and
// REP_CONFIG_DIR pointing into a fresh temp dir, so no test touches the real home directory.
import { spawn, type ChildProcessByStdio, type StdioOptions } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const REP_BIN = fileURLToPath(new URL('../../bin/rep.js', import.meta.url));

export interface CliResult {
  code: number | null;
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

export interface RunOptions {
  home: TempHome;
  /** An installed `rep` to run as a shell would (its own shebang); without it, `node bin/rep.js` of this checkout. */
  bin?: string;
  /** Extra environment (REP_API_KEY, REP_BASE_URL, NO_COLOR, …); `undefined` removes a variable, even one of the home's. Nothing else is inherited but PATH. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. Without it stdin is closed at once. */
  input?: string;
  /** A file (or device: /dev/zero) opened as stdin instead of a pipe; `input` is then ignored. */
  stdinFrom?: string;
  /** Leave stdin open after `input`, like a pipe whose writer has not finished (closed when the child exits). */
  keepStdinOpen?: boolean;
  /** The child's working directory (default: this process's). */
  cwd?: string;
  /** Kill the child after this long (a safety net, not an assertion). */
  killAfterMs?: number;
  /** Called with the child's stdout as it arrives (for streaming tests). */
  onStdout?: (chunk: string) => void;
  /** Called with stderr as it arrives. */
  onStderr?: (chunk: string) => void;
  /** Abort to send SIGINT (or `interruptWith`). */
  signal?: AbortSignal;
  interruptWith?: NodeJS.Signals;
  /** A file descriptor for the child's stdout (/dev/full, a file) instead of a pipe; stdout is then ''. */
  stdoutFd?: number;
  /** The same for stderr. */
  stderrFd?: number;
}

/** Runs `node bin/rep.js …args` (or `options.bin …args`) and collects its exit code and output. Never blocks the event loop. */
export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...options.home.env };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return new Promise((resolve, reject) => {
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
    options.signal?.addEventListener('abort', () => child.kill(options.interruptWith ?? 'SIGINT'), { once: true });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
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

export interface TempHomeSession {
  /** This test's home, made on first use. */
  home(): TempHome;
  /** Runs `rep --retries 0 …args` in this test's home. */
  rep(args: string[], options?: Omit<RunOptions, 'home'>): Promise<CliResult>;
}

/** For a test file's top level: a temp home per test, removed after it, and a `rep` that runs in it. */
export function useTempHome(): TempHomeSession {
  let current: TempHome | undefined;
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  const home = () => (current ??= makeTempHome());
  return { home, rep: (args, options = {}) => runCli(['--retries', '0', ...args], { home: home(), ...options }) };
}

/**
 * For a test file's top level: `track(server)` hands the server back and closes it after the test,
 * whether the test passed or not (a strict fault server's close() then fails on unexpected requests).
 */
export function closeAfterEach(): <T extends { close(): Promise<unknown> }>(server: T) => T {
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return (server) => {
    open.push(server);
    return server;
  };
}
