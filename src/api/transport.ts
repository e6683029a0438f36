// One attempt of a GET over undici: follows same-origin redirects (at most 5), refuses to follow a
// redirect to another origin (the key would go with it), applies the per-attempt timeout, and turns
// every failure into a typed error. undici is imported on first use, so loading this file is free.
import { ApiError, describeUrl, InterruptedError, NetworkError, RepError, statusLine } from './errors.js';
import type { Redact } from './request.js';
import type { RequestFn } from './undici.js';

/** A server's answer to one GET. */
export interface ApiResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The URL that answered (after redirects). */
  url: URL;
}

/** One HTTP request as hooks see it: the authorization header is masked, never the key itself. */
export interface RequestEvent {
  method: 'GET';
  url: string;
  headers: Record<string, string>;
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
  /** Called once per HTTP request that reached a server (for the local request count). */
  onSend: () => void;
}

export type Transport = (url: URL, signal: AbortSignal | undefined) => Promise<ApiResponse>;

export const MAX_REDIRECTS = 5;
/** A bigger answer is not a reputation record: stop reading rather than fill memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createTransport(options: TransportOptions): Transport {
  let loading: Promise<RequestFn> | undefined;
  const shownHeaders = redactValues(options.headers, options.redact);

  return async (start, signal) => {
    const request = await (loading ??= import('./undici.js').then(({ loadRequest }) => loadRequest(options.env)));
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const linked = linkSignals([signal, timeout.signal]);
    let url = start;
    let phase: Phase = 'connect';
    try {
      for (let hop = 0; ; hop++) {
        if (signal?.aborted) throw new InterruptedError();
        options.onRequest?.({ method: 'GET', url: url.href, headers: shownHeaders });
        // Not performance.now(): the `performance` global loads all of perf_hooks on first use (~1 ms).
        const started = process.hrtime.bigint();
        const answered = (status: number, headers: Record<string, string>) =>
          options.onResponse?.({
            url: url.href,
            status,
            headers: redactValues(headers, options.redact),
            durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
          });
        phase = 'connect';
        const response = await request(url, { method: 'GET', headers: options.headers, signal: linked.signal }).catch((error: unknown) => {
          if (!neverSent(error)) options.onSend();
          throw error;
        });
        options.onSend();
        const headers = flattenHeaders(response.headers);
        const location = headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          await response.body.dump().catch(() => undefined);
          answered(response.statusCode, headers);
          url = followRedirect(start, url, location, hop, response.statusCode, headers);
          continue;
        }
        phase = 'body';
        const text = await readBody(response.body, response.statusCode, headers);
        answered(response.statusCode, headers);
        return { status: response.statusCode, headers, text, url };
      }
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError();
      if (error instanceof RepError) throw error;
      if (timeout.signal.aborted) throw timeoutError(url, options.timeoutMs);
      throw networkError(error, url, phase);
    } finally {
      clearTimeout(timer);
      linked.dispose();
    }
  };
}

/** The next URL of a same-origin redirect; ApiError for another origin, a bad Location or too many hops. */
function followRedirect(start: URL, current: URL, location: string, hop: number, status: number, headers: Record<string, string>): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new ApiError(`the server redirected to an invalid address (${statusLine(status)})`, { status, headers });
  }
  if (next.origin !== start.origin) {
    throw new ApiError(`the server redirected to ${describeUrl(next)} (another origin); not followed`, {
      status,
      headers,
      hint: 'the API key is sent only to the configured origin; if that address is the service, use it as --base-url',
    });
  }
  if (hop + 1 > MAX_REDIRECTS) {
    throw new ApiError(`the server redirected more than ${MAX_REDIRECTS} times; not followed`, { status, headers, hint: 'check --base-url' });
  }
  return next;
}

async function readBody(body: AsyncIterable<Buffer | Uint8Array> & { destroy(): unknown }, status: number, headers: Record<string, string>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new ApiError(`the server's answer is too large (over ${MAX_BODY_BYTES / 1024 / 1024} MB)`, { status, headers });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function redactValues(headers: Record<string, string>, redact: Redact): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redact(value)]));
}

// Network errors: what undici and Node throw when a request never gets a whole answer becomes one
// NetworkError naming the cause (refused, DNS, TLS, reset, cut off, timeout) and what to try.

/** The phase a request failed in: a reset while the body streams in is an answer cut off. */
export type Phase = 'connect' | 'body';

const TLS_CODE = /^(?:CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$|UND_ERR_PRX_TLS$)/;
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);

/** The first error code found on an error, its causes, or the errors of an AggregateError. */
export function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    // undici wraps a socket failure as UND_ERR_SOCKET; a more precise code may sit on its cause.
    if (code === 'UND_ERR_SOCKET') return errorCode(cause, depth + 1) ?? code;
    return code;
  }
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = errorCode(inner, depth + 1);
      if (found) return found;
    }
  return errorCode(cause, depth + 1);
}

/** Whether a failed request never reached a server (refused, DNS, TLS, unreachable): it is not counted. */
export function neverSent(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && (code === 'ECONNREFUSED' || DNS_CODES.has(code) || TLS_CODE.test(code) || UNREACHABLE_CODES.has(code));
}

/** A NetworkError for a failed request to url. */
export function networkError(error: unknown, url: URL, phase: Phase): NetworkError {
  const code = errorCode(error);
  const host = url.hostname;
  const options = (hint: string) => ({ hint, cause: error });
  if (code === 'ECONNREFUSED') {
    return new NetworkError(`cannot connect to ${hostAndPort(url)} (connection refused)`, options('is the server running? check --base-url'));
  }
  if (code !== undefined && DNS_CODES.has(code)) {
    return new NetworkError(`cannot resolve ${host}`, options('check the host name in --base-url, and your network or DNS'));
  }
  if (code && TLS_CODE.test(code)) {
    // A certificate or protocol the client refuses is refused again on a retry.
    return new NetworkError(`TLS handshake with ${host} failed (${code})`, {
      ...options("check the base URL's host and the system's certificates (NODE_EXTRA_CA_CERTS)"),
      retryable: false,
    });
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || (phase === 'body' && code !== undefined && RESET_CODES.has(code))) {
    return new NetworkError(`the answer from ${host} was cut off`, options('try again; use --retries to retry automatically'));
  }
  if (code !== undefined && RESET_CODES.has(code)) {
    return new NetworkError(`the connection to ${host} was reset`, options('try again; use --retries to retry automatically'));
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new NetworkError(`no answer from ${host} (timed out)`, options('raise --timeout, or check your network'));
  }
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new NetworkError(`cannot reach ${hostAndPort(url)} (${code})`, options('check your network and --base-url'));
  }
  const detail = code ?? (error instanceof Error ? error.message.split('\n')[0] : undefined) ?? 'unknown error';
  return new NetworkError(`the request to ${host} failed (${detail})`, options('check your network, proxy settings and --base-url'));
}

/** The timeout message: `no answer from HOST within 30 s`. */
export function timeoutError(url: URL, timeoutMs: number): NetworkError {
  const seconds = Number((timeoutMs / 1000).toFixed(timeoutMs < 1000 ? 1 : 0));
  return new NetworkError(`no answer from ${url.hostname} within ${seconds} s`, { hint: 'raise --timeout (seconds), or check your network' });
}

/** `host:port` with the scheme's default port spelled out, for connection messages. */
function hostAndPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

// Linked signals: one AbortSignal that follows several, detached when the request is done. Each source
// signal gets a single listener however many signals follow it: a batch with 20 requests in flight
// would otherwise hang 20 listeners on the one Ctrl-C signal (and Node warns past 10). On Node 20,
// AbortSignal.any() also leaves a WeakRef in every source per call, so a long batch grew memory by megabytes.

export interface LinkedSignal {
  signal: AbortSignal;
  /** Detaches from the sources; call when the request is settled. */
  dispose(): void;
}

/** The controllers following each source signal, aborted together by the source's one listener. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

export function linkSignals(sources: ReadonlyArray<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const followed: Array<Set<AbortController>> = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const group = followersOf(source);
    group.add(controller);
    followed.push(group);
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const group of followed) group.delete(controller);
    },
  };
}

function followersOf(source: AbortSignal): Set<AbortController> {
  let group = followers.get(source);
  if (!group) {
    const created = new Set<AbortController>();
    source.addEventListener(
      'abort',
      () => {
        for (const follower of created) follower.abort(source.reason);
        created.clear();
      },
      { once: true },
    );
    followers.set(source, (group = created));
  }
  return group;
}
