// Progress on stderr: a spinner for slow calls (only when both stdout and stderr are terminals), a
// batch's progress line (whenever stderr is one) and the --wait countdown (one line off a terminal);
// never under --quiet, and only after a short delay so fast answers do not flicker. ora loads only when
// it will be shown. What the client tells reaches here through client-hooks.ts.
import type { Ora } from 'ora';
import type { RateLimitWaitEvent } from './api/client.js';
import type { Deps } from './deps.js';
import { formatCountdown } from './time.js';

const SHOW_AFTER_MS = 150;

/** A progress line the work keeps up to date. */
export interface Progress {
  update(text: string): void;
  /** Hides the line while something else owns it (the `--wait` countdown), or shows it again; holds nest. */
  hold(held: boolean): void;
  stop(): void;
}

/** The progress lines of each run that are shown now: a rate-limit wait holds them while it tells. */
const shownLines = new WeakMap<Deps, Set<Progress>>();

export async function withSpinner<T>(deps: Deps, text: string, work: () => Promise<T>): Promise<T> {
  const { io, globals } = deps;
  const spinner = startProgress(deps, text, !globals.quiet && io.stdoutIsTTY && io.stderrIsTTY);
  try {
    return await work();
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
        // discardStdin off: ora's raw stdin makes Ctrl-C a byte it never reads, so the run would go on.
        spinner = ora({ text, stream: deps.io.stderrStream, color: 'cyan', isEnabled, discardStdin: false });
        if (holds === 0) spinner.start();
      })
      .catch(() => {});
  }, SHOW_AFTER_MS);
  const lines = shownLines.get(deps) ?? new Set<Progress>();
  shownLines.set(deps, lines);
  const progress: Progress = {
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
      lines.delete(progress);
      clearTimeout(timer);
      spinner?.stop();
    },
  };
  lines.add(progress);
  return progress;
}

/**
 * Tells a rate-limit wait until its signal aborts: `rate limited; retrying in 4m 12s…` rewritten in
 * place each second on a terminal's stderr (the line is cleared at the end), else one line
 * `rate limited; waiting 14 min (until 18:42), then retrying` (in CI a silent hour looks like a hang).
 * The run's progress lines are held meanwhile; under --quiet nothing is said.
 */
export function showRateLimitWait(deps: Deps, { until, signal, message }: RateLimitWaitEvent): void {
  const { io } = deps;
  // Off a terminal the line itself says it; --debug says it where the countdown or --quiet does not.
  if (deps.globals.quiet || io.stderrIsTTY) deps.debug(message);
  if (deps.globals.quiet || signal.aborted) return;
  const held = [...(shownLines.get(deps) ?? [])];
  for (const line of held) line.hold(true);
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const left = until - deps.now();
    io.err(`\r\u001b[2Krate limited; retrying in ${formatCountdown(left)}…`);
    // Next at the next whole second left, so the countdown reads 4m 12s, 4m 11s, …
    timer = setTimeout(tick, left - Math.floor((left - 1) / 1000) * 1000);
  };
  if (io.stderrIsTTY) tick();
  else io.err(`${message}\n`);
  signal.addEventListener(
    'abort',
    () => {
      clearTimeout(timer);
      if (io.stderrIsTTY) io.err('\r\u001b[2K');
      for (const line of held) line.hold(false);
    },
    { once: true },
  );
}
