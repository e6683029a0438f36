// The server's own word on how long an answer may be reused (RFC 9111 §4.2), for the answer cache:
// no-store and no-cache keep it out, max-age or Expires cap its life, Age and Date count against it.
// Only put() needs it, after a request. Its two small grammars (Cache-Control and HTTP-date) are parsed
// here rather than by undici's parser, which would load undici's core (~40 modules) into a run that
// sent its request with Node's own client (src/api/http.ts). Where a header is malformed, the reading
// that keeps less wins, as in undici: a bad max-age means stale, a bad Expires means expired.

/** Response headers as Node gives them (lower-case names); other spellings are found too. */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

/** Whether an answer may be kept, and until when (epoch ms, local clock) when the server set a limit. */
export type Freshness = { keep: true; freshUntil?: number } | { keep: false; reason: string };

/** The largest delta-seconds a cache must handle (RFC 9111 §1.2.2); an Age that is no number counts as this. */
const MAX_DELTA_SECONDS = 2_147_483_647;

export function freshnessOf(given: AnswerHeaders, receivedAt: number): Freshness {
  const header = headerReader(given);
  const cacheControl = header('cache-control');
  // No header is the common case (a batch's every answer): nothing to parse.
  // Stryker disable next-line ConditionalExpression: only speed: no header parses as an empty one
  const directives = cacheControl === undefined ? NO_DIRECTIVES : parseCacheControl([cacheControl].flat().join(','));
  if (directives.noStore) return { keep: false, reason: 'the server said Cache-Control: no-store' };
  // no-cache allows storing only to revalidate first; rep never revalidates, so it keeps nothing.
  if (directives.noCache || (cacheControl === undefined && /no-cache/i.test(String(header('pragma') ?? '')))) {
    return { keep: false, reason: 'the server said Cache-Control: no-cache' };
  }
  if (String(header('vary') ?? '').trim() === '*') return { keep: false, reason: 'the server said Vary: *' };

  const expires = header('expires');
  // No limit set: the Date header (regular expressions to read) would change nothing.
  if (directives.maxAge === undefined && expires === undefined) return { keep: true };
  const serverDate = dateOf(header('date'));
  const lifetime = lifetimeMs(directives, expires, serverDate ?? receivedAt);
  // Stryker disable next-line ConditionalExpression,BlockStatement: a limit is set (above), so there is a lifetime
  if (lifetime === undefined) return { keep: true };
  // RFC 9111 §4.2.3: the answer is as old as the Age it came with, or as its Date says, whichever is more.
  const apparentAge = serverDate === undefined ? 0 : Math.max(0, receivedAt - serverDate);
  const remaining = lifetime - Math.max(apparentAge, ageMs(header('age')));
  if (!(remaining > 0)) return { keep: false, reason: 'the server said the answer is already stale (max-age, Expires or Age)' };
  return { keep: true, freshUntil: receivedAt + remaining };
}

/** The freshness lifetime the server gave (max-age wins over Expires; s-maxage is for shared caches), if any. */
function lifetimeMs(directives: CacheDirectives, expires: string | string[] | undefined, since: number): number | undefined {
  if (directives.maxAge !== undefined) return directives.maxAge * 1000;
  if (expires === undefined) return undefined;
  // An Expires that is not one valid date means "already expired" (RFC 9111 §5.3).
  const at = dateOf(expires);
  return at === undefined ? 0 : at - since;
}

function ageMs(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  if (text === undefined || !/^[\t ]*\d+[\t ]*$/.test(text)) return MAX_DELTA_SECONDS * 1000;
  return Math.min(Number(text.trim()), MAX_DELTA_SECONDS) * 1000;
}

function dateOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  return text === undefined ? undefined : parseHttpDate(text.trim());
}

/** Reads headers by lower-case name; the other spellings are looked for only when some name has one (Node's never do). */
function headerReader(headers: AnswerHeaders): (name: string) => string | string[] | undefined {
  const spelled = Object.keys(headers).some((key) => key !== key.toLowerCase());
  return spelled ? (name) => header(headers, name) : (name) => headers[name];
}

function header(headers: AnswerHeaders, name: string): string | string[] | undefined {
  // Stryker disable next-line ConditionalExpression: a shortcut; the loop below finds the same value
  if (headers[name] !== undefined) return headers[name];
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

// Cache-Control (RFC 9111 §5.2): directives split at commas outside quoted strings, names without case.

/** What rep reads of a Cache-Control header. maxAge is in seconds, 0 when a max-age was malformed. */
export interface CacheDirectives {
  noStore: boolean;
  noCache: boolean;
  maxAge?: number;
}

/** What no Cache-Control header says (read, never changed: parseCacheControl makes its own). */
const NO_DIRECTIVES: Readonly<CacheDirectives> = { noStore: false, noCache: false };

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9a-z]/;
/** Directives that forbid keeping the answer: found even when malformed (`no-store;x`, `"no-cache`). */
const RESTRICTIVE = ['no-store', 'no-cache'] as const;
const OWS_START = /^[ \t]+/;
const OWS_END = /[ \t]+$/;

export function parseCacheControl(value: string): CacheDirectives {
  const directives: CacheDirectives = { noStore: false, noCache: false };
  let maxAgeInvalid = false;
  for (const { text, afterOpenQuote } of splitDirectives(value.toLowerCase())) {
    const equals = text.indexOf('=');
    const rawName = equals === -1 ? text : text.slice(0, equals);
    const name = rawName.replace(OWS_START, '').replace(OWS_END, '');
    const restrictive = restrictiveName(name);
    if (restrictive === 'no-store') directives.noStore = true;
    if (restrictive === 'no-cache') directives.noCache = true;
    // A max-age inside an unclosed quoted string is not a directive; one invalid max-age spoils them all.
    if (name !== 'max-age' || afterOpenQuote || maxAgeInvalid) continue;
    const raw = equals === -1 ? undefined : text.slice(equals + 1).replace(OWS_END, '');
    // `max-age=60` or `max-age="60"`; no value, whitespace around "=" or anything but digits is invalid.
    const digits = raw === undefined || OWS_END.test(rawName) || OWS_START.test(raw) ? null : /^(?:(\d+)|"(\d+)")$/.exec(raw);
    if (!digits) {
      maxAgeInvalid = true;
      directives.maxAge = 0;
      continue;
    }
    const seconds = Math.min(Number(digits[1] ?? digits[2]), MAX_DELTA_SECONDS);
    directives.maxAge = directives.maxAge === undefined ? seconds : Math.min(directives.maxAge, seconds);
  }
  return directives;
}

/** The directives of a header, split at commas outside quoted strings; after a quote that never closes, at every comma. */
function splitDirectives(value: string): Array<{ text: string; afterOpenQuote: boolean }> {
  const parts: Array<{ text: string; afterOpenQuote: boolean }> = [];
  let start = 0;
  let quoteAt = -1;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (quoteAt !== -1) {
      if (char === '\\') i++;
      else if (char === '"') quoteAt = -1;
    } else if (char === '"') quoteAt = i;
    else if (char === ',') {
      parts.push({ text: value.slice(start, i), afterOpenQuote: false });
      start = i + 1;
    }
  }
  if (quoteAt === -1) {
    parts.push({ text: value.slice(start), afterOpenQuote: false });
    return parts;
  }
  // The quote never closed: the directive it opened in ends at the next comma, and what follows is suspect.
  let from = start;
  for (const piece of value.slice(start).split(',')) {
    parts.push({ text: piece, afterOpenQuote: from > quoteAt });
    from += piece.length + 1;
  }
  return parts;
}

/** 'no-store' or 'no-cache' for that name, also when malformed: followed by a non-token character, or with such characters inside. */
function restrictiveName(name: string): (typeof RESTRICTIVE)[number] | undefined {
  for (const restrictive of RESTRICTIVE) {
    if (name === restrictive) return restrictive;
    if (name.startsWith(restrictive) && !TOKEN_CHAR.test(name.charAt(restrictive.length))) return restrictive;
  }
  let tokenOnly = '';
  for (const char of name) if (TOKEN_CHAR.test(char)) tokenOnly += char;
  return tokenOnly !== name ? RESTRICTIVE.find((restrictive) => restrictive === tokenOnly) : undefined;
}

// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = String.raw`(?<hour>\d\d):(?<minute>\d\d):(?<second>\d\d)`;
const HTTP_DATES = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  new RegExp(String.raw`^(?:mon|tue|wed|thu|fri|sat|sun), (?<day>\d\d) (?<month>[a-z]{3}) (?<year>\d{4}) ${TIME} gmt$`),
  // asctime: Sun Nov  6 08:49:37 1994
  new RegExp(String.raw`^(?:mon|tue|wed|thu|fri|sat|sun) (?<month>[a-z]{3}) (?<day>[ \d]\d) ${TIME} (?<year>\d{4})$`),
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  new RegExp(String.raw`^(?:mon|tues|wednes|thurs|fri|satur|sun)day, (?<day>\d\d)-(?<month>[a-z]{3})-(?<shortYear>\d\d) ${TIME} gmt$`),
];

/** Epoch ms of an HTTP-date; undefined when the text is none of its three forms or no real time. */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  const lower = text.toLowerCase();
  const fields = HTTP_DATES.map((form) => form.exec(lower)?.groups).find(Boolean);
  if (!fields) return undefined;
  const { day = '', month: monthName = '', year: fullYear, shortYear = '', hour = '', minute = '', second = '' } = fields;
  let year = Number(fullYear);
  if (fullYear === undefined) {
    // A two-digit year more than 50 years ahead is the latest past year with those digits (RFC 9110 §5.6.7).
    const thisYear = new Date(now).getUTCFullYear();
    year = Math.floor(thisYear / 100) * 100 + Number(shortYear);
    if (year > thisYear + 50) year -= 100;
  }
  const month = MONTHS.indexOf(monthName);
  const [d, h, m, s] = [day, hour, minute, second].map(Number) as [number, number, number, number];
  if (month === -1 || h > 23 || m > 59 || s > 60) return undefined;
  const at = new Date(Date.UTC(year, month, d, h, m, Math.min(s, 59)));
  // Date.UTC rolls 31 Feb over into March: such a date is none.
  return at.getUTCFullYear() === year && at.getUTCMonth() === month && at.getUTCDate() === d ? at.getTime() : undefined;
}
