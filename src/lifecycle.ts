// What cli.ts watches from its first line, before any command code runs: Ctrl-C and SIGTERM (so a
// signal during start-up still ends in exit 130), and the output streams. A reader of stdout that went
// away (EPIPE) ends rep quietly; any other failed write to stdout (full disk, I/O error) lost output and
// must not pass for success. A failed write to stderr loses only talk, never the exit code.
import { describeError, ExitCode, formatReport, InterruptedError, OutputError } from './errors.js';

/** Aborted with an InterruptedError on the first Ctrl-C or SIGTERM; a second one exits 130 at once. */
export function watchInterrupts(): AbortSignal {
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.interrupted); // a second Ctrl-C: leave now
    interrupt.abort(new InterruptedError());
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return interrupt.signal;
}

export interface StdoutWatch {
  /** Aborted once stdout can take no more: its reader went away, or a write failed. */
  readonly stopped: AbortSignal;
  /** Waits until everything written has left (or failed); then the write failure, if there was one. */
  settle(): Promise<OutputError | undefined>;
}

/** stderr that cannot be written (a full disk) drops the talk; the exit code still says what happened. */
export function tolerateStderr(stream: NodeJS.WriteStream = process.stderr): void {
  stream.on('error', () => {});
}

export function watchStdout(stream: NodeJS.WriteStream = process.stdout): StdoutWatch {
  const stopped = new AbortController();
  let failure: OutputError | undefined;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (stopped.signal.aborted) return; // the first error decides; later ones follow from it
    if (error.code !== 'EPIPE') failure = new OutputError(error);
    stopped.abort(error);
  });
  return {
    stopped: stopped.signal,
    async settle() {
      // The callback of an empty write runs once everything before it has been written or has failed.
      if (!stopped.signal.aborted) await new Promise<void>((resolve) => stream.write('', () => resolve()));
      await new Promise((resolve) => setImmediate(resolve)); // a failed write's 'error' comes on a later tick
      return failure;
    },
  };
}

/** The run's exit code once its output has settled: a lost write is reported, and the run exits 1. */
export async function exitAfterOutput(stdout: StdoutWatch, code: number, debug: boolean): Promise<number> {
  const failure = await stdout.settle();
  if (!failure) return code;
  const report = describeError(failure);
  process.stderr.write(formatReport(report, { debug }));
  return report.exitCode;
}
