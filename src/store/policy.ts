// Policy shared by every store implementation, above the port (port.ts): when a kept answer is
// fresh, how names match, and where the series of a point is. Pure functions, no I/O.
import type { HistoryPoint } from './port.js';

/** How far after `now` an answer may have been stored and still count: another process may store one between a clock read and a lookup. */
export const CLOCK_SLACK_MS = 60_000;
/** A point dated more than this after now is from a wrong clock: never "the previous point", and marked by `rep history`. */
export const FUTURE_SLACK_MS = 60 * 1000;

/**
 * Whether a kept answer may answer at `now`: younger than maxAgeMs (0: never), within the server's own
 * limit, and not stored far in the future (a clock turned back). A little in the future is age 0.
 */
export function isFresh(entry: { storedAt: number; freshUntil?: number }, { maxAgeMs, now }: { maxAgeMs: number; now: number }): boolean {
  if (!(maxAgeMs > 0)) return false;
  if (now - entry.storedAt < -CLOCK_SLACK_MS) return false;
  if (Math.max(0, now - entry.storedAt) >= maxAgeMs) return false;
  return entry.freshUntil === undefined || now < entry.freshUntil;
}

/**
 * How names match: case-insensitive, whitespace collapsed, Unicode-normalised, so `blue  bottle`
 * finds `Blue Bottle`. A point matches a name when its query or its company name does.
 */
export function nameKey(text: string): string {
  return text.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The keys a point answers to: its query's and its company name's. */
export function pointKeys(point: Pick<HistoryPoint, 'query' | 'name'>): string[] {
  const query = nameKey(point.query);
  const name = point.name === undefined ? query : nameKey(point.name);
  return name === query ? [query] : [query, name];
}

/** Whether a point is dated in the future (past the slack a clock may be off by). */
export function isFuture(point: Pick<HistoryPoint, 'at'>, now: number): boolean {
  return Date.parse(point.at) > now + FUTURE_SLACK_MS;
}
