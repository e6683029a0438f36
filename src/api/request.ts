// What a request is made of, checked before anything is sent: the base URL (plain http only for
// loopback), the key (sendable as a header; masked wherever it is shown), and each endpoint's URL.
import { UsageError } from './errors.js';

export type Endpoint = 'audit' | 'search' | 'pulse';

/** Replaces the key with its mask in a text: every line the client describes passes through one. */
export type Redact = (text: string) => string;

/**
 * The base URL as the local stores key it (the history's points, the answer cache's entries): no
 * userinfo, query, fragment or trailing slash, as requests never carry them. Throws for no URL.
 */
export function baseUrlKey(baseUrl: URL | string): string {
  const url = new URL(typeof baseUrl === 'string' ? baseUrl : baseUrl.href);
  // Only what is there is cleared: each setter parses the URL again (and on Node 20 compiles on first use).
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  if (url.href.includes('?') || url.href.includes('#')) {
    url.search = '';
    url.hash = '';
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Validates a base URL: http(s) only, plain http only for loopback hosts (the key would travel in the
 * clear), no query, fragment or credentials. The path is kept, without a trailing slash. `from`
 * names where the value came from in the message (`--base-url`, `the baseUrl option`).
 */
export function checkBaseUrl(value: string | URL, from: string): URL {
  let url: URL;
  try {
    url = new URL(typeof value === 'string' ? value.trim() : value.href);
  } catch {
    throw new UsageError(`invalid base URL from ${from}: ${JSON.stringify(withoutUserinfo(String(value)))}`, {
      hint: 'give a full URL such as https://example.com/api',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // Without `//` after it, the "scheme" may be a user name: `user:password@host/api`.
    const typed = typeof value === 'string' ? value : value.href;
    const scheme = typed.trim().toLowerCase().startsWith(`${url.protocol}//`) ? url.protocol : 'its scheme';
    throw new UsageError(`invalid base URL from ${from}: ${scheme} is not http or https`, { hint: 'give a full URL such as https://example.com/api' });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing the plain http:// base URL from ${from} for ${url.hostname}: the API key would travel unencrypted`, {
      hint: 'use https://, or http:// only for localhost, 127.0.0.0/8 or [::1]',
    });
  }
  if (url.username || url.password) {
    throw new UsageError(`invalid base URL from ${from}: it must not carry a user name or password`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`invalid base URL from ${from}: it must not carry a query or fragment`, {
      hint: 'give the URL that ends in /api, e.g. https://example.com/api',
    });
  }
  if (url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** A base URL as typed, for a message: whatever comes before its last `@` (a user name, a password) is left out. */
export function withoutUserinfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return `${scheme}…@${value.slice(at + 1)}`;
}

/**
 * Whether a URL hostname is the local machine: `localhost`, 127.0.0.0/8, ::1 and their IPv4-mapped
 * forms (`[::ffff:127.0.0.1]`, which URL rewrites to `[::ffff:7f00:1]`). `localhost.` and
 * `*.localhost` are refused: a resolver may send them to DNS, which could answer with any address.
 * The URL parser writes an IP address one way only (`127.1` is `127.0.0.1`, `0:0:0:0:0:0:0:1` is
 * `::1`), so the check is on that form (node:net's BlockList would cost a module load of every run).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname).toLowerCase();
  if (host === 'localhost') return true;
  if (host.includes(':')) return /^::(1|ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.test(URL.parse(`http://[${host}]/`)?.hostname.slice(1, -1) ?? '');
  return /^127\.\d+\.\d+\.\d+$/.test(URL.parse(`http://${host}/`)?.hostname ?? '');
}

/**
 * A key must be sendable as a header value: printable ASCII without spaces. Checked before sending,
 * so a pasted stray character is a clear usage error, not a failure deep in the HTTP library.
 */
export function checkKey(key: string, from: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`the API key from ${from} has characters an API key cannot have (spaces, controls or non-ASCII)`, {
      hint: 'copy the key again from your account on the service',
    });
  }
  return key;
}

/** The key as it may be shown: its last 4 characters at most (none when the key is short). */
export function maskKey(key: string): string {
  return key.length >= 12 ? `****${key.slice(-4)}` : '****';
}

/** A Redact that replaces every occurrence of the key with its mask. */
export function keyRedactor(key: string | undefined): Redact {
  if (!key) return (text) => text;
  const mask = maskKey(key);
  return (text) => (text.includes(key) ? text.split(key).join(mask) : text);
}

/**
 * A parsed JSON body with the key masked in every string value and field name, so no format can
 * print it. Walked without recursion; skipped when the raw text cannot hold the key (no escapes in it).
 */
export function redactBody(body: unknown, text: string, key: string | undefined): unknown {
  if (!key || (!text.includes(key) && !text.includes('\\'))) return body;
  const redact = keyRedactor(key);
  if (typeof body === 'string') return redact(body);
  const pending: unknown[] = [body];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item === null || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    if (!Array.isArray(item) && Object.keys(record).some((name) => name.includes(key))) renameFields(record, redact);
    for (const name of Object.keys(record)) {
      const value = record[name];
      if (typeof value === 'string')
        record[name] = redact(value); // an own `__proto__` field is set as a field
      else pending.push(value);
    }
  }
  return body;
}

/** Renames fields in place, keeping their order; defineProperty, so a field named `__proto__` stays a field. */
function renameFields(record: Record<string, unknown>, redact: (text: string) => string): void {
  const entries = Object.entries(record);
  for (const [name] of entries) delete record[name];
  for (const [name, value] of entries) Object.defineProperty(record, redact(name), { value, enumerable: true, writable: true, configurable: true });
}

/** `https://host/v2/api` + `audit` + `AT&T #5` → `https://host/v2/api/audit?q=AT%26T%20%235`. */
export function buildUrl(baseUrl: URL, endpoint: Endpoint, q?: string): URL {
  // Parsed once from text (each setter of a URL parses it again). In an href the first `?` or `#`
  // starts the query or fragment: elsewhere they are percent-encoded.
  const href = baseUrl.href;
  const end = href.search(/[?#]/);
  const path = (end === -1 ? href : href.slice(0, end)).replace(/\/+$/, '');
  // encodeURIComponent, not URLSearchParams: spaces go as %20 and every reserved character is escaped.
  return new URL(`${path}/${endpoint}${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`);
}
