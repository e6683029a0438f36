// One attempt of a GET: follows same-origin redirects (at most 5), refuses to follow a redirect to
// another origin (the key would go with it), applies the per-attempt timeout, and turns every failure
// into a typed error. The request itself goes out through Node's own client (src/api/http.ts) or, when
// a proxy serves its host (src/api/proxy.ts), through undici (src/api/undici.ts); either is loaded on
// the first request that needs it, so loading this file is free.
import { ApiError, describeUrl, InterruptedError, RepError, statusLine } from './errors.js';
import { networkError, neverSent, type Phase, timeoutError } from './network-errors.js';
import { anyAborted, type LinkedSignal, linkSignals, type Signals } from './abort-link.js';
import { Deadlines } from './deadlines.js';
import { proxyFor, type ProxyRoute } from './proxy.js';
import { type RequestTarget, targetOf } from './base-url.js';
import type { Redact } from './request.js';

/**
 * What a request back-end answers: the status, the headers as received, and the body (Node's stream).
 * The body may fail before transport.ts reads it: a back-end gives it an 'error' listener, so that the
 * failure waits on the stream (`errored`) rather than ending the process.
 */
export interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: BodyStream;
}

/** What transport.ts uses of a Node Readable (spelled out: the library's types carry no Node typings). */
export interface BodyStream {
  readonly errored: unknown;
  readonly destroyed: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
  once(event: 'error', listener: (error: unknown) => void): unknown;
  destroy(): unknown;
}

/** One GET through a back-end; fails with the back-end's own error (transport.ts names it). */
/**
 * `onSent`, where the client can tell, once the request goes out on a connection to the server. `held`:
 * the request's bytes wait for the promise it returns (Node's client: the socket is corked until then);
 * the proxy's back-end cannot hold them, and says so.
 */
export type RequestFn = (
  target: RequestTarget,
  options: { headers: Record<string, string>; abort: LinkedSignal; onSent?: (held: boolean) => PromiseLike<void> | void },
) => Promise<RawResponse>;

/** A server's answer to one GET. */
export interface ApiResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** What answered (after redirects). */
  target: RequestTarget;
}

/** One HTTP request as hooks see it: the authorization header is masked, never the key itself. */
export interface RequestEvent {
  method: 'GET';
  url: string;
  headers: Record<string, string>;
  /** The proxy it goes through, credentials masked, and its variable: `http://****@proxy:3128 (HTTPS_PROXY)`. */
  proxy?: string;
}

/** One HTTP response as hooks see it (a redirect too); header values have the key masked. */
export interface ResponseEvent {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** From sending the request to the end of the body (to the headers, for a redirect). */
  durationMs: number;
}

export interface TransportOptions {
  /** Sent with every request; the authorization header only to the configured origin. */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Where proxy variables are read. */
  env: Record<string, string | undefined>;
  redact: Redact;
  onRequest?: (request: RequestEvent) => void;
  onResponse?: (response: ResponseEvent) => void;
  /** Called once per HTTP request that reached a server (for the local request count); with `held`, the request's bytes wait for what it returns. */
  onSend: (held: boolean) => PromiseLike<void> | void;
}

/** One attempt, aborted by any of the call's `signals` (an InterruptedError) or by its timeout. */
export type Transport = (target: RequestTarget, signals: Signals) => Promise<ApiResponse>;

export const MAX_REDIRECTS = 5;
/** A bigger answer is not a reputation record: stop reading rather than fill memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createTransport(options: TransportOptions): Transport {
  const route = router(options.env);
  const shownHeaders = redactValues(options.headers, options.redact);
  const deadlines = new Deadlines(options.timeoutMs);
  const { onRequest, onResponse } = options;

  return async (start, signals) => {
    const { proxy, load, loaded } = route(start);
    const request = loaded ?? (await load);
    // One link for the attempt: it follows the call's signals, and its deadline aborts it.
    const linked = linkSignals(signals);
    const deadline = deadlines.start(linked);
    let target = start;
    let phase: Phase = 'connect';
    try {
      for (let hop = 0; ; hop++) {
        if (anyAborted(signals)) throw new InterruptedError();
        // An optional call: without a listener, no event is built.
        onRequest?.({ method: 'GET', url: target.href, headers: shownHeaders, ...(proxy ? { proxy: `${proxy.shown} (${proxy.variable})` } : {}) });
        // Not performance.now(): the `performance` global loads all of perf_hooks on first use.
        const started = onResponse ? process.hrtime.bigint() : 0n;
        phase = 'connect';
        // Counted as soon as it is sent, so a run killed while it waits for the answer has counted it.
        let counted = false;
        const sent = (held: boolean) => {
          if (counted) return undefined;
          counted = true;
          return options.onSend(held);
        };
        let response: RawResponse;
        try {
          response = await request(target, { headers: options.headers, abort: linked, onSent: sent });
        } catch (error) {
          if (!neverSent(error)) void sent(false);
          throw error;
        }
        void sent(false);
        const { statusCode } = response;
        const headers = flattenHeaders(response.headers);
        const location = headers.location;
        if (REDIRECT_STATUSES.has(statusCode) && location !== undefined) {
          await discard(response.body);
          onResponse?.(responseEvent(target, statusCode, headers, started, options.redact));
          target = followRedirect(start, target, location, hop, statusCode, headers);
          continue;
        }
        phase = 'body';
        const text = await readBody(response.body, statusCode, headers);
        onResponse?.(responseEvent(target, statusCode, headers, started, options.redact));
        return { status: statusCode, headers, text, target };
      }
    } catch (error) {
      if (anyAborted(signals)) throw new InterruptedError();
      if (error instanceof RepError) throw error;
      if (deadline.timedOut) throw timeoutError(target.url, options.timeoutMs);
      throw networkError(error, target.url, phase, proxy);
    } finally {
      deadlines.end(deadline);
      linked.dispose();
    }
  };
}

/** A response as hooks see it; `started` is when its request was sent (process.hrtime). */
function responseEvent(target: RequestTarget, status: number, headers: Record<string, string>, started: bigint, redact: Redact): ResponseEvent {
  return {
    url: target.href,
    status,
    headers: redactValues(headers, redact),
    durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
  };
}

/** An origin's way out: its proxy, if any, and its back-end, loading or (once loaded) at hand. */
interface Route {
  proxy?: ProxyRoute;
  load: Promise<RequestFn>;
  /** The back-end once `load` settled: a batch's later requests wait for no promise to find it. */
  loaded?: RequestFn;
}

/**
 * Each origin's way out: Node's own client, or undici through the proxy that serves it (Node's client
 * has no proxy support on 20 and 22). A redirect stays on its origin, so one route serves a whole call.
 */
function router(env: Record<string, string | undefined>): (target: RequestTarget) => Route {
  let direct: Promise<RequestFn> | undefined;
  const proxied = new Map<string, Promise<RequestFn>>();
  const routes = new Map<string, Route>();
  return (target) => {
    const known = routes.get(target.origin.text);
    if (known) return known;
    const proxy = proxyFor(target.url, env);
    let load: Promise<RequestFn> | undefined;
    if (!proxy) load = direct ??= import('./http.js').then((module) => module.directRequest());
    else if (!(load = proxied.get(proxy.url.href))) {
      proxied.set(proxy.url.href, (load = import('./undici.js').then((module) => module.proxyRequest(proxy.url))));
    }
    const found: Route = proxy ? { proxy, load } : { load };
    // A failed load is the request's to report (it awaits `load`); here it only leaves `loaded` unset.
    load.then((request) => (found.loaded = request), ignore);
    routes.set(target.origin.text, found);
    return found;
  };
}

const ignore = () => undefined;

/** The next URL of a same-origin redirect; ApiError for another origin, a bad Location or too many hops. */
function followRedirect(
  start: RequestTarget,
  current: RequestTarget,
  location: string,
  hop: number,
  status: number,
  headers: Record<string, string>,
): RequestTarget {
  let next: URL;
  try {
    next = new URL(location, current.url);
  } catch {
    throw new ApiError(`the server redirected to an invalid address (${statusLine(status)})`, { status, headers });
  }
  if (next.origin !== start.origin.text) {
    throw new ApiError(`the server redirected to ${describeUrl(next)} (another origin); not followed`, {
      status,
      headers,
      hint: 'the API key is sent only to the configured origin; if that address is the service, use it as the baseUrl option',
      reason: 'otherOrigin',
    });
  }
  if (hop + 1 > MAX_REDIRECTS) {
    throw new ApiError(`the server redirected more than ${MAX_REDIRECTS} times; not followed`, {
      status,
      headers,
      hint: 'check the baseUrl option',
      reason: 'baseUrl',
    });
  }
  return targetOf(next);
}

/**
 * The body, whole, as text; the stream's own error if it fails, an ApiError past MAX_BODY_BYTES. Read
 * with events rather than an async iterator, which costs more a request in stream machinery.
 */
function readBody(body: BodyStream, status: number, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    // Failed before this reader came (the back-ends keep the error on the stream, see RawResponse).
    if (body.errored) return reject(body.errored);
    if (body.destroyed) return reject(cutOff());
    const chunks: Uint8Array[] = [];
    let size = 0;
    body.on('data', (chunk) => {
      size += chunk.byteLength;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      reject(new ApiError(`the server's answer is too large (over ${MAX_BODY_BYTES / 1024 / 1024} MB)`, { status, headers }));
      body.destroy();
    });
    // `on`, not `once`: each comes once from a stream, and once wraps and then removes each listener.
    let ended = false;
    body.on('end', () => {
      ended = true;
      resolve(textOf(chunks));
    });
    body.on('error', reject);
    // Closed with neither an end nor an error: the answer was cut off.
    body.on('close', () => {
      if (!ended) reject(cutOff());
    });
  });
}

/** The chunks as UTF-8 text; most answers come in one chunk, decoded where it is rather than copied first. */
function textOf(chunks: Uint8Array[]): string {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  return (only ? Buffer.from(only.buffer, only.byteOffset, only.byteLength) : Buffer.concat(chunks)).toString('utf8');
}

const cutOff = () => Object.assign(new Error('the body closed before its end'), { code: 'ECONNRESET' });

/** Reads a redirect's body away so that its connection can serve the next hop; one past 64 KB is dropped with it. */
function discard(body: BodyStream): Promise<void> {
  return new Promise((done) => {
    let size = 0;
    body.on('data', (chunk) => {
      size += chunk.byteLength;
      if (size > 64 * 1024) body.destroy();
    });
    body.once('end', done);
    body.once('close', done);
    body.once('error', () => done());
  });
}

/**
 * Lower-cased names, repeated headers joined. The back-end's own object when it is so already (Node's
 * client gives one, but for a repeated Set-Cookie): a copy a response is a cost every request paid.
 */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  for (const name in raw) if (typeof raw[name] !== 'string' || name !== name.toLowerCase()) return flattened(raw);
  return raw as Record<string, string>;
}

function flattened(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  // Keys, not entries: an array a header less.
  for (const name of Object.keys(raw)) {
    const value = raw[name];
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function redactValues(headers: Record<string, string>, redact: Redact): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redact(value)]));
}

export { type LinkedSignal, linkSignals } from './abort-link.js';
