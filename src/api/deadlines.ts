// The attempts' timeouts of one transport, on one timer. A timer an attempt (setTimeout, then
// clearTimeout) cost each request a Timeout, a closure and two trips through Node's timer lists; here an
// attempt is an entry in a set, and while any is under way a timer ticks TICKS times a timeout and aborts
// those whose time is up. An attempt so times out between its timeout and a tick later; the attempt that
// starts the timer (a lone request's), at its timeout.
import type { LinkedSignal } from './abort-link.js';

/** Ticks a timeout: a timeout fires at most a tenth of itself late. */
const TICKS = 10;

/** One attempt's deadline; `timedOut` once it aborted the attempt's link. */
export interface Deadline {
  readonly timedOut: boolean;
}

interface Entry extends Deadline {
  timedOut: boolean;
  readonly link: LinkedSignal;
  /** The tick at which its time is up. */
  readonly due: number;
}

export class Deadlines {
  /** The attempts under way, in the order they started: the order they are due in. */
  readonly #pending = new Set<Entry>();
  #tick = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Whole milliseconds, rounded up: TICKS ticks are never less than the timeout. */
  readonly #tickMs: number;

  constructor(timeoutMs: number) {
    this.#tickMs = Math.ceil(timeoutMs / TICKS);
  }

  /** Starts an attempt's clock: its link aborts once the timeout has passed. */
  start(link: LinkedSignal): Deadline {
    let due = this.#tick + TICKS + 1; // started between two ticks: a whole TICKS after the next one
    if (this.#pending.size === 0) {
      // Nothing under way: the ticks start with this attempt.
      this.#tick = 0;
      due = TICKS;
      this.#timer = setTimeout(this.#onTick, this.#tickMs);
    }
    const entry: Entry = { link, due, timedOut: false };
    this.#pending.add(entry);
    return entry;
  }

  /** The attempt settled: its deadline no longer applies, and with none left the timer stops. */
  end(deadline: Deadline): void {
    this.#pending.delete(deadline as Entry);
    if (this.#pending.size === 0) clearTimeout(this.#timer);
  }

  readonly #onTick = (): void => {
    this.#tick += 1;
    for (const entry of this.#pending) {
      if (entry.due > this.#tick) break;
      this.#pending.delete(entry);
      entry.timedOut = true;
      entry.link.abort();
    }
    // The same Timeout again, a tick from now (refresh makes no new one).
    if (this.#pending.size > 0) this.#timer?.refresh();
  };
}
