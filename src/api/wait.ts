// Sleeping that Ctrl-C can cut short, and how a `--wait` pause is told: a countdown on a terminal's
// stderr, one line elsewhere (in CI a silent hour looks like a hang).
import { InterruptedError } from './errors.js';
import type { IO } from '../io.js';
import { formatClock, formatCountdown, formatRelative } from './rate-limit-message.js';

/** Sleeps ms, or throws InterruptedError as soon as the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Sleeps ms while showing `rate limited; retrying in 4m 12s…` on stderr, rewritten in place each
 * second, when stderr is a terminal (the line is cleared at the end); otherwise says once
 * `rate limited; waiting 14 min (until 18:42), then retrying`.
 */
export async function waitWithCountdown(ms: number, options: { io: IO; signal?: AbortSignal; sleep: Sleep; now: number }): Promise<void> {
  const { io, signal } = options;
  if (!io.stderrIsTTY) {
    io.err(`rate limited; waiting ${formatRelative(ms)} (until ${formatClock(options.now + ms, options.now)}), then retrying\n`);
    return options.sleep(ms, signal);
  }
  try {
    for (let left = Math.ceil(ms); left > 0; ) {
      io.err(`\r\u001b[2Krate limited; retrying in ${formatCountdown(left)}…`);
      // Sleep to the next whole second left, so the countdown ticks 4m 12s, 4m 11s, …
      const step = left - Math.floor((left - 1) / 1000) * 1000;
      await options.sleep(step, signal);
      left -= step;
    }
  } finally {
    io.err('\r\u001b[2K');
  }
}
