// A spinner for slow calls: only when both stdout and stderr are terminals, never under --quiet,
// and only after a short delay so fast answers do not flicker. ora loads only when it will be shown.
import type { Deps } from './deps.js';

const SHOW_AFTER_MS = 150;

export async function withSpinner<T>(deps: Deps, text: string, work: () => Promise<T>): Promise<T> {
  const { io, globals } = deps;
  if (globals.quiet || !io.stdoutIsTTY || !io.stderrIsTTY) return work();
  let spinner: { stop(): void } | undefined;
  let stopped = false;
  const timer = setTimeout(() => {
    // A spinner is decoration: one that cannot be shown must not fail the command.
    import('ora')
      .then(({ default: ora }) => {
        if (!stopped) spinner = ora({ text, stream: process.stderr, color: 'cyan', isEnabled: io.colorErr || undefined }).start();
      })
      .catch(() => {});
  }, SHOW_AFTER_MS);
  try {
    return await work();
  } finally {
    stopped = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
