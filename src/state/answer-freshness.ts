// The server's own word on how long an answer may be reused (RFC 9111 §4.2), for the answer cache:
// no-store and no-cache keep it out, max-age or Expires cap its life, Age and Date count against it.
// Cache-Control is parsed by undici's parser, loaded by path: it needs undici's core utilities
// (net, stream), which a fresh answer has loaded already, so only put() imports this file and a cache
// hit never does. The build puts it in undici's leaf (dist/lib/undici.cjs), beside that core.
import { hasInvalidCacheControlDirective, parseCacheControlHeader } from 'undici/lib/util/cache.js';
import { parseHttpDate } from 'undici/lib/util/date.js';

/** Response headers as undici gives them (lower-case names); other spellings are found too. */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

/** Whether an answer may be kept, and until when (epoch ms, local clock) when the server set a limit. */
export type Freshness = { keep: true; freshUntil?: number } | { keep: false; reason: string };

/** An Age past this (or not a number) means the answer is already stale, as undici reads it. */
const MAX_AGE_HEADER_SECONDS = 2_147_483_647;

export function freshnessOf(headers: AnswerHeaders, receivedAt: number): Freshness {
  const cacheControl = header(headers, 'cache-control');
  const directives = cacheControl === undefined ? {} : parseCacheControlHeader(cacheControl);
  if (directives['no-store']) return { keep: false, reason: 'the server said Cache-Control: no-store' };
  // no-cache allows storing only to revalidate first; rep never revalidates, so it keeps nothing.
  if (directives['no-cache'] || (cacheControl === undefined && /no-cache/i.test(String(header(headers, 'pragma') ?? '')))) {
    return { keep: false, reason: 'the server said Cache-Control: no-cache' };
  }
  if (String(header(headers, 'vary') ?? '').trim() === '*') return { keep: false, reason: 'the server said Vary: *' };

  const serverDate = dateOf(header(headers, 'date'));
  const lifetime = lifetimeMs(directives, header(headers, 'expires'), serverDate ?? receivedAt);
  if (lifetime === undefined) return { keep: true };
  // RFC 9111 §4.2.3: the answer is as old as the Age it came with, or as its Date says, whichever is more.
  const apparentAge = serverDate === undefined ? 0 : Math.max(0, receivedAt - serverDate);
  const remaining = lifetime - Math.max(apparentAge, ageMs(header(headers, 'age')));
  if (!(remaining > 0)) return { keep: false, reason: 'the server said the answer is already stale (max-age, Expires or Age)' };
  return { keep: true, freshUntil: receivedAt + remaining };
}

/** The freshness lifetime the server gave (max-age wins over Expires; s-maxage is for shared caches), if any. */
function lifetimeMs(directives: ReturnType<typeof parseCacheControlHeader>, expires: string | string[] | undefined, since: number): number | undefined {
  if (hasInvalidCacheControlDirective(directives, 'max-age')) return 0;
  const maxAge = directives['max-age'];
  if (maxAge !== undefined) return maxAge * 1000;
  if (expires === undefined) return undefined;
  // An Expires that is not one valid date means "already expired" (RFC 9111 §5.3).
  const at = dateOf(expires);
  return at === undefined ? 0 : at - since;
}

function ageMs(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  if (text === undefined || !/^[\t ]*\d+[\t ]*$/.test(text)) return MAX_AGE_HEADER_SECONDS * 1000;
  return Math.min(Number(text.trim()), MAX_AGE_HEADER_SECONDS) * 1000;
}

function dateOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  return text === undefined ? undefined : parseHttpDate(text.trim())?.getTime();
}

function header(headers: AnswerHeaders, name: string): string | string[] | undefined {
  // Stryker disable next-line ConditionalExpression: a shortcut; the loop below finds the same value
  if (headers[name] !== undefined) return headers[name];
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}
