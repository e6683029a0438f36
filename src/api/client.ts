// The library's client: audit(name), search(text) and pulse() each send one GET and resolve to
// { body, view, rateLimit } or reject with a RepError. It retries what is safe to retry, waits out a
// rate limit when asked, and tells its hooks. It reads no config file or environment variable it is not
// given, and keeps nothing unless given a store (src/store/port.ts): then answers are cached and
// requests counted there, under the cache policy of src/store/policy.ts.
import { auditView, pulseView, searchView } from '../views/index.js';
import { InterruptedError, NetworkError, NotCachedError, UsageError, type RateLimitError, type RepError } from './errors.js';
import { errorFromResponse, parseJsonBody } from './response.js';
import { RETRY_STATUSES, retryDelay } from './retry.js';
import {
  describeReset,
  estimateReset,
  type LedgerFacts,
  hasRateLimitInfo,
  parseRateLimitHeaders,
  parseRetryAfter,
  rateLimitError,
  type RateLimitInfo,
} from './rate-limit.js';
import { admitAnswer, keyFingerprint } from '../store/policy.js';
import { cacheLookups } from './cache-lookups.js';
import type { AnswerKey, LedgerScope, PutOutcome, SingleFlightPort } from '../store/port.js';
import { formatClock, formatRelative, HOUR_MS, MAX_DELAY_SECONDS } from '../time.js';
import type { Endpoint } from '../views/index.js';
import { baseUrlKey, checkBaseUrl, endpointTarget, pathTarget, type RequestTarget } from './base-url.js';
import { checkKey, keyRedactor, redactBody } from './request.js';
import { anyAborted, linkSignals, type Signals } from './abort-link.js';
import { createTransport, type ApiResponse } from './transport.js';
import {
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_RETRIES,
  DEFAULT_MAX_WAIT_SECONDS,
  LOW_QUOTA,
  RESET_MARGIN_MS,
  UNKNOWN_RESET_WAIT_MS,
  DEFAULT_MAX_AGE_SECONDS,
  type ClientOptions,
  type RepResult,
  type CallOptions,
  type RepClient,
  type Sleep,
} from './client-types.js';

// The client's public shapes and defaults are defined in client-types.ts; importers find them here too.
export * from './client-types.js';

export function createClient(options: ClientOptions): RepClient {
  const baseUrl = checkBaseUrl(options.baseUrl, 'the baseUrl option');
  const key = options.apiKey === undefined || options.apiKey === '' ? undefined : checkKey(options.apiKey, 'the apiKey option');
  const hooks = options.hooks ?? {};
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const timeoutMs = checkNumber(options.timeout, 'timeout', DEFAULT_TIMEOUT_SECONDS, false, MAX_DELAY_SECONDS) * 1000;
  const retries = Math.floor(checkNumber(options.retries, 'retries', DEFAULT_RETRIES, true));
  const maxWaitMs = checkNumber(options.maxWait, 'maxWait', DEFAULT_MAX_WAIT_SECONDS, true, MAX_DELAY_SECONDS) * 1000;
  const redact = keyRedactor(key);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent ?? 'rep' };
  if (key) headers.authorization = `Bearer ${key}`;
  const answers = options.store?.answers;
  const lookup = answers ? cacheLookups(answers) : undefined;
  const ledger = options.store?.ledger;
  const maxAgeMs = checkNumber(options.maxAge, 'maxAge', DEFAULT_MAX_AGE_SECONDS, true) * 1000;
  const fingerprint = keyFingerprint(key);
  const scope: LedgerScope = { keyFingerprint: fingerprint, baseUrl: baseUrlKey(options.storeBaseUrl ?? baseUrl) };
  const answerKey = (endpoint: Endpoint, query: string): AnswerKey => ({ baseUrl: scope.baseUrl, endpoint, query, keyFingerprint: fingerprint });
  const transport = createTransport({
    headers,
    timeoutMs,
    env: options.env ?? {},
    // Requests and responses are described with the key masked (`Bearer ****WXYZ`): redacted at the source.
    redact,
    // None when no hook listens: the transport then builds no event for either.
    ...(hooks.onRequest ? { onRequest: (request) => hooks.onRequest?.(request) } : {}),
    ...(hooks.onResponse ? { onResponse: (response) => hooks.onResponse?.(response) } : {}),
    // Counted as it is sent, so a run killed afterwards keeps it: where the request's bytes can wait, they
    // wait for a turn's requests to be counted at once (recordInTurn); else not awaited (the store settles it at close).
    onSend: (held) => (held && ledger?.recordInTurn ? ledger.recordInTurn(scope, now()) : void ledger?.record(scope, now())),
  });
  // Rate-limit waits under way: calls in flight together meet the limit together and wait together,
  // so their waits are one stretch of the wall clock, counted once against maxWait and told once.
  let waiting = 0;
  let waitingUntil = 0;
  let waitedMs = 0;
  let toldLowQuota = false;

  async function waitForReset(error: RateLimitError, signals: Signals): Promise<void> {
    const start = now();
    const ms = error.resetAt !== undefined ? Math.max(RESET_MARGIN_MS, error.resetAt - start + RESET_MARGIN_MS) : UNKNOWN_RESET_WAIT_MS;
    const until = start + ms;
    const joined = waiting > 0;
    const added = joined ? Math.max(0, until - Math.max(start, waitingUntil)) : ms;
    if (waitedMs + added > maxWaitMs) {
      error.hint = 'the reset is further away than the maxWait option allows: raise maxWait, or ask the service operator for a higher tier';
      error.reason = 'maxWait';
      throw error;
    }
    waitedMs += added;
    waitingUntil = joined ? Math.max(waitingUntil, until) : until;
    waiting += 1;
    const over = new AbortController();
    try {
      const message = `rate limited; waiting ${formatRelative(ms)} (until ${formatClock(until, start)}), then retrying`;
      if (!joined) await hooks.onRateLimitWait?.({ ms, until, signal: over.signal, message });
      await sleepUnder(ms, signals);
    } finally {
      waiting -= 1;
      over.abort();
    }
  }

  function noteRateLimit(info: RateLimitInfo, status: number): void {
    if (!hasRateLimitInfo(info)) return;
    void ledger?.noteRateLimit(scope, { ...info, seenAt: now() });
    if (status === 429 || toldLowQuota || info.remaining === undefined || info.remaining > LOW_QUOTA) return;
    toldLowQuota = true;
    const { remaining, limit, resetAt } = info;
    const resets = resetAt !== undefined ? `; ${describeReset(resetAt, now(), false)}` : '';
    const message = `${remaining} ${remaining === 1 ? 'request' : 'requests'} left in this rate-limit window${resets}`;
    hooks.onLowQuota?.({ remaining, ...(limit !== undefined ? { limit } : {}), ...(resetAt !== undefined ? { resetAt } : {}), message });
  }

  /** One call: attempts, retries and rate-limit waits until a JSON answer (and its view) or a final error. */
  async function send<V>(
    endpoint: Endpoint | undefined,
    q: string | undefined,
    signals: Signals,
    view: (body: unknown) => V,
    onAnswered?: () => void,
    target: RequestTarget = endpointTarget(baseUrl, endpoint!, q),
  ): Promise<RepResult<V>> {
    const started = now();
    let retry = 0;
    for (;;) {
      if (anyAborted(signals)) throw new InterruptedError();
      let response: ApiResponse;
      try {
        response = await transport(target, signals);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        if (error.retryable && (await retriedAfter(error, retry + 1, undefined, signals))) {
          retry++;
          continue;
        }
        throw gaveUp(error, retry, started);
      }
      const rateLimit = parseRateLimitHeaders(response.headers, now());
      noteRateLimit(rateLimit, response.status);
      if (response.status === 429) {
        const error = rateLimitError(rateLimit, estimateReset(rateLimit, await ledgerFacts(rateLimit), now()), now());
        if (!options.wait) throw error;
        await waitForReset(error, signals);
        continue;
      }
      if (response.status >= 200 && response.status < 300) {
        // Masked here, where the body enters rep: no format can then print a key the server echoed.
        const body = redactBody(parseJsonBody(response, redact), response.text, key);
        onAnswered?.();
        if (endpoint) await store(endpoint, q, response);
        return { body, view: view(body), rateLimit, status: response.status, headers: response.headers };
      }
      const error = errorFromResponse(response, { ...(endpoint ? { endpoint } : {}), hasKey: Boolean(key), redact, ...(q !== undefined ? { q } : {}) });
      if (RETRY_STATUSES.has(response.status) && (await retriedAfter(error, retry + 1, parseRetryAfter(response.headers['retry-after'], now()), signals))) {
        retry++;
        continue;
      }
      throw gaveUp(error, retry, started);
    }
  }

  /** Waits before retry number `attempt`, once the hooks are told; false when no retry is left or the server asks to wait longer than a retry should. */
  async function retriedAfter(error: RepError, attempt: number, retryAfterAt: number | undefined, signals: Signals): Promise<boolean> {
    if (attempt > retries) return false;
    const delayMs = retryDelay(attempt, retryAfterAt === undefined ? undefined : retryAfterAt - now(), options.random);
    if (delayMs === undefined) return false;
    await hooks.onRetry?.({ attempt, retries, delayMs, error });
    await sleepUnder(delayMs, signals);
    return true;
  }

  /** Sleeps, cut short by the call's signals: a link made for the sleep alone (retries and rate-limit waits are rare). */
  async function sleepUnder(ms: number, signals: Signals): Promise<void> {
    const link = linkSignals(signals);
    try {
      await sleep(ms, link.signal);
    } finally {
      link.dispose();
    }
  }

  /** The final error, with the attempts made when there were retries. */
  function gaveUp(error: RepError, retried: number, started: number): RepError {
    if (retried > 0) Object.assign(error, { attempts: retried + 1, elapsedMs: now() - started });
    return error;
  }

  /** What the ledger knows for a reset estimate; nothing is asked when the server said when, or when it cannot be read. */
  async function ledgerFacts(info: RateLimitInfo): Promise<LedgerFacts | undefined> {
    if (!ledger || info.resetAt !== undefined) return undefined;
    try {
      const at = now();
      const [last, count] = await Promise.all([ledger.lastRateLimit(scope), ledger.count(scope, at - HOUR_MS, at)]);
      return { ...(last ? { last } : {}), ...(count.oldestAt === undefined ? {} : { oldestAt: count.oldestAt }) };
    } catch {
      return undefined;
    }
  }

  /**
   * The cached answer to this question, parsed as a fresh one would be, if one is young enough. None,
   * and no promise, when no lookup can answer (no cache, maxAge 0, or the caller's knownMiss): a
   * batch's fresh names each skip a turn of promises here.
   */
  function cached(endpoint: Endpoint, q: string | undefined, knownMiss: boolean): Promise<Omit<RepResult<never>, 'view'> | undefined> | undefined {
    if (!lookup) return undefined;
    const query = q ?? '';
    if (maxAgeMs > 0 && !knownMiss) return lookedUp(endpoint, query);
    hooks.onCache?.({ endpoint, query, kind: 'miss' });
    return undefined;
  }

  async function lookedUp(endpoint: Endpoint, query: string): Promise<Omit<RepResult<never>, 'view'> | undefined> {
    const at = now();
    const hit = await lookup?.(answerKey(endpoint, query), { maxAgeMs, now: at });
    if (!hit) {
      hooks.onCache?.({ endpoint, query, kind: 'miss' });
      return undefined;
    }
    hooks.onCache?.({ endpoint, query, kind: 'hit', ageMs: hit.ageMs });
    // No URL: a cached answer's parse needs none (a batch from the cache would parse one a name).
    const body = redactBody(parseJsonBody({ status: hit.status, headers: hit.headers, text: hit.bodyText }, redact), hit.bodyText, key);
    return { body, rateLimit: {}, status: hit.status, headers: hit.headers, fromCache: { ageMs: hit.ageMs, fetchedAt: at - hit.ageMs } };
  }

  async function store(endpoint: Endpoint, q: string | undefined, response: ApiResponse): Promise<void> {
    if (!answers) return;
    // A turn of the event loop first: what the caller started on the answer's arrival (a batch's next
    // request) goes out before the cache's file writes.
    await new Promise((resolve) => setImmediate(resolve));
    const query = q ?? '';
    let outcome: PutOutcome;
    try {
      // send() parsed the body as a JSON object or array before it came here: no second parse.
      const answer = { status: response.status, headers: response.headers, bodyText: response.text, receivedAt: now(), jsonDocument: true as const };
      const admission = await admitAnswer(key, query, answer);
      if (admission.keep) outcome = await answers.put(answerKey(endpoint, query), admission.keep);
      else {
        if (admission.forget) await answers.forget(answerKey(endpoint, query));
        outcome = { stored: false, reason: admission.reason };
      }
    } catch (error) {
      outcome = { stored: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
    hooks.onCache?.({ endpoint, query, kind: 'put', outcome });
  }

  /**
   * The cached answer, else the request. Not async, nor are the two below: a fresh question's call is
   * send()'s own promise, with no promise of its own to wait for it. A throw here reaches the caller as
   * a rejection (settled()).
   */
  function call<V>(
    endpoint: Endpoint | undefined,
    q: string | undefined,
    callOptions: CallOptions | undefined,
    view: (body: unknown) => V,
    target?: RequestTarget,
  ): Promise<RepResult<V>> {
    const lookingUp = endpoint ? cached(endpoint, q, callOptions?.knownMiss === true) : undefined;
    if (!lookingUp) return uncached(endpoint, q, callOptions, view, target);
    return lookingUp.then((hit) => (hit ? { ...hit, view: view(hit.body) } : uncached(endpoint, q, callOptions, view, target)));
  }

  /** No cached answer: sent once the caller's beforeSend allows, unless the call takes cached answers only. */
  function uncached<V>(
    endpoint: Endpoint | undefined,
    q: string | undefined,
    callOptions: CallOptions | undefined,
    view: (body: unknown) => V,
    target: RequestTarget | undefined,
  ): Promise<RepResult<V>> {
    if (callOptions?.onlyIfCached)
      throw new NotCachedError(`no cached answer for ${endpoint ?? target?.url.pathname}${q === undefined ? '' : ` ${JSON.stringify(q)}`}`);
    const ready = callOptions?.beforeSend?.();
    if (ready) return ready.then(() => sent(endpoint, q, callOptions, view, target));
    return sent(endpoint, q, callOptions, view, target);
  }

  /** send() under the client's signal and the call's (read only now: the CLI's AbortSignal is made for a request alone). */
  function sent<V>(
    endpoint: Endpoint | undefined,
    q: string | undefined,
    callOptions: CallOptions | undefined,
    view: (body: unknown) => V,
    target: RequestTarget | undefined,
  ): Promise<RepResult<V>> {
    const signals = [options.signal, callOptions?.signal];
    const flight = endpoint && answers && maxAgeMs > 0 ? options.store?.singleFlight : undefined;
    if (!flight || !endpoint) return send(endpoint, q, signals, view, callOptions?.onAnswered, target);
    return sentOnce(flight, endpoint, q, signals, view, () => send(endpoint, q, signals, view, callOptions?.onAnswered, target));
  }

  /** The same question asked elsewhere at once: wait for its answer (at most one timeout), then take it from the store. */
  async function sentOnce<V>(
    flight: SingleFlightPort,
    endpoint: Endpoint,
    q: string | undefined,
    signals: Signals,
    view: (body: unknown) => V,
    fetched: () => Promise<RepResult<V>>,
  ): Promise<RepResult<V>> {
    const waited = linkSignals([AbortSignal.timeout(timeoutMs), ...signals]);
    try {
      return await flight.run(
        `${endpoint}\n${scope.baseUrl}\n${fingerprint}\n${q ?? ''}`,
        async () => {
          const hit = await cached(endpoint, q, false); // asked again: another process may have stored it meanwhile
          return hit ? { ...hit, view: view(hit.body) } : fetched();
        },
        waited.signal,
      );
    } catch (error) {
      if (!waited.signal.aborted || anyAborted(signals)) throw error;
      return await fetched();
    } finally {
      waited.dispose();
    }
  }

  return {
    audit: (name, callOptions) => settled(() => call('audit', queryText(name, 'audit', 'company name'), callOptions, auditView)),
    search: (text, callOptions) => settled(() => call('search', queryText(text, 'search', 'search text'), callOptions, searchView)),
    pulse: (callOptions) => settled(() => call('pulse', undefined, callOptions, pulseView)),
    get: (path, callOptions) =>
      settled(() => {
        if (typeof path !== 'string') throw new UsageError('get() takes the path as a string');
        const { target, endpoint, q } = pathTarget(baseUrl, path);
        return call(endpoint, q, callOptions, (body) => body, target);
      }),
  };
}

/**
 * The promise `start` returns, or its throw as a rejection: a bad query rejects like every other
 * failure rather than throwing at the call (as an async method would, without its promise a call).
 */
function settled<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A number option, or its default; NaN, infinities and negatives are usage errors (NaN retries would
 * never stop), and so is more than `maxSeconds` (a timer's: a longer one would fire at once).
 */
function checkNumber(value: number | undefined, name: string, fallback: number, zeroAllowed: boolean, maxSeconds?: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed) || (maxSeconds !== undefined && value > maxSeconds)) {
    const most = maxSeconds === undefined ? '' : `, at most ${maxSeconds} (about 24 days)`;
    throw new UsageError(
      `the ${name} option must be a ${zeroAllowed ? 'non-negative' : 'positive'} number of ${name === 'retries' ? 'retries' : 'seconds'}${most}`,
    );
  }
  return value;
}

/** A query as sent (unchanged); anything but a string (from untyped code), or an empty one, is a usage error, sent nowhere. */
function queryText(text: unknown, method: string, what: string): string {
  if (typeof text !== 'string') {
    const got = text === null ? 'null' : Array.isArray(text) ? 'an array' : `${/^[aeiou]/.test(typeof text) ? 'an' : 'a'} ${typeof text}`;
    const shown = typeof text === 'number' || typeof text === 'boolean' ? ` (${text})` : '';
    throw new UsageError(`${method}() takes the ${what} as a string, not ${got}${shown}`);
  }
  if (text.trim() === '') throw new UsageError(`the ${what} is empty`);
  return text;
}

const sleepFor: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
