// The library's errors: each kind of failure is a RepError subclass carrying the exit code the CLI
// uses for it, and a server's non-2xx answer becomes one of them here (never an HTML page in a message).
import { isRecord, parseJson, scrubLine } from '../text.js';
import type { Endpoint, Redact } from './request.js';
import type { ApiResponse } from './transport.js';

/** The CLI's exit code for each kind of failure; every RepError carries its own as `exitCode`. */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  rateLimited: 5,
  network: 6,
  /** `--fail-under` / `--fail-on-drop`: every name was audited, and one failed a gate. */
  gate: 7,
  /** The configured store (REP_STORE) cannot be reached or refuses, where the command needs it. */
  store: 8,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * What a hint is about, for the CLI to say it in its own words (src/errors.ts): the library's hint
 * names the library's options (`apiKey`, `maxWait`), the CLI's its flags and commands.
 */
export type HintReason =
  | 'key'
  | 'company'
  | 'baseUrl'
  | 'notFoundUrl'
  | 'notJson'
  | 'debug'
  | 'retries'
  | 'timeout'
  | 'refused'
  | 'dns'
  | 'unreachable'
  | 'network'
  | 'otherOrigin'
  | 'rateLimit'
  | 'maxWait';

/**
 * Every failure the client reports is one of these; `instanceof` tells the kinds apart. Each names
 * itself (`name`, the first word of its stack) in so many letters: the CLI's bundle is minified, and a
 * class's own name would be a minified one.
 */
export abstract class RepError extends Error {
  abstract override readonly name: string;
  abstract readonly exitCode: ExitCodeValue;
  /** One line saying what the user can do about it, naming the library's options (`apiKey`, `maxWait`). */
  declare hint?: string;
  /** @internal What the hint is about, for the CLI's own words. */
  declare reason?: HintReason;
  /** The attempts a call made before it gave up (retries included), when it made more than one. */
  declare attempts?: number;
  /** How long those attempts took, from the first request to the failure (ms). */
  declare elapsedMs?: number;
  constructor(message: string, options?: { hint?: string; cause?: unknown; reason?: HintReason }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.hint) this.hint = options.hint;
    if (options?.reason) this.reason = options.reason;
  }
}

/** Bad input, sent nowhere: an empty name or text, a bad base URL or key (and the CLI's bad command lines). */
export class UsageError extends RepError {
  override readonly name = 'UsageError';
  readonly exitCode = ExitCode.usage;
}

/** No base URL, no key where one is needed, or the key was rejected (401/403). */
export class AuthError extends RepError {
  override readonly name = 'AuthError';
  readonly exitCode = ExitCode.auth;
  declare status?: number;
}

/** The audited company does not exist. */
export class NotFoundError extends RepError {
  override readonly name = 'NotFoundError';
  readonly exitCode = ExitCode.notFound;
  /** The name that was audited, when the error is about one. */
  declare query?: string;
}

/** The server answered, but not with something rep can use (5xx, unexpected status, malformed body). */
export class ApiError extends RepError {
  override readonly name = 'ApiError';
  readonly exitCode = ExitCode.error;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The start of the body, for `--debug` only. */
  readonly bodyExcerpt: string;
  constructor(
    message: string,
    details: { status: number; headers?: Record<string, string>; bodyExcerpt?: string; hint?: string; cause?: unknown; reason?: HintReason },
  ) {
    super(message, details);
    this.status = details.status;
    this.headers = details.headers ?? {};
    this.bodyExcerpt = details.bodyExcerpt ?? '';
  }
}

/** 429: the rate limit is spent. */
export class RateLimitError extends RepError {
  override readonly name = 'RateLimitError';
  readonly exitCode = ExitCode.rateLimited;
  /** When the limit resets (epoch ms), if known or estimated. */
  readonly resetAt: number | undefined;
  /** Whether resetAt came from the server (false: estimated from the local request count). */
  readonly resetFromServer: boolean;
  /** Requests allowed per window, when known. */
  readonly limit: number | undefined;
  constructor(message: string, details: { resetAt?: number; resetFromServer?: boolean; limit?: number; hint?: string; reason?: HintReason }) {
    super(message, details);
    this.resetAt = details.resetAt;
    this.resetFromServer = details.resetFromServer ?? false;
    this.limit = details.limit;
  }
}

/** Refused, DNS, TLS, timeout, connection reset: the request never got a whole answer. */
export class NetworkError extends RepError {
  override readonly name = 'NetworkError';
  readonly exitCode = ExitCode.network;
  /** false when trying again cannot help (a TLS certificate the client refuses). */
  readonly retryable: boolean;
  constructor(message: string, options?: { hint?: string; cause?: unknown; retryable?: boolean; reason?: HintReason }) {
    super(message, options);
    this.retryable = options?.retryable ?? true;
  }
}

/** A call made with `onlyIfCached` found no cached answer young enough; nothing was sent. */
export class NotCachedError extends RepError {
  override readonly name = 'NotCachedError';
  readonly exitCode = ExitCode.error;
}

/** The signal given to the client or to a call was aborted (the CLI's Ctrl-C / SIGTERM). */
export class InterruptedError extends RepError {
  override readonly name = 'InterruptedError';
  readonly exitCode = ExitCode.interrupted;
  constructor() {
    super('interrupted');
  }
}

/** What a response's error message needs to know about the request it answers. */
export interface RequestFacts {
  endpoint: Endpoint;
  q?: string;
  hasKey: boolean;
  redact: Redact;
}

const EXCERPT_CHARS = 300;
const DEBUG_HINT = "the error's status, headers and bodyExcerpt, and the onRequest and onResponse hooks, show the request and the answer";
const MESSAGE_CHARS = 200;

/** `502 Bad Gateway` */
export function statusLine(status: number): string {
  // Looked up on use: this module loads with every run (`rep --version` too), node:http need not.
  const reason = process.getBuiltinModule('node:http').STATUS_CODES[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** Where a URL points, for messages: origin and path, never the query. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The start of a body, one line, for --debug only. */
export function bodyExcerpt(text: string, redact: Redact): string {
  const excerpt = scrubLine(redact(text.slice(0, EXCERPT_CHARS * 2))).trim();
  return excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
}

/**
 * A 2xx body as the JSON object or array every endpoint answers with. Anything else (no body, a
 * 204, a bare `null` or number, text that is not JSON) is a malformed answer: ApiError, never an empty result.
 */
export function parseJsonBody(response: ApiResponse, redact: Redact): unknown {
  // Made only for an error: a good answer (every one of a batch) needs no excerpt.
  const details = () => ({ status: response.status, headers: response.headers, bodyExcerpt: bodyExcerpt(response.text, redact) });
  const malformed = (what: string) =>
    new ApiError(`the server's answer is ${what} (${statusLine(response.status)})`, {
      ...details(),
      hint: DEBUG_HINT,
      reason: 'debug',
    });
  if (response.text.trim() === '') throw malformed('empty');
  const parsed = tryParseJson(response.text);
  if ('value' in parsed) {
    if (typeof parsed.value !== 'object' || parsed.value === null) throw malformed('not a JSON object or array');
    return parsed.value;
  }
  throw new ApiError("the server's answer is not valid JSON", {
    ...details(),
    hint: "check the baseUrl option (it should point at the API, usually ending in /api); the error's bodyExcerpt shows the start of the answer",
    cause: parsed.error,
    reason: 'notJson',
  });
}

/** A body as JSON, a leading byte-order mark ignored; the parse error when it is not JSON. */
function tryParseJson(text: string): { value: unknown } | { error: unknown } {
  try {
    return { value: parseJson(text) };
  } catch (error) {
    return { error };
  }
}

/** The server's own error message from a JSON error body, scrubbed and shortened, if there is one. */
function serverMessage(body: unknown, redact: Redact): string | undefined {
  const message = findMessage(body);
  if (message === undefined) return undefined;
  const line = scrubLine(redact(message)).trim();
  if (!line) return undefined;
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}

function findMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const { error } = body;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  for (const value of [error, body.message, body.detail, body.title]) if (typeof value === 'string' && value.trim()) return value;
  return undefined;
}

/** The typed error for a non-2xx response (429 is handled by the rate-limit code, 3xx by redirects). */
export function errorFromResponse(response: ApiResponse, request: RequestFacts): RepError {
  const { status, headers } = response;
  const details = { status, headers, bodyExcerpt: bodyExcerpt(response.text, request.redact) };
  // HTML or plain text is never shown, only under --debug as the body excerpt.
  const parsed = tryParseJson(response.text);
  const said = 'value' in parsed ? serverMessage(parsed.value, request.redact) : undefined;
  const suffix = said ? `: ${said}` : '';

  if (status === 401 || status === 403) {
    const error = new AuthError(
      request.hasKey ? `the server rejected the API key (${statusLine(status)})${suffix}` : `the server needs an API key (${statusLine(status)})${suffix}`,
      { hint: request.hasKey ? 'check the apiKey option: the server does not accept it' : 'give the key as the apiKey option', reason: 'key' },
    );
    error.status = status;
    return error;
  }
  if (status === 404) {
    if (request.endpoint === 'audit' && request.q !== undefined && ('value' in parsed || response.text.trim() === '')) {
      const name = scrubLine(request.q);
      const error = new NotFoundError(`no company named "${name}"`, {
        hint: `no company has exactly that name; search(${JSON.stringify(searchWord(name))}) lists those matching one word of it`,
        reason: 'company',
      });
      error.query = name;
      return error;
    }
    return new ApiError(`${describeUrl(response.url)} was not found (404): is the base URL right?`, {
      ...details,
      hint: 'check the baseUrl option (the base URL usually ends in /api)',
      reason: 'notFoundUrl',
    });
  }
  if (status >= 500) {
    return new ApiError(`the server failed (${statusLine(status)})${suffix}`, {
      ...details,
      hint: 'try again later; the retries option retries automatically',
      reason: 'retries',
    });
  }
  return new ApiError(`unexpected answer from the server (${statusLine(status)})${suffix}`, { ...details, hint: DEBUG_HINT, reason: 'debug' });
}

/**
 * The word of a name not found to search by, built without a request: the longest word (the most
 * distinctive; the first of equals), or the start of a lone word, as a typo is rarely in its first letters.
 */
export function searchWord(name: string): string {
  const words = name.split(/[^\p{L}\p{N}'&.-]+/u).filter(Boolean);
  const letters = (word: string) => [...word].length;
  if (words.length > 1) return words.reduce((best, word) => (letters(word) > letters(best) ? word : best));
  const [word = name] = words;
  return letters(word) > 5 ? [...word].slice(0, 4).join('') : word;
}
