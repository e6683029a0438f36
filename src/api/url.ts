// Request URLs: `{baseUrl}/{endpoint}?q=…`, keeping any path the base URL carries.
import type { Endpoint } from './types.js';

/** `https://host/v2/api` + `audit` + `AT&T #5` → `https://host/v2/api/audit?q=AT%26T%20%235`. */
export function buildUrl(baseUrl: URL, endpoint: Endpoint, q?: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${endpoint}`;
  url.hash = '';
  // encodeURIComponent, not URLSearchParams: spaces go as %20 and every reserved character is escaped.
  url.search = q === undefined ? '' : `?q=${encodeURIComponent(q)}`;
  return url;
}

/** Where a URL points, for messages: origin and path, never the query. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** `host:port` with the scheme's default port spelled out, for connection messages. */
export function hostAndPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}
