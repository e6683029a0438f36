// The one place that knows about the process's streams: TTY-ness, width and colour are read once
// here, and everything else writes through an IO. `testIO()` is the twin with string buffers.
import type { Readable } from 'node:stream';

export interface IO {
  stdin: Readable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables (80 when unknown). */
  columns: number;
  /** Whether colour escapes may be written to stdout / stderr. */
  colorOut: boolean;
  colorErr: boolean;
  /** Writes data to stdout. Returns false once stdout can take no more (see stdoutClosed). */
  out(text: string): boolean;
  /** Writes talk (warnings, hints, errors, progress) to stderr. */
  err(text: string): void;
  /** Resolves when stdout has drained (for streamed output under back-pressure). */
  drain(): Promise<void>;
  /** Aborted once stdout can take no more: its reader went away (`rep … | head -1`), or a write failed (main then exits 1). */
  stdoutClosed: AbortSignal;
}

export interface ColorChoice {
  /** `--no-color` given (commander's `color: false`). */
  noColorFlag?: boolean;
  env: NodeJS.ProcessEnv;
}

/**
 * Colour precedence, per the contract: `--no-color` > `NO_COLOR` > `FORCE_COLOR` > `TERM=dumb` > TTY.
 */
export function colorEnabled(isTTY: boolean, choice: ColorChoice): boolean {
  if (choice.noColorFlag) return false;
  const { env } = choice;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/** The process's streams; `stdoutStopped` comes from the watch cli.ts keeps on stdout (lifecycle.ts). */
export function processIO(choice: ColorChoice, stdoutStopped: AbortSignal): IO {
  const stdout = process.stdout;
  const stderr = process.stderr;
  const stdoutIsTTY = Boolean(stdout.isTTY);
  const stderrIsTTY = Boolean(stderr.isTTY);
  return {
    // On first use: making process.stdin costs a stream (~3 ms) that most commands never read.
    get stdin() {
      return process.stdin;
    },
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    stdoutIsTTY,
    stderrIsTTY,
    columns: (stdoutIsTTY && stdout.columns) || (stderrIsTTY && stderr.columns) || 80,
    colorOut: colorEnabled(stdoutIsTTY, choice),
    colorErr: colorEnabled(stderrIsTTY, choice),
    out(text) {
      if (stdoutStopped.aborted) return false;
      stdout.write(text);
      return !stdoutStopped.aborted;
    },
    err(text) {
      stderr.write(text);
    },
    drain() {
      if (!stdout.writableNeedDrain || stdoutStopped.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          stdout.off('drain', done);
          stdoutStopped.removeEventListener('abort', done);
          resolve();
        };
        stdout.once('drain', done);
        stdoutStopped.addEventListener('abort', done, { once: true });
      });
    },
    stdoutClosed: stdoutStopped,
  };
}

export interface TestIO extends IO {
  stdoutText(): string;
  stderrText(): string;
}

/** An IO over string buffers, for unit tests of commands and renderers. */
export function testIO(
  options: Partial<Pick<IO, 'stdoutIsTTY' | 'stderrIsTTY' | 'stdinIsTTY' | 'columns' | 'colorOut' | 'colorErr'>> & { stdin?: Readable } = {},
): TestIO {
  let out = '';
  let err = '';
  const closed = new AbortController();
  return {
    stdin: options.stdin ?? (undefined as unknown as Readable), // tests that read stdin pass one
    stdinIsTTY: options.stdinIsTTY ?? false,
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    columns: options.columns ?? 80,
    colorOut: options.colorOut ?? false,
    colorErr: options.colorErr ?? false,
    out(text) {
      out += text;
      return true;
    },
    err(text) {
      err += text;
    },
    drain: () => Promise.resolve(),
    stdoutClosed: closed.signal,
    stdoutText: () => out,
    stderrText: () => err,
  };
}
