// The API client commands use: builds the URL, sends the GET through the transport, retries what is
// safe to retry, turns 429 into a RateLimitError (or waits it out under --wait), and parses the JSON.
import type { IO } from '../io.js';
import { HOUR_MS, type RequestLog } from '../state/requests.js';
import { errorFromStatus, InterruptedError, NetworkError, parseJsonBody, RateLimitError, type Answer, type RepError } from './errors.js';
import { describeReset, formatRelative, rateLimitError, type ResetEstimate } from './rate-limit-message.js';
import { hasRateLimitInfo, parseRateLimitHeaders, parseRetryAfter, type RateLimitInfo } from './ratelimit.js';
import { keyRedactor, maskKey } from './redact.js';
import { isRetryableStatus, retryDelay } from './retry.js';
import { createTransport, type RawAnswer } from './transport.js';
import type { ApiClient, ApiResponse, CallOptions, Endpoint } from './types.js';
import { linkSignals } from './signals.js';
import { buildUrl } from './url.js';
import { sleep as realSleep, waitWithCountdown, type Sleep } from './wait.js';

export interface ClientOptions {
  /** Already validated (http(s); http only for loopback); its path is kept. */
  baseUrl: URL;
  /** No key: no Authorization header is sent. */
  key?: string;
  /** Per attempt: connect + headers + body. */
  timeoutMs: number;
  /** Extra attempts for network errors and 500/502/503/504. */
  retries: number;
  /** `--wait`: on 429 sleep until the reset, then retry. */
  wait: boolean;
  /** `--max-wait`: the budget for all rate-limit waiting of this client. */
  maxWaitMs: number;
  now: () => number;
  /** `--debug` lines (no-op otherwise). The key never reaches it. */
  debug: (line: string) => void;
  /** One warning line on stderr. */
  warn: (text: string) => void;
  /** For the `--wait` countdown on a terminal, or the line that says rep waits elsewhere. */
  io: IO;
  /** `--quiet`: wait without a word. */
  quiet?: boolean;
  /** Undefined under --sandbox (which writes no files). */
  requestLog?: RequestLog;
  /** Aborted on Ctrl-C: stop at once with InterruptedError. */
  signal?: AbortSignal;
  userAgent?: string;
  /** Where proxy variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Test seams: how to sleep, and the jitter source. */
  sleep?: Sleep;
  random?: () => number;
}

/** Warn when the server says this few requests are left. */
export const LOW_REMAINING = 10;
/** Slept past the reset, so the retry does not land a moment early on the server's clock. */
export const RESET_MARGIN_MS = 1000;
/** Under --wait with no reset time known at all, retry after this long. */
export const UNKNOWN_RESET_WAIT_MS = 60_000;

export function createClient(options: ClientOptions): ApiClient {
  const redact = keyRedactor(options.key);
  const debug = (line: string) => options.debug(redact(line));
  const sleep = options.sleep ?? realSleep;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'rep' };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const transport = createTransport({
    headers,
    ...(options.key ? { maskedAuthorization: `Bearer ${maskKey(options.key)}` } : {}),
    timeoutMs: options.timeoutMs,
    env: options.env ?? process.env,
    debug,
    onSend: () => options.requestLog?.record(options.now()),
  });
  let waitedMs = 0;
  /** Rate-limit waits under way: requests in flight together meet the limit together, and one telling is enough. */
  let waits = 0;
  let warnedLow = false;

  /** When the limit resets: the server's word, else its earlier word, else the local count's estimate. */
  function resetOf(info: RateLimitInfo): ResetEstimate {
    const now = options.now();
    if (info.resetAt !== undefined) return { resetAt: info.resetAt, fromServer: true };
    const last = options.requestLog?.lastRateLimit();
    if (last?.resetAt !== undefined && last.resetAt > now) return { resetAt: last.resetAt, fromServer: true };
    const oldest = options.requestLog?.oldestSince(now - HOUR_MS);
    if (oldest !== undefined && oldest + HOUR_MS > now) return { resetAt: oldest + HOUR_MS, fromServer: false };
    return { fromServer: false };
  }

  async function waitForReset(error: RateLimitError, signal: AbortSignal | undefined, onWait: CallOptions['onWait']): Promise<void> {
    const now = options.now();
    const waitMs = error.resetAt !== undefined ? Math.max(RESET_MARGIN_MS, error.resetAt - now + RESET_MARGIN_MS) : UNKNOWN_RESET_WAIT_MS;
    if (waitedMs + waitMs > options.maxWaitMs) {
      debug(`rate limited: waiting ${formatRelative(waitMs)} would exceed --max-wait (${formatRelative(options.maxWaitMs)})`);
      error.hint = 'the reset is further away than --max-wait allows: raise --max-wait, or ask the service operator for a higher tier';
      throw error;
    }
    debug(`rate limited: waiting ${formatRelative(waitMs)} before retrying`);
    waitedMs += waitMs;
    waits += 1;
    onWait?.(true);
    try {
      if (options.quiet || waits > 1) await sleep(waitMs, signal);
      else await waitWithCountdown(waitMs, { io: options.io, sleep, now, ...(signal ? { signal } : {}) });
    } finally {
      waits -= 1;
      onWait?.(false);
    }
  }

  function noteRateLimit(info: RateLimitInfo, status: number): void {
    if (!hasRateLimitInfo(info)) return;
    options.requestLog?.noteRateLimit({ ...info, seenAt: options.now() });
    if (status === 429 || warnedLow || info.remaining === undefined || info.remaining > LOW_REMAINING) return;
    warnedLow = true;
    const resets = info.resetAt !== undefined ? `; ${describeReset(info.resetAt, options.now(), false)}` : '';
    options.warn(redact(`${info.remaining} ${info.remaining === 1 ? 'request' : 'requests'} left in this rate-limit window${resets}`));
  }

  return {
    async get(endpoint: Endpoint, q?: string, callOptions?: CallOptions): Promise<ApiResponse> {
      const linked = options.signal && callOptions?.signal ? linkSignals([options.signal, callOptions.signal]) : undefined;
      try {
        return await attempt(endpoint, q, linked?.signal ?? options.signal ?? callOptions?.signal, callOptions?.onWait);
      } finally {
        linked?.dispose();
      }
    },
  };

  /** One call: attempts, retries and rate-limit waits until an answer or a final error. */
  async function attempt(endpoint: Endpoint, q: string | undefined, signal: AbortSignal | undefined, onWait: CallOptions['onWait']): Promise<ApiResponse> {
    const url = buildUrl(options.baseUrl, endpoint, q);
    const retries = Math.max(0, Math.floor(options.retries));
    let retry = 0;

    const retryAfter = async (error: RepError, retryAfterAt: number | undefined): Promise<boolean> => {
      if (retry >= retries) return false;
      const delay = retryDelay(retry + 1, retryAfterAt === undefined ? undefined : retryAfterAt - options.now(), options.random);
      if (delay === undefined) {
        debug(`not retrying: the server asks to wait longer than a retry should (${error.message})`);
        return false;
      }
      retry++;
      debug(`retry ${retry} of ${retries} in ${delay} ms: ${error.message}`);
      await sleep(delay, signal);
      return true;
    };

    for (;;) {
      if (signal?.aborted) throw new InterruptedError();
      let raw: RawAnswer;
      try {
        raw = await transport(url, signal);
      } catch (error) {
        if (error instanceof NetworkError && error.retryable && (await retryAfter(error, undefined))) continue;
        throw error;
      }
      const info = parseRateLimitHeaders(raw.headers, options.now());
      noteRateLimit(info, raw.status);
      const answer: Answer = { ...raw, endpoint, hasKey: Boolean(options.key), redact, ...(q !== undefined ? { q } : {}) };

      if (raw.status === 429) {
        const error = rateLimitError(info, resetOf(info), options.now());
        if (!options.wait) throw error;
        await waitForReset(error, signal, onWait);
        continue;
      }
      if (raw.status >= 200 && raw.status < 300) {
        return { status: raw.status, headers: raw.headers, body: parseJsonBody(answer) };
      }
      const error = errorFromStatus(answer);
      if (isRetryableStatus(raw.status) && (await retryAfter(error, parseRetryAfter(raw.headers['retry-after'], options.now())))) continue;
      throw error;
    }
  }
}
