// Every failure in rep is one of these typed errors. Commands throw them; `describeError` below is the
// one place where an error becomes a message, a hint and an exit code.
import { scrubLine } from './text/scrub.js';

export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  rateLimited: 5,
  network: 6,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export abstract class RepError extends Error {
  abstract readonly exitCode: ExitCodeValue;
  /** One line saying what the user can do about it. */
  hint?: string;
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options?.hint) this.hint = options.hint;
  }
}

/** Bad command line: unknown command or option, missing or empty argument, bad base URL. */
export class UsageError extends RepError {
  readonly exitCode = ExitCode.usage;
}

/** No base URL, no key where one is needed, or the key was rejected (401/403). */
export class AuthError extends RepError {
  readonly exitCode = ExitCode.auth;
  status?: number;
}

/** The audited company does not exist. */
export class NotFoundError extends RepError {
  readonly exitCode = ExitCode.notFound;
}

/** A configuration file that cannot be read as rep's config. */
export class ConfigError extends RepError {
  readonly exitCode = ExitCode.error;
}

/** The server answered, but not with something rep can use (5xx, unexpected status, malformed body). */
export class ApiError extends RepError {
  readonly exitCode = ExitCode.error;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The start of the body, for `--debug` only. */
  readonly bodyExcerpt: string;
  constructor(message: string, details: { status: number; headers?: Record<string, string>; bodyExcerpt?: string; hint?: string; cause?: unknown }) {
    super(message, details);
    this.status = details.status;
    this.headers = details.headers ?? {};
    this.bodyExcerpt = details.bodyExcerpt ?? '';
  }
}

/** 429: the rate limit is spent. */
export class RateLimitError extends RepError {
  readonly exitCode = ExitCode.rateLimited;
  /** When the limit resets (epoch ms), if known or estimated. */
  readonly resetAt: number | undefined;
  /** Whether resetAt came from the server (false: estimated from the local request count). */
  readonly resetFromServer: boolean;
  /** Requests allowed per window, when known. */
  readonly limit: number | undefined;
  constructor(message: string, details: { resetAt?: number; resetFromServer?: boolean; limit?: number; hint?: string }) {
    super(message, details);
    this.resetAt = details.resetAt;
    this.resetFromServer = details.resetFromServer ?? false;
    this.limit = details.limit;
  }
}

/** Refused, DNS, TLS, timeout, connection reset: the request never got a whole answer. */
export class NetworkError extends RepError {
  readonly exitCode = ExitCode.network;
  /** false when trying again cannot help (a TLS certificate the client refuses). */
  readonly retryable: boolean;
  constructor(message: string, options?: { hint?: string; cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.retryable = options?.retryable ?? true;
  }
}

/** stdout could not be written (full disk, I/O error): what was printed is incomplete. */
export class OutputError extends RepError {
  readonly exitCode = ExitCode.error;
  constructor(cause: unknown) {
    super(`cannot write output: ${systemErrorText(cause)}`, { cause });
  }
}

/** Ctrl-C / SIGTERM. */
export class InterruptedError extends RepError {
  readonly exitCode = ExitCode.interrupted;
  constructor() {
    super('interrupted');
  }
}

export interface ErrorReport {
  exitCode: ExitCodeValue;
  /** `rep: …` */
  message: string;
  hint?: string;
  /** Stack and details, shown only under `--debug`. */
  debug?: string;
}

const SYSTEM_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EBADF: 'bad file descriptor',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENXIO: 'no such device or address',
  EAGAIN: 'resource temporarily unavailable',
  ECONNRESET: 'connection reset',
};

/** A system error's cause in words (`no space left on device`), not its code. */
export function systemErrorText(error: unknown): string {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && SYSTEM_ERRORS[code]) return SYSTEM_ERRORS[code];
  // Node's own wording, `ENOSPC: no space left on device, write`, for codes not listed above.
  const words = typeof message === 'string' ? /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] : undefined;
  return words ?? (typeof code === 'string' ? code : String(message ?? error));
}

/** Turns anything thrown into what the user sees and the code the process exits with. */
export function describeError(error: unknown): ErrorReport {
  if (error instanceof RepError) {
    const report: ErrorReport = { exitCode: error.exitCode, message: oneLine(error.message) };
    if (error.hint) report.hint = oneLine(error.hint);
    const details = [error.stack ?? ''];
    if (error instanceof ApiError && error.bodyExcerpt) details.push(`body: ${error.bodyExcerpt}`);
    if (error.cause instanceof Error && error.cause.stack) details.push(`cause: ${error.cause.stack}`);
    report.debug = details.filter(Boolean).join('\n');
    return report;
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    exitCode: ExitCode.error,
    message: oneLine(message) || 'unexpected error',
    hint: 'run again with --debug for details',
    debug: error instanceof Error ? (error.stack ?? message) : message,
  };
}

/** Formats a report as the lines written to stderr. */
export function formatReport(report: ErrorReport, options: { debug: boolean }): string {
  let text = `rep: ${report.message}\n`;
  if (report.hint) text += `hint: ${report.hint}\n`;
  if (options.debug && report.debug) text += `${report.debug}\n`;
  return text;
}

function oneLine(text: string): string {
  // Messages may quote server text: keep them to one printable line.
  return scrubLine(text).trim();
}
