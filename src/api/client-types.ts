// The library client's public shapes: its options, hooks and their events, a call's result, and its
// defaults. Types and constants only: client.ts is the behaviour, and re-exports all of these.
import type { AnswerStorePort, LedgerPort, PutOutcome, SingleFlightPort } from '../store/port.js';
import type { AuditView, Endpoint, PulseView, SearchView } from '../views/index.js';
import type { RepError } from './errors.js';
import type { RateLimitInfo } from './rate-limit.js';
import type { RequestEvent, ResponseEvent } from './transport.js';

export type { RequestEvent, ResponseEvent } from './transport.js';

export interface ClientOptions {
  /** The API's base URL, usually ending in /api (`https://host/api`); plain http only for loopback hosts. */
  baseUrl: string | URL;
  /** Sent as `Authorization: Bearer …`; without one, no Authorization header is sent. */
  apiKey?: string;
  /** Seconds per attempt (connect, headers and body), like the CLI's --timeout. Default 30. */
  timeout?: number;
  /** Extra attempts after a network error or a 500/502/503/504. Default 2. */
  retries?: number;
  /** On 429, sleep until the limit resets and try again (default: reject with RateLimitError at once). */
  wait?: boolean;
  /** Seconds of rate-limit waiting this client may spend in all, on the wall clock. Default 3600. */
  maxWait?: number;
  /** Aborting it stops every call of this client at once (InterruptedError). */
  signal?: AbortSignal;
  hooks?: RepHooks;
  /**
   * What the client keeps (a Store, e.g. openLocalStore's, shares rep's memory): `answers`, where an
   * answer younger than maxAge is given with no request and each success the server lets be kept is
   * stored; `ledger`, where each request is counted as it is sent. The caller closes the store.
   */
  store?: ClientStore;
  /** Seconds an answer from `store` stays good (0: always fetch). Default 900, as the CLI's. */
  maxAge?: number;
  /** The base URL answers and requests are filed under in `store` (default baseUrl): a server that changes port, like rep's sandbox, stays one. */
  storeBaseUrl?: string | URL;
  /** Default `rep`. */
  userAgent?: string;
  /** Proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) are read from here only: pass `process.env` to honour the environment's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** @internal Test seam: the clock (epoch ms). */
  now?: () => number;
  /** @internal Test seam: how to sleep. */
  sleep?: Sleep;
  /** @internal Test seam: the jitter source. */
  random?: () => number;
}

/**
 * What the client tells as it works (ky's hooks are the model). A hook that throws fails the call.
 * Whether onRequest and onResponse are given is read once, when the client is made.
 */
export interface RepHooks {
  /** Each HTTP request (a redirect's next hop too), the Authorization header masked. */
  onRequest?(request: RequestEvent): void;
  /** Each HTTP response (a redirect too), header values with the key masked. */
  onResponse?(response: ResponseEvent): void;
  /** Each look in the cache (hit with the answer's age, or miss) and what storing a fresh answer did. */
  onCache?(event: CacheEvent): void;
  /** A failed attempt is tried again after delayMs; awaited before the client sleeps. */
  onRetry?(retry: RetryEvent): void | Promise<void>;
  /**
   * Under `wait`, a 429's wait begins; awaited, then the client sleeps `ms`. `signal` aborts when the
   * wait is over (or cut short). Calls that meet the limit while a wait is under way join it untold.
   */
  onRateLimitWait?(wait: RateLimitWaitEvent): void | Promise<void>;
  /** Once per client: a response said LOW_QUOTA or fewer requests are left in the window (not a 429). */
  onLowQuota?(quota: LowQuotaEvent): void;
}

/** The parts of a Store (src/store/port.ts) the client uses; either may be left out (`--no-cache` keeps the ledger only). */
export interface ClientStore {
  answers?: AnswerStorePort;
  ledger?: LedgerPort;
  /** A shared store's: the same question asked at once by other processes is sent once. */
  singleFlight?: SingleFlightPort;
}

export type { PutOutcome } from '../store/port.js';

export type CacheEvent =
  | { endpoint: Endpoint; query: string; kind: 'hit'; ageMs: number }
  | { endpoint: Endpoint; query: string; kind: 'miss' }
  | { endpoint: Endpoint; query: string; kind: 'put'; outcome: PutOutcome };

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  retries: number;
  delayMs: number;
  error: RepError;
}

export interface RateLimitWaitEvent {
  ms: number;
  /** When the wait ends (epoch ms). */
  until: number;
  signal: AbortSignal;
  /** `rate limited; waiting 14 min (until 18:42), then retrying` */
  message: string;
}

export interface LowQuotaEvent {
  remaining: number;
  limit?: number;
  /** When the window resets (epoch ms), if the server said. */
  resetAt?: number;
  /** `3 requests left in this rate-limit window; resets in 10 min (at 18:42)` */
  message: string;
}

export interface RepResult<V> {
  /** The server's JSON, unchanged. */
  body: unknown;
  /** The typed view of body. */
  view: V;
  /** What the response's headers said about the rate limit (empty when they said nothing). */
  rateLimit: RateLimitInfo;
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Set when the answer came from the cache (no request was sent): how old it is, and when it was fetched (epoch ms). */
  fromCache?: { ageMs: number; fetchedAt: number };
}

export interface CallOptions {
  /** Aborts this one call (InterruptedError). */
  signal?: AbortSignal;
  /** Answer from the cache or not at all (fetch's `only-if-cached`): nothing is sent, and a miss rejects with NotCachedError. */
  onlyIfCached?: boolean;
  /**
   * Called once the server's answer is in and no more requests will be sent for this call, before
   * the client stores the answer in the cache (a batch starts its next request then).
   * @internal
   */
  onAnswered?: () => void;
  /**
   * The caller looked in the cache for this question a moment ago and found nothing (a batch's plan):
   * it is not looked up again (the miss is still told to `onCache`).
   * @internal
   */
  knownMiss?: boolean;
  /**
   * Called when the cache has no answer, before the call sends anything, and its promise awaited (none:
   * send at once): a batch bounds its requests in flight there, not its cache lookups. It may reject;
   * the call then rejects with its error.
   * @internal
   */
  beforeSend?: () => Promise<void> | undefined;
}

export interface RepClient {
  /** A company's Reputation Score and summary by source. NotFoundError when there is no such company. */
  audit(name: string, options?: CallOptions): Promise<RepResult<AuditView>>;
  /** Matching companies, cities and categories. */
  search(text: string, options?: CallOptions): Promise<RepResult<SearchView>>;
  /** The market index. */
  pulse(options?: CallOptions): Promise<RepResult<PulseView>>;
  /**
   * A raw GET of `{baseUrl}/path` (`pulse`, `audit?q=Acme`) with every safeguard of the other calls;
   * the view is the body. A path that leaves the base URL rejects with UsageError, sent nowhere.
   */
  get(path: string, options?: CallOptions): Promise<RepResult<unknown>>;
}

/** Sleeps ms, or throws InterruptedError as soon as the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_MAX_WAIT_SECONDS = 3600;
/** onLowQuota fires when a response says this few requests are left. */
export const LOW_QUOTA = 10;
/** Slept past the reset, so the retry does not land a moment early on the server's clock. */
export const RESET_MARGIN_MS = 1000;
/** Under `wait` with no reset time known at all, retry after this long. */
export const UNKNOWN_RESET_WAIT_MS = 60_000;
/** maxAge when none is given, in seconds (the CLI's default --max-age). */
export const DEFAULT_MAX_AGE_SECONDS = 900;
