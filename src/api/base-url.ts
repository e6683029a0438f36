// Base URLs, once: which are accepted (http(s); plain http only for loopback, so the key never travels
// in the clear), how one is keyed by the local stores, shown and stored, and each endpoint's URL from it.
import type { Endpoint } from '../views/index.js';
import { hasControlCharacter } from '../text.js';
import { UsageError } from './errors.js';

/**
 * The base URL as the local stores key it (the history's points, the answer cache's entries): no
 * userinfo, query, fragment or trailing slash, as requests never carry them. Throws for no URL.
 */
export function baseUrlKey(baseUrl: URL | string): string {
  const text = typeof baseUrl === 'string' ? baseUrl : baseUrl.href;
  // A run keys one base URL, once a point of a batch: the last one is kept rather than parsed again.
  if (lastKeyed?.text === text) return lastKeyed.key;
  const url = new URL(text);
  // Only what is there is cleared: each setter parses the URL again (and on Node 20 compiles on first use).
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  if (url.href.includes('?') || url.href.includes('#')) {
    url.search = '';
    url.hash = '';
  }
  lastKeyed = { text, key: url.href.replace(/\/+$/, '') };
  return lastKeyed.key;
}
let lastKeyed: { text: string; key: string } | undefined;

/**
 * Validates a base URL: http(s) only, plain http only for loopback hosts (the key would travel in the
 * clear), no query, fragment or credentials. The path is kept, without a trailing slash. `from`
 * names where the value came from in the message (`--base-url`, `the baseUrl option`).
 */
export function checkBaseUrl(value: string | URL, from: string): URL {
  let url: URL;
  try {
    const text = typeof value === 'string' ? value.trim() : value.href;
    if (hasControlCharacter(text)) throw new TypeError('a control character'); // `…/api\nv2` would be …/apiv2
    url = new URL(text);
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

/** A base URL as shown and stored: without the slash URL puts after a bare origin. */
export function baseUrlText(url: URL): string {
  return url.href.replace(/\/$/, '');
}

/**
 * Where a GET goes, in the parts Node's client takes (what node:url's urlToHttpOptions makes of a URL):
 * the origin's, worked out once a base URL, and the path. The URL object is made only when asked (a
 * message, a redirect, the proxy's client): a batch's requests need none, nor Node's conversion of one.
 */
export class RequestTarget {
  #url: URL | undefined;
  constructor(
    readonly origin: Origin,
    /** The path and query, as the URL parser writes them. */
    readonly path: string,
    /** The whole URL as text, as the URL parser writes it (--debug shows it). */
    readonly href: string,
    url?: URL,
  ) {
    this.#url = url;
  }

  get url(): URL {
    return (this.#url ??= new URL(this.href));
  }

  /** A URL's user name and password, decoded, which Node's client sends as Basic authorization (a redirect may carry them). */
  get auth(): string | undefined {
    const url = this.#url;
    return url && (url.username || url.password) ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  }
}

/** A URL's origin in the parts Node's client takes. */
export interface Origin {
  /** As URL writes it (`http://[::1]:8080`): what a redirect is compared with, and the key of its way out. */
  readonly text: string;
  readonly protocol: string;
  /** Without an IPv6 address's brackets. */
  readonly hostname: string;
  /** None for the scheme's default port. */
  readonly port: number | undefined;
}

/** The target of a URL at hand (a redirect, a raw path), kept with it. */
export function targetOf(url: URL): RequestTarget {
  return new RequestTarget(originOf(url), `${url.pathname}${url.search}`, url.href, url);
}

function originOf(url: URL): Origin {
  const { hostname, port } = url;
  return {
    text: url.origin,
    protocol: url.protocol,
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: port === '' ? undefined : Number(port),
  };
}

/** `https://host/v2/api` + `audit` + `AT&T #5` → `https://host/v2/api/audit?q=AT%26T%20%235`, built as text. */
export function endpointTarget(baseUrl: URL, endpoint: Endpoint, q?: string): RequestTarget {
  const href = baseUrl.href;
  // A run builds on one base URL, once a name of a batch: its parts are kept rather than found again.
  if (lastBase?.href !== href) {
    // In an href the first `?` or `#` starts the query or fragment: elsewhere they are percent-encoded.
    const end = href.search(/[?#]/);
    lastBase = {
      href,
      prefix: (end === -1 ? href : href.slice(0, end)).replace(/\/+$/, ''),
      path: baseUrl.pathname.replace(/\/+$/, ''),
      origin: originOf(baseUrl),
    };
  }
  // encodeURIComponent, not URLSearchParams: spaces go as %20 and every reserved character is escaped;
  // of what it leaves, the URL parser escapes `'` in a query (so would a URL made of this text).
  const rest = `/${endpoint}${q === undefined ? '' : `?q=${encodeURIComponent(q).replaceAll("'", '%27')}`}`;
  return new RequestTarget(lastBase.origin, `${lastBase.path}${rest}`, `${lastBase.prefix}${rest}`);
}
let lastBase: { href: string; prefix: string; path: string; origin: Origin } | undefined;

/**
 * A raw path below the base URL (`rep api PATH`, client.get): `pulse`, `audit?q=Acme`. An absolute URL,
 * a scheme-relative one, or `..` above the base is a usage error: the key goes to the base URL only.
 * A path that names an endpoint of ours (`audit?q=…`, `search?q=…`, `pulse`) is that endpoint's
 * question, so it shares the answer cache and the error wording of the command.
 */
export function pathTarget(baseUrl: URL, path: string): { target: RequestTarget; endpoint?: Endpoint; q?: string } {
  const trimmed = path.trim().replace(/^\/+(?!\/)/, '');
  // A tab or line break inside would be dropped by the URL parser (`pul\nse` is pulse): refused instead.
  if (trimmed === '' || hasControlCharacter(trimmed) || /^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//') || trimmed.includes('\\')) {
    throw new UsageError(`the path ${JSON.stringify(path)} is not a path below the base URL`, { hint: 'give a path such as pulse or audit?q=Acme' });
  }
  const base = baseUrl.href.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const url = new URL(`${base}/${trimmed}`);
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  if (url.origin !== baseUrl.origin || !url.pathname.startsWith(`${basePath}/`)) {
    throw new UsageError(`the path ${JSON.stringify(path)} leaves the base URL ${base}`, { hint: 'give a path below the base URL, without ..' });
  }
  const endpoint = (['audit', 'search', 'pulse'] as const).find((name) => url.pathname === `${basePath}/${name}`);
  const params = [...url.searchParams.keys()];
  if (endpoint === 'pulse' && params.length === 0 && !url.hash) return { target: targetOf(url), endpoint };
  const q = url.searchParams.get('q');
  if (endpoint && endpoint !== 'pulse' && q !== null && params.length === 1 && !url.hash && url.href === endpointTarget(baseUrl, endpoint, q).href)
    return { target: targetOf(url), endpoint, q };
  return { target: targetOf(url) };
}
