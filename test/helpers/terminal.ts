// Runs the built `rep` under a pseudo-terminal (util-linux `script`), for what only happens on a
// terminal: hidden prompts, the base-URL question, the spinner. Skipped where `script` is missing.
import { spawn, spawnSync } from 'node:child_process';
import { REP_BIN, type TempHome } from './cli.js';

export const hasScript = process.platform !== 'win32' && spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

export interface TerminalOptions {
  /** When the output so far contains `text`, type the string (or call the function), each once, in order. */
  answers?: Array<[text: string, then: string | (() => void)]>;
  env?: Record<string, string>;
  /** Redirect rep's stdout to this file, so only stderr (and stdin) is the terminal. */
  stdoutTo?: string;
  /** The terminal's width (`stty cols`); without it `script` gives a terminal of 0 columns. */
  columns?: number;
  /** A shell command run on the same terminal after rep (`stty -a`); the exit code stays rep's. */
  thenRun?: string;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Runs `rep --retries 0 …args` on a pseudo-terminal; `output` is everything the terminal showed. */
export function runOnTerminal(home: TempHome, args: string[], options: TerminalOptions = {}): Promise<{ code: number | null; output: string }> {
  let command = [process.execPath, REP_BIN, '--retries', '0', ...args].map(quote).join(' ');
  if (options.stdoutTo) command += ` > ${quote(options.stdoutTo)}`;
  if (options.columns) command = `stty cols ${options.columns} rows 50 && ${command}`;
  // The shell outlives a Ctrl-C meant for rep (its trap is reset for rep), to run the command after.
  if (options.thenRun) command = `trap : INT; ${command}; code=$?; ${options.thenRun}; exit $code`;
  const env = { PATH: process.env.PATH ?? '', TERM: 'dumb', ...home.env, ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let searchFrom = 0;
    const pending = [...(options.answers ?? [])];
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (let next = pending[0]; next && output.includes(next[0], searchFrom); next = pending[0]) {
        searchFrom = output.indexOf(next[0], searchFrom) + next[0].length;
        pending.shift();
        if (typeof next[1] === 'string') child.stdin.write(next[1]);
        else next[1]();
      }
    });
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}
