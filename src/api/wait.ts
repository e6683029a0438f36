// Sleeping that Ctrl-C can cut short, and the `--wait` countdown on a terminal's stderr.
import { InterruptedError } from '../errors.js';
import type { IO } from '../io.js';
import { formatCountdown } from './rate-limit-message.js';

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
 * second, only when stderr is a terminal; silent otherwise. The line is cleared at the end.
 */
export async function waitWithCountdown(ms: number, options: { io: IO; signal?: AbortSignal; sleep: Sleep }): Promise<void> {
  const { io, signal } = options;
  if (!io.stderrIsTTY) return options.sleep(ms, signal);
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
