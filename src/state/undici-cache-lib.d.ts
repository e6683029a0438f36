// Types for the undici internals answer-freshness.ts imports by path (the package types only its index).
declare module 'undici/lib/util/cache.js' {
  import type CacheHandler from 'undici/types/cache-interceptor.js';

  export function parseCacheControlHeader(header: string | string[]): CacheHandler.CacheControlDirectives;
  /** True when the header held the directive more than once or with a malformed value (such a directive is ignored). */
  export function hasInvalidCacheControlDirective(directives: CacheHandler.CacheControlDirectives, name: string): boolean;
}

declare module 'undici/lib/util/date.js' {
  /** An IMF-fixdate, RFC 850 or asctime date; undefined when it is none of them. */
  export function parseHttpDate(date: string): Date | undefined;
}
