// The CLI's one place where an error becomes a message, a hint and an exit code (describeError): what the
// error is (classifyError) and what to do next in the CLI's words (error-hints.ts). The typed errors are the
// library's (api/errors.ts); they are re-exported here, beside the CLI's own kinds.
import { ApiError, ExitCode, RepError, type ExitCodeValue } from './api/errors.js';
import { hintFor, type HintContext } from './error-hints.js';
import { scrubLine } from './text.js';

export {
  ApiError,
  AuthError,
  ExitCode,
  InterruptedError,
  NetworkError,
  NotCachedError,
  NotFoundError,
  RateLimitError,
  RepError,
  UsageError,
  type ExitCodeValue,
} from './api/errors.js';
export type { HintContext } from './error-hints.js';

/** A configuration file that cannot be read as rep's config. */
export class ConfigError extends RepError {
  override readonly name = 'ConfigError';
  readonly exitCode = ExitCode.error;
}

/** stdout could not be written (full disk, I/O error): what was printed is incomplete. */
export class OutputError extends RepError {
  override readonly name = 'OutputError';
  readonly exitCode = ExitCode.error;
  constructor(cause: unknown) {
    super(`cannot write output: ${systemErrorText(cause)}`, { cause });
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
export function describeError(error: unknown, context: HintContext = { contextArgs: [] }): ErrorReport {
  const report = classifyError(error);
  const hint = oneLine(hintFor(error, context) ?? '');
  return hint ? { ...report, hint } : report;
}

/** What an error is, whoever reads it: its exit code, its one-line message (with the attempts made) and its details. */
function classifyError(error: unknown): ErrorReport {
  if (error instanceof RepError) {
    const details = [error.stack ?? ''];
    if (error instanceof ApiError && error.bodyExcerpt) details.push(`body: ${error.bodyExcerpt}`);
    if (error.cause instanceof Error && error.cause.stack) details.push(`cause: ${error.cause.stack}`);
    return { exitCode: error.exitCode, message: oneLine(error.message) + attemptsMade(error), debug: details.filter(Boolean).join('\n') };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: ExitCode.error, message: oneLine(message) || 'unexpected error', debug: error instanceof Error ? (error.stack ?? message) : message };
}

/** A failure after retries says how many attempts were made and over how long. */
function attemptsMade({ attempts, elapsedMs = 0 }: RepError): string {
  if (attempts === undefined || attempts <= 1) return '';
  const seconds = elapsedMs < 10_000 ? Math.round(elapsedMs / 100) / 10 : Math.round(elapsedMs / 1000);
  return ` (${attempts} attempts over ${seconds} s)`;
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
