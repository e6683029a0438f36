// Policy shared by every store implementation, above the port (port.ts): when a kept answer is
// fresh, how names match, and where the series of a point is. Pure functions, no I/O.
import { sha256Hex } from '../state/ids.js';
import type { HistoryPoint, Store, StoredAnswer } from './port.js';
import { parseJson } from '../text.js';

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

/**
 * The order names are listed in (completion, reports): by name key, then as written. The same on
 * every machine, and no collator: localeCompare's first call loads ICU's collation data (5-12 ms),
 * which every completion (a Tab press) would pay.
 */
export function compareNames(a: string, b: string): number {
  const [keyA, keyB] = [nameKey(a), nameKey(b)];
  if (keyA !== keyB) return keyA < keyB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
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

/** Whose key asked: a short hash of it (never the key), 'none' when no key was sent. */
export function keyFingerprint(key: string | undefined): string {
  return key ? sha256Hex(key).slice(0, 16) : 'none'; // as state/requests.ts keyId names it
}

/** The header parser of admitAnswer, once it has loaded. */
let freshnessRules: typeof import('./answer-freshness.js') | undefined;

/** What to do with a fresh answer: keep it (as the store takes it), or not (why, and whether an older one must go too). */
export type Admission = { keep: StoredAnswer } | { keep?: undefined; reason: string; forget: boolean };

/**
 * Whether a fresh answer may be kept: a 2xx JSON object or array, not holding the key (a server that
 * echoes it would put the secret on disk), and as long as the server's Cache-Control allows.
 * The header parser loads only after a request (a cache hit never needs it), once: a batch admits an
 * answer a name, and each later one then settles without waiting for a load.
 */
export async function admitAnswer(
  apiKey: string | undefined,
  query: string,
  answer: {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    bodyText: string;
    receivedAt: number;
    /** The caller parsed bodyText already, as a JSON object or array: it is not parsed again. */
    jsonDocument?: true;
  },
): Promise<Admission> {
  if (!(answer.status >= 200 && answer.status <= 299)) return { reason: `status ${answer.status} is not a success`, forget: false };
  if (!answer.jsonDocument && !isJsonDocument(answer.bodyText)) return { reason: 'the body is not a JSON object or array', forget: false };
  if (apiKey && (answer.bodyText.includes(apiKey) || query.includes(apiKey))) return { reason: 'the answer holds the API key', forget: false };
  freshnessRules ??= await import('./answer-freshness.js');
  const freshness = freshnessRules.freshnessOf(answer.headers, answer.receivedAt);
  // An older answer the server would not let us keep now goes too.
  if (!freshness.keep) return { reason: freshness.reason, forget: true };
  const contentType = answer.headers['content-type'];
  return {
    keep: {
      status: answer.status,
      bodyText: answer.bodyText,
      ...(typeof contentType === 'string' ? { contentType } : {}),
      storedAt: answer.receivedAt,
      ...(freshness.freshUntil === undefined ? {} : { freshUntil: freshness.freshUntil }),
    },
  };
}

/** Only a JSON object or array is an answer worth keeping. */
export function isJsonDocument(text: string): boolean {
  try {
    const value = parseJson(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** Where a part of the store is, for people's messages (its describe() line), e.g. placeOf(store, 'history'). */
export function placeOf(store: Pick<Store, 'describe'>, label: 'cache' | 'history' | 'requests'): string {
  const { kind, details } = store.describe();
  // A store with no place of its own for the part (a database) is named as a whole: "the history in the history" says nothing.
  return details.find((detail) => detail.label === label)?.value ?? `the ${kind} store`;
}
