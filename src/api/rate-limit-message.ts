// How a rate limit is told to the user: the limit, when it resets (relative and on the local clock),
// and how to go on. Pure, so the wording is unit-tested without a server.
import { RateLimitError } from './errors.js';
import type { RateLimitInfo } from './ratelimit.js';

export const FREE_TIER_LIMIT = 100;
export const RATE_LIMIT_HINT = 'wait and retry with --wait, or ask the service operator for a higher tier';

/** The reset time to report: from the server, or estimated from the local request count. */
export interface ResetEstimate {
  resetAt?: number;
  fromServer: boolean;
}

/** Builds the 429 error: `rate limit reached: 100 requests per hour; resets in 14 min (at 18:42)`. */
export function rateLimitError(info: RateLimitInfo, reset: ResetEstimate, nowMs: number): RateLimitError {
  const limit = info.limit !== undefined ? `${info.limit} requests ${perWindow(info.windowSeconds)}` : `the free tier's ${FREE_TIER_LIMIT} requests per hour`;
  const when = reset.resetAt !== undefined ? describeReset(reset.resetAt, nowMs, !reset.fromServer) : 'the reset time is unknown';
  return new RateLimitError(`rate limit reached: ${limit}; ${when}`, {
    ...(reset.resetAt !== undefined ? { resetAt: reset.resetAt } : {}),
    resetFromServer: reset.fromServer,
    ...(info.limit !== undefined ? { limit: info.limit } : {}),
    hint: RATE_LIMIT_HINT,
  });
}

/** `resets in 14 min (at 18:42)`, or with "about" for an estimate. */
export function describeReset(resetAt: number, nowMs: number, estimated: boolean): string {
  const about = estimated ? 'about ' : '';
  if (resetAt <= nowMs) return `resets ${about}now`;
  return `resets in ${about}${formatRelative(resetAt - nowMs)} (at ${about}${formatClock(resetAt, nowMs)})`;
}

function perWindow(windowSeconds: number | undefined): string {
  // The service's documented window is an hour; headers without a policy are read against it.
  if (windowSeconds === undefined || windowSeconds === 3600) return 'per hour';
  if (windowSeconds === 60) return 'per minute';
  if (windowSeconds === 86400) return 'per day';
  if (windowSeconds === 1) return 'per second';
  // A window is stated exactly, not rounded like a time to wait.
  if (windowSeconds % 3600 === 0) return `per ${windowSeconds / 3600} h`;
  if (windowSeconds % 60 === 0) return `per ${windowSeconds / 60} min`;
  return `per ${windowSeconds} s`;
}

/**
 * A duration as a person reads it in a sentence: `5 s`, `20 s`, `14 min`, `1 h`, `2 h 5 min`. Rounded
 * to the nearest step (seconds, then 5 s from 10 s on, then minutes), not up: reset headers in whole
 * seconds already overshoot by up to a second, --wait sleeps a margin past the reset anyway, and
 * the clock time shown beside it is exact.
 */
export function formatRelative(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 9.5) return `${Math.max(1, Math.round(seconds))} s`;
  const fives = Math.round(seconds / 5) * 5;
  if (fives < 60) return `${fives} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A duration for a countdown: `4m 12s`, `1h 02m`, `9s`. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * Local clock time in the locale's one form (`18:42`, `6:42 PM`), with seconds when `nowMs` is given and
 * the time is less than two minutes ahead. Every clock time rep prints goes through here.
 */
export function formatClock(atMs: number, nowMs?: number): string {
  const seconds = nowMs !== undefined && atMs - nowMs < 120_000;
  return new Date(atMs).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
}
