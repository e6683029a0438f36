// The URLs rep builds (src/api/request.ts): request URLs and the base URL as the local stores key it,
// made from text in one parse; they must be what WHATWG URL's setters make of the same parts.
import { describe, expect, it } from 'vitest';
import { baseUrlKey, buildUrl, checkBaseUrl } from '../src/api/base-url.js';
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

describe('buildUrl', () => {
  it('is what the URL setters make of the base, endpoint and query, for every base and query', () => {
    for (const base of BASES) {
      for (const endpoint of ENDPOINTS) {
        for (const q of QUERIES) expect(buildUrl(new URL(base), endpoint, q).href, `${base} ${endpoint} ${q}`).toBe(bySetters(new URL(base), endpoint, q).href);
      }
    }
  });

  it('escapes every reserved character of the query and drops the base fragment', () => {
    expect(buildUrl(new URL('https://h.example/v2/api/#top'), 'audit', 'AT&T #5').href).toBe('https://h.example/v2/api/audit?q=AT%26T%20%235');
    expect(buildUrl(checkBaseUrl('http://localhost:9/api/', '--base-url'), 'pulse').href).toBe('http://localhost:9/api/pulse');
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
