// The URLs rep builds (src/api/request.ts): request URLs and the base URL as the local stores key it,
// made from text in one parse; they must be what WHATWG URL's setters make of the same parts.
import { urlToHttpOptions } from 'node:url';
import { describe, expect, it } from 'vitest';
import { baseUrlKey, checkBaseUrl, endpointTarget, type RequestTarget, targetOf } from '../src/api/base-url.js';
import type { Endpoint } from '../src/views/index.js';

const BASES = [
  'https://h.example/api',
  'https://h.example/api/',
  'https://h.example/api//',
  'https://h.example',
  'https://h.example/',
  'http://127.0.0.1:8080/v2/api',
  'https://user:pw@h.example/api?x=1#frag',
  'https://h.example/a%3Fb%23c/api',
  'https://h.example/api?',
  'https://h.example/api#',
  'https://h.example/api/?q#f/',
  'https://H.EXAMPLE:443/Api/',
  'https://h.example/ап и/',
];
const QUERIES = [undefined, '', 'Blue Bottle', 'AT&T #5', "Кофейня 'Ромашка'", '?#&=+%/\\', '"<>`{}|^', 'a\u0000b\u007f', '☕ 😀', '%41'];
const ENDPOINTS: Endpoint[] = ['audit', 'search', 'pulse'];

/** What the URL setters make: the way these functions were first written. */
function bySetters(baseUrl: URL, endpoint: Endpoint, q?: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${endpoint}`;
  url.hash = '';
  url.search = q === undefined ? '' : `?q=${encodeURIComponent(q)}`;
  return url;
}

function keyBySetters(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** What Node's client makes of a URL, the parts a GET uses: the target must give it the same. */
function clientOptions(url: URL) {
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
  return { protocol, hostname, port, path, auth };
}

const optionsOf = (target: RequestTarget) => ({ ...target.origin, text: undefined, path: target.path, auth: target.auth });

describe('endpointTarget', () => {
  it('is what the URL setters make of the base, endpoint and query, for every base and query', () => {
    for (const base of BASES) {
      for (const endpoint of ENDPOINTS) {
        for (const q of QUERIES) {
          const target = endpointTarget(new URL(base), endpoint, q);
          const url = bySetters(new URL(base), endpoint, q);
          expect(target.href, `${base} ${endpoint} ${q}`).toBe(url.href);
          expect(target.url.href).toBe(url.href);
          expect(target.origin.text).toBe(url.origin);
        }
      }
    }
  });

  it("is what the URL parser makes of every character of a query, `'` included", () => {
    const base = new URL('https://h.example/api');
    for (let code = 0; code < 0x3000; code++) {
      const q = `a${String.fromCharCode(code)}b`;
      expect(endpointTarget(base, 'audit', q).href, `U+${code.toString(16)}`).toBe(bySetters(base, 'audit', q).href);
    }
  });

  it("gives Node's client what it would make of the URL: IPv6 without brackets, a port only when not the default", () => {
    const bases = [
      'http://[::1]:8080/api',
      'http://[::ffff:127.0.0.1]/api',
      'https://h.example:443/api',
      'https://h.example:8443/v2/api/',
      'http://127.0.0.1:80/',
    ];
    for (const base of bases) {
      const target = endpointTarget(checkBaseUrl(base, '--base-url'), 'audit', "O'Brien & Co");
      expect(optionsOf(target), base).toEqual({ ...clientOptions(target.url), text: undefined });
    }
  });

  it("gives a URL's user name and password as Node's client would send them (a redirect may carry them)", () => {
    const url = new URL('https://us%20er:p%40ss@[::1]:8443/api/audit?q=x#frag');
    expect(optionsOf(targetOf(url))).toEqual({ ...clientOptions(url), text: undefined });
    expect(targetOf(url).auth).toBe('us er:p@ss');
    expect(targetOf(new URL('https://h.example/api')).auth).toBeUndefined();
  });

  it('escapes every reserved character of the query and drops the base fragment', () => {
    expect(endpointTarget(new URL('https://h.example/v2/api/#top'), 'audit', 'AT&T #5').href).toBe('https://h.example/v2/api/audit?q=AT%26T%20%235');
    expect(endpointTarget(new URL('https://h.example/v2/api/#top'), 'audit', 'AT&T #5').path).toBe('/v2/api/audit?q=AT%26T%20%235');
    expect(endpointTarget(checkBaseUrl('http://localhost:9/api/', '--base-url'), 'pulse').href).toBe('http://localhost:9/api/pulse');
  });
});

describe('baseUrlKey', () => {
  it('is what clearing the user, password, query and fragment makes, for every base, as a URL or as text', () => {
    for (const base of BASES) {
      expect(baseUrlKey(base), base).toBe(keyBySetters(base));
      expect(baseUrlKey(new URL(base)), base).toBe(keyBySetters(base));
    }
  });

  it('throws for text that is no URL', () => {
    expect(() => baseUrlKey('not a url')).toThrow(TypeError);
  });
});
