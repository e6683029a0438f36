// One attempt of a GET over undici: follows same-origin redirects (at most 5), refuses to follow a
// redirect to another origin (the key would go with it), applies the per-attempt timeout, and turns
// every failure into a typed error. undici is imported on first use, so loading this file is free.
import { ApiError, describeUrl, InterruptedError, RepError, statusLine } from './errors.js';
import { networkError, neverSent, type Phase, timeoutError } from './network-errors.js';
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
