// Rate limits, read and told in one place. The service documents no header, so every common
// convention is read (Retry-After, X-RateLimit-*, RateLimit-* and the IETF `RateLimit`); a 429 becomes
// a RateLimitError saying the limit, when it resets (relative and on the local clock) and how to go on.
import { DAY_MS, formatClock, formatRelative, HOUR_MS } from '../time.js';
import { RateLimitError } from './errors.js';

/** What the headers of one response say about the rate limit. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** When the window resets, or when a retry is allowed (epoch ms). */
  resetAt?: number;
  /** The window's length in seconds, when a policy says it. */
  windowSeconds?: number;
}

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

/**
 * The furthest reset kept as the server said it (a thousand years: a Date still holds it). Told as
 * said; never waited for, since --max-wait (at most about 24 days) refuses it.
 */
export const MAX_RESET_MS = 1000 * 365 * 24 * 60 * 60 * 1000;

const NON_NEGATIVE_NUMBER = /^\d+(?:\.\d+)?$/;
const EPOCH_MS_FLOOR = 1e12; // 2001-09-09 in ms; any reset value above it is epoch ms
const EPOCH_S_FLOOR = 1e9; // 2001-09-09 in s; above it (and below the ms floor), epoch seconds

/**
 * Reads `Retry-After` (delta seconds or an HTTP date) as the epoch ms after which to retry.
 * Garbage, negative values and past dates give undefined; huge values are clamped to MAX_RESET_MS.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (NON_NEGATIVE_NUMBER.test(text)) return nowMs + clampDelta(Number(text) * 1000);
  return parseDate(text, nowMs);
}

/** The names every convention below reads (and a few more): a response with none has no rate-limit facts. */
const RATE_LIMIT_HEADER = /^(?:x-)?ratelimit(?:-|$)|^retry-after$/i;

/** Reads every rate-limit header convention of a response (names case-insensitive). */
export function parseRateLimitHeaders(headers: HeaderBag, nowMs: number): RateLimitInfo {
  // Most answers carry none: told without building the reader (a batch reads thousands).
  if (typeof headers.get !== 'function' && !hasOwnMatch(headers, RATE_LIMIT_HEADER)) return {};
  const get = headerReader(headers);
  const info: RateLimitInfo = {};

  const ietf = parseIetf(get('ratelimit'), get('ratelimit-policy'), nowMs);
  info.limit = ietf.limit ?? count(get('ratelimit-limit')) ?? count(get('x-ratelimit-limit'));
  info.remaining = ietf.remaining ?? count(get('ratelimit-remaining')) ?? count(get('x-ratelimit-remaining'));
  info.windowSeconds = ietf.windowSeconds;
  // Retry-After says when a retry is allowed: on a 429 it is the most direct answer.
  info.resetAt =
    parseRetryAfter(get('retry-after'), nowMs) ?? ietf.resetAt ?? parseReset(get('ratelimit-reset'), nowMs) ?? parseReset(get('x-ratelimit-reset'), nowMs);

  for (const key of Object.keys(info) as (keyof RateLimitInfo)[]) if (info[key] === undefined) delete info[key];
  return info;
}

/** Whether an own name of the record matches; no array of its names is made. */
function hasOwnMatch(record: object, pattern: RegExp): boolean {
  for (const name in record) if (Object.hasOwn(record, name) && pattern.test(name)) return true;
  return false;
}

/** Whether any rate-limit fact was found. */
export function hasRateLimitInfo(info: RateLimitInfo): boolean {
  return info.limit !== undefined || info.remaining !== undefined || info.resetAt !== undefined;
}

/**
 * A reset value as epoch ms, told apart by magnitude: epoch milliseconds, epoch seconds, or a delta
 * in seconds. An HTTP date is accepted too. Past times and garbage give undefined.
 */
export function parseReset(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!NON_NEGATIVE_NUMBER.test(text)) return parseDate(text, nowMs);
  const n = Number(text);
  if (n >= EPOCH_MS_FLOOR) return future(n, nowMs);
  if (n >= EPOCH_S_FLOOR) return future(n * 1000, nowMs);
  return nowMs + clampDelta(n * 1000);
}

function future(atMs: number, nowMs: number): number | undefined {
  if (!Number.isFinite(atMs) || atMs <= nowMs) return undefined;
  return Math.min(atMs, nowMs + MAX_RESET_MS);
}

function clampDelta(ms: number): number {
  return Number.isFinite(ms) ? Math.min(ms, MAX_RESET_MS) : MAX_RESET_MS;
}

function parseDate(text: string, nowMs: number): number | undefined {
  // Only text that names a date: Date.parse also accepts bare numbers and odd fragments.
  if (!/[a-z]/i.test(text) || !/\d{4}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : future(at, nowMs);
}

function count(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function headerReader(headers: HeaderBag): (name: string) => string | undefined {
  // Duck-typed: reading the global `Headers` makes Node load its own copy of undici.
  if (typeof headers.get === 'function') return (name) => (headers as Headers).get(name) ?? undefined;
  const lower = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    lower.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return (name) => lower.get(name);
}

interface Member {
  /** The bare item: a policy name, or (older drafts) a number or a key of a dictionary. */
  item: string;
  params: Map<string, string>;
}

/** Splits a structured-field list or dictionary into members with their parameters. */
function parseMembers(value: string | undefined): Member[] {
  if (!value) return [];
  const members: Member[] = [];
  for (const raw of splitOutsideQuotes(value, ',')) {
    const [head = '', ...rest] = splitOutsideQuotes(raw, ';').map((part) => part.trim());
    if (!head) continue;
    const params = new Map<string, string>();
    for (const param of rest) {
      const eq = param.indexOf('=');
      if (eq > 0) params.set(param.slice(0, eq).trim().toLowerCase(), unquote(param.slice(eq + 1).trim()));
    }
    const eq = head.startsWith('"') ? -1 : head.indexOf('=');
    // Dictionary form (`limit=100`): the key is the item, its value a parameter named after it.
    if (eq > 0) params.set(head.slice(0, eq).trim().toLowerCase(), unquote(head.slice(eq + 1).trim()));
    members.push({ item: eq > 0 ? head.slice(0, eq).trim().toLowerCase() : unquote(head), params });
  }
  return members;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && quoted) {
      current += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
      current += ch;
    } else if (ch === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;
}

/**
 * The IETF forms: `RateLimit: "default";r=0;t=30` with `RateLimit-Policy: "default";q=100;w=3600`,
 * and the older `RateLimit: limit=100, remaining=0, reset=30` with `RateLimit-Policy: 100;w=3600`.
 */
function parseIetf(rateLimit: string | undefined, policyHeader: string | undefined, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = {};
  const members = parseMembers(rateLimit);
  const policies = parseMembers(policyHeader);

  const dictionary = members.filter((m) => m.item === 'limit' || m.item === 'remaining' || m.item === 'reset');
  if (dictionary.length > 0) {
    const value = (key: string) => dictionary.find((m) => m.item === key)?.params.get(key);
    info.limit = count(value('limit'));
    info.remaining = count(value('remaining'));
    info.resetAt = parseReset(value('reset'), nowMs);
  } else {
    // Several policies may apply: the one with the fewest requests left is the one that binds.
    let binding: Member | undefined;
    for (const member of members) {
      const r = count(member.params.get('r'));
      const best = binding && count(binding.params.get('r'));
      if (!binding || (r !== undefined && (best === undefined || r < best))) binding = member;
    }
    if (binding) {
      const name = binding.item;
      info.remaining = count(binding.params.get('r'));
      info.resetAt = parseReset(binding.params.get('t'), nowMs);
      const policy = policies.find((p) => p.item === name);
      if (policy) Object.assign(info, readPolicy(policy));
    }
  }
  if (policies.length === 1 && policies[0]) {
    const only = readPolicy(policies[0]);
    info.limit ??= only.limit;
    info.windowSeconds ??= only.windowSeconds;
  }
  return info;
}

function readPolicy(policy: Member): RateLimitInfo {
  const info: RateLimitInfo = {};
  const limit = count(policy.params.get('q')) ?? count(policy.item);
  const window = count(policy.params.get('w'));
  if (limit !== undefined) info.limit = limit;
  if (window !== undefined && window > 0) info.windowSeconds = window;
  return info;
}

/** The service's free tier: 100 requests per hour per key. */
export const FREE_TIER_LIMIT = 100;
export const RATE_LIMIT_HINT = 'wait for the reset (the wait option does), or ask the service operator for a higher tier';

/** The reset time to report: from the server, or estimated from the local request count. */
export interface ResetEstimate {
  resetAt?: number;
  fromServer: boolean;
}

/** What the request ledger (src/store/port.ts) knows: the last rate-limit facts, and the oldest request of the last hour. */
export interface LedgerFacts {
  last?: { resetAt?: number };
  /** The start of the minute of the oldest request of the last hour. */
  oldestAt?: number;
}

/** When the limit resets: the server's word, else its earlier word, else the local count's estimate. */
export function estimateReset(info: RateLimitInfo, ledger: LedgerFacts | undefined, nowMs: number): ResetEstimate {
  if (info.resetAt !== undefined) return { resetAt: info.resetAt, fromServer: true };
  const last = ledger?.last;
  if (last?.resetAt !== undefined && last.resetAt > nowMs) return { resetAt: last.resetAt, fromServer: true };
  const oldest = ledger?.oldestAt;
  if (oldest !== undefined && oldest + HOUR_MS > nowMs) return { resetAt: oldest + HOUR_MS, fromServer: false };
  return { fromServer: false };
}

/** Builds the 429 error: `rate limit reached: 100 requests per hour; resets in 14 min (at 18:42)`. */
export function rateLimitError(info: RateLimitInfo, reset: ResetEstimate, nowMs: number): RateLimitError {
  const limit = info.limit !== undefined ? `${info.limit} requests ${perWindow(info.windowSeconds)}` : `the free tier's ${FREE_TIER_LIMIT} requests per hour`;
  const when = reset.resetAt !== undefined ? describeReset(reset.resetAt, nowMs, !reset.fromServer) : 'the reset time is unknown';
  return new RateLimitError(`rate limit reached: ${limit}; ${when}`, {
    // Stryker disable next-line ConditionalExpression: RateLimitError sets resetAt from it, undefined or not
    ...(reset.resetAt !== undefined ? { resetAt: reset.resetAt } : {}),
    resetFromServer: reset.fromServer,
    // Stryker disable next-line ConditionalExpression: RateLimitError sets limit from it, undefined or not
    ...(info.limit !== undefined ? { limit: info.limit } : {}),
    hint: RATE_LIMIT_HINT,
    reason: 'rateLimit',
  });
}

/** `resets in 14 min (at 18:42)`, or with "about" for an estimate. */
export function describeReset(resetAt: number, nowMs: number, estimated: boolean): string {
  const about = estimated ? 'about ' : '';
  if (resetAt <= nowMs) return `resets ${about}now`;
  // Past two days a clock time alone would read as tomorrow's: days and the date, as the server said.
  if (resetAt - nowMs >= 2 * DAY_MS) return `resets in ${about}${Math.round((resetAt - nowMs) / DAY_MS)} days (on ${about}${localDay(resetAt)})`;
  return `resets in ${about}${formatRelative(resetAt - nowMs)} (at ${about}${formatClock(resetAt, nowMs)})`;
}

/** `2036-11-22`, in the local time zone. */
function localDay(atMs: number): string {
  const date = new Date(atMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
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
