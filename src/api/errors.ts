// The library's errors: each kind of failure is a RepError subclass carrying the exit code the CLI
// uses for it (a server's non-2xx answer becomes one in response.ts, never an HTML page in a message).

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
