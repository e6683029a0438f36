// A spinner for slow calls: only when both stdout and stderr are terminals, never under --quiet,
// and only after a short delay so fast answers do not flicker. ora loads only when it will be shown.
import type { Ora } from 'ora';
import type { Deps } from './deps.js';

const SHOW_AFTER_MS = 150;

/** What the work under a spinner may ask of it. */
export interface SpinnerControl {
  /** Hides the spinner while something else owns the line (the `--wait` countdown), or shows it again. */
  hold(held: boolean): void;
}

export async function withSpinner<T>(deps: Deps, text: string, work: (spinner: SpinnerControl) => Promise<T>): Promise<T> {
  const { io, globals } = deps;
  if (globals.quiet || !io.stdoutIsTTY || !io.stderrIsTTY) return work({ hold() {} });
  // ora divides by the stream's width: animated on a terminal reporting 0 columns (`docker exec -t`
  // before its first resize, `script` without a terminal) it would loop forever, so there it only prints.
  const isEnabled = process.stderr.columns ? io.colorErr || undefined : false;
  let spinner: Ora | undefined;
  let held = false;
  let stopped = false;
  const timer = setTimeout(() => {
    // A spinner is decoration: one that cannot be shown must not fail the command.
    import('ora')
      .then(({ default: ora }) => {
        if (stopped) return;
        spinner = ora({ text, stream: process.stderr, color: 'cyan', isEnabled });
        if (!held) spinner.start();
      })
      .catch(() => {});
  }, SHOW_AFTER_MS);
  const control: SpinnerControl = {
    hold(value) {
      held = value;
      if (held) spinner?.stop();
      else if (!stopped) spinner?.start();
    },
  };
  try {
    return await work(control);
  } finally {
    stopped = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
