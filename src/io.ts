// The one place that knows about streams: TTY-ness, width and colour are read once here, and
// everything else writes through an IO. cli.ts builds one over the process's streams (streamIO);
// `testIO()` is the twin with string buffers, for running any command in a test's own process.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { linkSignals } from './api/abort-link.js';
import { describeError, formatReport, OutputError } from './errors.js';

export interface IO {
  stdin: Readable;
  stdinIsTTY: boolean;
  /** stdin is a pipe or a regular file, so input may be waiting there (not a terminal, /dev/null or closed). */
  stdinPiped: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables and help (80 when unknown). */
  columns: number;
  /** stderr's width as its terminal reports it: 0 off a terminal, and on one that reports none yet. */
  stderrColumns: number;
  /** Whether colour escapes may be written to stdout / stderr. */
  colorOut: boolean;
  colorErr: boolean;
  /** Writes data to stdout. Returns false once stdout can take no more (see stdoutClosed). */
  out(text: string): boolean;
  /** Writes talk (warnings, hints, errors, progress) to stderr. */
  err(text: string): void;
  /** stderr as a stream, for a library that draws on it (the spinner). */
  stderrStream: NodeJS.WritableStream;
  /** Resolves when stdout has drained (for streamed output under back-pressure). */
  drain(): Promise<void>;
  /** Aborted once stdout can take no more: its reader went away (`rep … | head -1`), or a write failed (main then exits 1). */
  stdoutClosed: AbortSignal;
  /** Waits until everything written to stdout has left or failed; then the failure, if any (a reader that went away is none). */
  settle(): Promise<OutputError | undefined>;
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

/** The same IO with colour off (`--no-color`); getters stay getters, so stdin is still opened only when read. */
export function withoutColor(io: IO): IO {
  const off = { value: false, enumerable: true };
  return Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(io), colorOut: off, colorErr: off }) as IO;
}

/** The run's exit code once its output has settled: a lost write is reported, and the run exits 1. */
export async function exitAfterOutput(io: IO, code: number, debug: boolean): Promise<number> {
  const failure = await io.settle();
  if (!failure) return code;
  const report = describeError(failure);
  io.err(formatReport(report, { debug }));
  return report.exitCode;
}

/** What streamIO writes stdout and stderr to: the process's stream, or a directOutput(). */
export interface Output {
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly writableNeedDrain: boolean;
  /** Calls `done` once the text has been written or has failed (a failure is then emitted as 'error'). */
  write(text: string, done?: () => void): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

export interface Streams {
  /** A function: stdin is opened only when a command reads it. */
  stdin: () => NodeJS.ReadStream;
  stdout: Output;
  stderr: Output;
  /** stderr as Node's stream, made when first asked for (the spinner's). */
  stderrStream: () => NodeJS.WritableStream;
}

/**
 * stdout or stderr written with writeSync, as Node itself writes a file, and on Linux a pipe or a
 * socket, synchronously, but without loading Node's stream modules (some 20, a real share of a run
 * that prints a line or two; docs/performance.md). For a regular file, /dev/null, a pipe or a socket;
 * undefined for a terminal or any other device, which keep the process's stream (`stream`). A pipe
 * its opener left non-blocking may be full (EAGAIN): from then on `stream` writes, and waits.
 */
export function directOutput(fd: number, stream: () => NodeJS.WriteStream): Output | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    const info = fstatSync(fd);
    if (!info.isFile() && !info.isFIFO() && !info.isSocket()) {
      if (!info.isCharacterDevice()) return undefined;
      const devNull = statSync('/dev/null');
      if (info.rdev !== devNull.rdev || info.ino !== devNull.ino) return undefined;
    }
  } catch {
    return undefined;
  }
  let errorListener: ((error: NodeJS.ErrnoException) => void) | undefined;
  let failed = false;
  let handedOver: NodeJS.WriteStream | undefined;
  const handOver = () => {
    handedOver = stream();
    if (errorListener) handedOver.on('error', errorListener);
    return handedOver;
  };
  return {
    get writableNeedDrain() {
      return handedOver?.writableNeedDrain ?? false;
    },
    write(text, done) {
      if (handedOver) return handedOver.write(text, () => done?.());
      if (!failed && text !== '') {
        const bytes = Buffer.from(text);
        let written = 0;
        try {
          while (written < bytes.length) written += writeSync(fd, bytes, written);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return handOver().write(bytes.subarray(written), () => done?.());
          // As a stream reports it: later, once, and what follows it is not written.
          failed = true;
          later(() => errorListener?.(error as NodeJS.ErrnoException));
        }
      }
      if (done) later(done);
      return !failed;
    },
    on(_event, listener) {
      errorListener = listener;
      handedOver?.on('error', listener);
    },
    once(event, listener) {
      handedOver?.once(event, listener);
    },
    off(event, listener) {
      handedOver?.off(event, listener);
    },
  };
}

/**
 * Runs `callback` after the current code, in order: as a microtask, not with process.nextTick, whose
 * first use in a run is costly on Node 20 (Node compiles its tick queue then), and nothing else of
 * an answer from the cache uses it.
 */
function later(callback: () => void): void {
  void Promise.resolve().then(callback);
}

/**
 * An IO over real streams (cli.ts passes the process's), watched from this call on: a reader of stdout
 * that went away (EPIPE) ends rep quietly; any other failed write to stdout (full disk, I/O error) lost
 * output and must not pass for success. A failed write to stderr loses only talk, never the exit code.
 */
export function streamIO({ stdin, stdout, stderr, stderrStream }: Streams, env: NodeJS.ProcessEnv): IO {
  // A link with no sources: its AbortSignal is made only when asked for (a run answered from the cache never asks).
  const stopped = linkSignals([]);
  let failure: OutputError | undefined;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (stopped.aborted) return; // the first error decides; later ones follow from it
    if (error.code !== 'EPIPE') failure = new OutputError(error);
    stopped.abort(error);
  });
  stderr.on('error', () => {});
  const stdoutIsTTY = Boolean(stdout.isTTY);
  const stderrIsTTY = Boolean(stderr.isTTY);
  return {
    get stdin() {
      return stdin();
    },
    get stdinIsTTY() {
      return Boolean(stdin().isTTY);
    },
    get stdinPiped() {
      return pipedOrFile(0);
    },
    stdoutIsTTY,
    stderrIsTTY,
    columns: (stdoutIsTTY && stdout.columns) || widthFrom(env.COLUMNS) || (stderrIsTTY && stderr.columns) || 80,
    stderrColumns: (stderrIsTTY && stderr.columns) || 0,
    colorOut: colorEnabled(stdoutIsTTY, { env }),
    colorErr: colorEnabled(stderrIsTTY, { env }),
    out(text) {
      if (stopped.aborted) return false;
      stdout.write(text);
      return !stopped.aborted;
    },
    err(text) {
      stderr.write(text);
    },
    get stderrStream() {
      return stderrStream();
    },
    drain() {
      if (!stdout.writableNeedDrain || stopped.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          stdout.off('drain', done);
          stopped.signal.removeEventListener('abort', done);
          resolve();
        };
        stdout.once('drain', done);
        stopped.signal.addEventListener('abort', done, { once: true });
      });
    },
    get stdoutClosed() {
      return stopped.signal;
    },
    async settle() {
      // The callback of an empty write runs once everything before it has been written or has failed.
      if (!stopped.aborted) await new Promise<void>((resolve) => stdout.write('', () => resolve()));
      await new Promise((resolve) => setImmediate(resolve)); // a failed write's 'error' comes on a later tick
      return failure;
    },
  };
}

/** `COLUMNS` as a width (a whole number of at least 1), else 0: it sets the width of output that is no terminal. */
function widthFrom(value: string | undefined): number {
  const width = /^\s*\d+\s*$/.test(value ?? '') ? Number(value) : 0;
  return Number.isSafeInteger(width) ? width : 0;
}

/** Whether the descriptor is a pipe (FIFO) or a regular file; a socket, device or closed descriptor is not. */
function pipedOrFile(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFIFO() || stats.isFile();
  } catch {
    return false;
  }
}

export interface TestIO extends IO {
  stdoutText(): string;
  stderrText(): string;
}

export interface TestIOOptions
  extends Partial<Pick<IO, 'stdinIsTTY' | 'stdinPiped' | 'stdoutIsTTY' | 'stderrIsTTY' | 'columns' | 'stderrColumns' | 'colorOut' | 'colorErr'>> {
  /** Text that stdin holds before its end, or a stream; without it stdin is empty. */
  stdin?: string | Readable;
  /** Colour chosen as streamIO chooses it, from this environment and the TTY flags (unless colorOut/colorErr say). */
  env?: NodeJS.ProcessEnv;
  /** stdout fails once it holds `afterBytes` (default 0): EPIPE like a reader that went away, ENOSPC like a full disk. */
  stdoutFails?: { code: 'EPIPE' | 'ENOSPC'; afterBytes?: number };
  /** Called with each write to stdout / stderr, as it happens (for tests that act on output as it arrives). */
  onStdout?(text: string): void;
  onStderr?(text: string): void;
}

/** An IO over string buffers: for unit tests of renderers, and for running commands through main(). */
export function testIO(options: TestIOOptions = {}): TestIO {
  let out = '';
  let err = '';
  let failure: OutputError | undefined;
  const closed = new AbortController();
  const { stdoutIsTTY = false, stderrIsTTY = false, env = {} } = options;
  const text = typeof options.stdin === 'string' ? options.stdin : '';
  const stdin = typeof options.stdin === 'object' ? options.stdin : Readable.from(text ? [Buffer.from(text)] : []);
  const writeErr = (text: string) => {
    err += text;
    options.onStderr?.(text);
  };
  return {
    stdin,
    stdinIsTTY: options.stdinIsTTY ?? false,
    stdinPiped: options.stdinPiped ?? false,
    stdoutIsTTY,
    stderrIsTTY,
    columns: options.columns ?? 80,
    stderrColumns: options.stderrColumns ?? 0,
    colorOut: options.colorOut ?? (options.env ? colorEnabled(stdoutIsTTY, { env }) : false),
    colorErr: options.colorErr ?? (options.env ? colorEnabled(stderrIsTTY, { env }) : false),
    out(text) {
      if (closed.signal.aborted) return false;
      const fails = options.stdoutFails;
      if (fails && text !== '' && Buffer.byteLength(out + text) > (fails.afterBytes ?? 0)) {
        const error = Object.assign(new Error(`write ${fails.code}`), { code: fails.code, syscall: 'write' });
        if (fails.code !== 'EPIPE') failure = new OutputError(error);
        closed.abort(error);
        return false;
      }
      out += text;
      options.onStdout?.(text);
      return true;
    },
    err: writeErr,
    stderrStream: new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        writeErr(chunk.toString());
        done();
      },
    }),
    drain: () => Promise.resolve(),
    stdoutClosed: closed.signal,
    settle: () => Promise.resolve(failure),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
