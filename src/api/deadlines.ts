// The attempts' timeouts of one transport, on one timer. A timer an attempt (setTimeout, then
// clearTimeout) cost each request a Timeout, a closure and two trips through Node's timer lists; here an
// attempt is an entry in a set, due at its start plus the timeout, and one timer fires when the oldest
// entry is due (its timeout is the transport's: the oldest is the first due). An attempt so times out at
// its time, or, when the one before it was due less than MIN_GAP of a timeout earlier, that much later
// at most: the timer fires at most about TICKS times a timeout however many attempts start and end.
// Due times are read off a monotonic clock, not counted in timer firings: a timer held up by a busy
// event loop fires late once, and every attempt then due times out at that firing.
import type { LinkedSignal } from './abort-link.js';

/** The timer's firings a timeout, at most: an attempt times out at most a tenth of its timeout late. */
const TICKS = 10;

/** One attempt's deadline; `timedOut` once it aborted the attempt's link. */
export interface Deadline {
  readonly timedOut: boolean;
}

interface Entry extends Deadline {
  timedOut: boolean;
  readonly link: LinkedSignal;
  /** When its time is up (the clock's milliseconds). */
  readonly due: number;
}

/** Milliseconds on a clock that only goes forward (the process's uptime: no module to load, no allocation). */
const monotonicMs = (): number => process.uptime() * 1000;

export class Deadlines {
  /** The attempts under way, in the order they started: the order they are due in. */
  readonly #pending = new Set<Entry>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #timeoutMs: number;
  readonly #clock: () => number;

  /** `clock`: tests give one that fake timers move. */
  constructor(timeoutMs: number, clock: () => number = monotonicMs) {
    this.#timeoutMs = timeoutMs;
    this.#clock = clock;
  }

  /** Starts an attempt's clock: its link aborts once the timeout has passed. */
  start(link: LinkedSignal): Deadline {
    const entry: Entry = { link, due: this.#clock() + this.#timeoutMs, timedOut: false };
    this.#pending.add(entry);
    // The first under way: the timer fires when it is due. Later ones are due after it, and the timer
    // goes on to them when it fires.
    if (this.#pending.size === 1) this.#timer = setTimeout(this.#onTimer, this.#timeoutMs);
    return entry;
  }

  /** The attempt settled: its deadline no longer applies, and with none left the timer stops. */
  end(deadline: Deadline): void {
    this.#pending.delete(deadline as Entry);
    if (this.#pending.size === 0) clearTimeout(this.#timer);
  }

  readonly #onTimer = (): void => {
    const now = this.#clock();
    for (const entry of this.#pending) {
      if (entry.due > now) {
        // The next to be due, but not sooner than a tenth of a timeout from now.
        this.#timer = setTimeout(this.#onTimer, Math.max(entry.due - now, this.#timeoutMs / TICKS));
        return;
      }
      this.#pending.delete(entry);
      entry.timedOut = true;
      entry.link.abort();
    }
  };
}
