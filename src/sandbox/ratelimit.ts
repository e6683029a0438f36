// Fixed-window rate limiting per key, with the clock injected so tests never wait.

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** When the current window ends, epoch milliseconds. */
  readonly resetAtMs: number;
  /** Whole seconds until the window ends, at least 1. */
  readonly retryAfterSeconds: number;
}

interface Window {
  readonly startMs: number;
  count: number;
}

/** `limit` requests per key in a window of `windowMs` that starts at the key's first request. */
export class FixedWindowLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one request for `key` if the window has room; a refused request is not counted. */
  take(key: string): RateDecision {
    const nowMs = this.now();
    let window = this.#windows.get(key);
    if (window === undefined || nowMs >= window.startMs + this.windowMs) {
      window = { startMs: nowMs, count: 0 };
      this.#windows.set(key, window);
    }
    const allowed = window.count < this.limit;
    if (allowed) window.count += 1;
    const resetAtMs = window.startMs + this.windowMs;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetAtMs,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)),
    };
  }
}

/** "hour", "minute", "30 seconds": the window as the 429 message names it. */
export function describeWindow(windowMs: number): string {
  const units: readonly [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (windowMs % size !== 0) continue;
    const count = windowMs / size;
    return count === 1 ? unit : `${count} ${unit}s`;
  }
  return `${windowMs} ms`;
}
