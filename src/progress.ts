// Progress on stderr: a spinner for slow calls (only when both stdout and stderr are terminals) and a
// batch's progress line (whenever stderr is one); never under --quiet, and only after a short delay so
// fast answers do not flicker. ora loads only when it will be shown.
import type { Ora } from 'ora';
import type { Deps } from './deps.js';

const SHOW_AFTER_MS = 150;

/** What the work under a spinner may ask of it. */
export interface SpinnerControl {
  /** Hides the line while something else owns it (the `--wait` countdown), or shows it again; holds nest. */
  hold(held: boolean): void;
}

/** A progress line the work keeps up to date. */
export interface Progress extends SpinnerControl {
  update(text: string): void;
  stop(): void;
}

export async function withSpinner<T>(deps: Deps, text: string, work: (spinner: SpinnerControl) => Promise<T>): Promise<T> {
  const { io, globals } = deps;
  const spinner = startProgress(deps, text, !globals.quiet && io.stdoutIsTTY && io.stderrIsTTY);
  try {
    return await work(spinner);
  } finally {
    spinner.stop();
  }
}

/** A batch's progress line: shown whenever stderr is a terminal (stdout may well be a file), never under --quiet. */
export function startBatchProgress(deps: Deps, text: string): Progress {
  return startProgress(deps, text, !deps.globals.quiet && deps.io.stderrIsTTY);
}

function startProgress(deps: Deps, initial: string, shown: boolean): Progress {
  if (!shown) return { hold() {}, update() {}, stop() {} };
  // ora divides by the stream's width: animated on a terminal reporting 0 columns (`docker exec -t`
  // before its first resize, `script` without a terminal) it would loop forever, so there it only prints.
  const isEnabled = deps.io.stderrColumns ? deps.io.colorErr || undefined : false;
  let text = initial;
  let spinner: Ora | undefined;
  let holds = 0;
  let stopped = false;
  const timer = setTimeout(() => {
    // Progress is decoration: a line that cannot be shown must not fail the command.
    import('ora')
      .then(({ default: ora }) => {
        if (stopped) return;
        spinner = ora({ text, stream: deps.io.stderrStream, color: 'cyan', isEnabled });
        if (holds === 0) spinner.start();
      })
      .catch(() => {});
  }, SHOW_AFTER_MS);
  return {
    update(next) {
      text = next;
      if (spinner) spinner.text = next;
    },
    hold(held) {
      holds = Math.max(0, holds + (held ? 1 : -1));
      if (holds > 0) spinner?.stop();
      else if (!stopped) spinner?.start();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      spinner?.stop();
    },
  };
}
