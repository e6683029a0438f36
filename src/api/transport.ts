// One attempt of a GET over undici: follows same-origin redirects (at most 5), refuses to follow a
// redirect to another origin (the key would go with it), applies the per-attempt timeout, and turns
// every failure into a typed error. undici is imported on first use, so loading this file is free.
import { ApiError, InterruptedError, RepError, statusLine } from './errors.js';
import { networkError, neverSent, timeoutError, type Phase } from './network-errors.js';
import { linkSignals } from './signals.js';
import { loadRequest, type RequestFn } from './undici.js';
import { describeUrl } from './url.js';

export interface RawAnswer {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The URL that answered (after redirects). */
  url: URL;
}

export interface TransportOptions {
  /** Sent with every request; the authorization header only to the configured origin. */
  headers: Record<string, string>;
  /** How the authorization header is shown under --debug (already masked). */
  maskedAuthorization?: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  debug: (line: string) => void;
  /** Called once per HTTP request that reached a server (for the local request count). */
  onSend: () => void;
}

export type Transport = (url: URL, signal: AbortSignal | undefined) => Promise<RawAnswer>;

export const MAX_REDIRECTS = 5;
/** A bigger answer is not a reputation record: stop reading rather than fill memory. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const RATE_LIMIT_HEADER = /ratelimit|retry-after/i;

export function createTransport(options: TransportOptions): Transport {
  let loading: Promise<RequestFn> | undefined;

  return async (start, signal) => {
    const request = await (loading ??= loadRequest(options.env));
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const linked = linkSignals([signal, timeout.signal]);
    const combined = linked.signal;
    let url = start;
    let phase: Phase = 'connect';
    try {
      for (let hop = 0; ; hop++) {
        if (signal?.aborted) throw new InterruptedError();
        options.debug(`> GET ${url.href}`);
        if (options.maskedAuthorization) options.debug(`> authorization: ${options.maskedAuthorization}`);
        const started = performance.now();
        phase = 'connect';
        const response = await request(url, { method: 'GET', headers: options.headers, signal: combined }).catch((error: unknown) => {
          if (!neverSent(error)) options.onSend();
          throw error;
        });
        options.onSend();
        const headers = flattenHeaders(response.headers);
        const location = headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          await response.body.dump().catch(() => undefined);
          options.debug(`< ${statusLine(response.statusCode)} → ${location}`);
          url = followRedirect(start, url, location, hop, response.statusCode, headers);
          continue;
        }
        phase = 'body';
        const text = await readBody(response.body, response.statusCode, headers);
        options.debug(`< ${statusLine(response.statusCode)} (${Math.round(performance.now() - started)} ms)`);
        for (const [name, value] of Object.entries(headers)) if (RATE_LIMIT_HEADER.test(name)) options.debug(`< ${name}: ${value}`);
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
