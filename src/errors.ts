// The CLI's one place where an error becomes a message, a hint and an exit code (describeError). The
// typed errors are the library's (api/errors.ts); they are re-exported here, beside the CLI's own kinds.
import { ApiError, ExitCode, NotFoundError, RepError, searchWord, type ExitCodeValue } from './api/errors.js';
import { suggestedCommand } from './shell-quote.js';
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

/** What the CLI's hints need to know of the run: the flags a suggested command keeps, where the key came from. */
export interface HintContext {
  /** `--sandbox`, or `--base-url URL` given on the command line. */
  contextArgs: readonly string[];
  keySource?: 'env' | 'config' | 'sandbox' | 'none';
  configPath?: string;
}

/** The CLI's words for a library hint (which names the library's options): its flags and commands. */
function cliHint(error: RepError, context: HintContext): string | undefined {
  const rep = (...args: string[]) => suggestedCommand(context.contextArgs, args);
  switch (error.reason) {
    case 'key':
      if (context.keySource === 'env') return 'the key comes from REP_API_KEY, which wins over `rep login`: check its value, or unset it to use the stored key';
      if (context.keySource === 'config')
        return `the key is the one \`rep login\` stored${context.configPath ? ` in ${context.configPath}` : ''}: run \`${rep('login')}\` to store a new one`;
      return `run \`${rep('login')}\`, or set REP_API_KEY`;
    case 'company': {
      const name = error instanceof NotFoundError ? error.query : undefined;
      return name === undefined ? error.hint : `no company has exactly that name; search by one word: ${rep('search', searchWord(name))}`;
    }
    case 'notFoundUrl':
      return `check --base-url, REP_BASE_URL or \`${rep('status')}\` (the base URL usually ends in /api)`;
    case 'notJson':
      return 'check --base-url (it should point at the API, usually ending in /api); --debug shows the start of the answer';
    case 'debug':
      return 'run again with --debug to see the request and the answer';
    case 'retries':
      return error instanceof ApiError ? 'try again later; --retries retries automatically' : 'try again; use --retries to retry automatically';
    case 'timeout':
      return 'raise --timeout (seconds), or check your network';
    case 'refused':
      return 'is the server running? check --base-url';
    case 'dns':
      return 'check the host name in --base-url, and your network or DNS';
    case 'unreachable':
      return 'check your network and --base-url';
    case 'network':
      return 'check your network, proxy settings and --base-url';
    case 'baseUrl':
      return 'check --base-url';
    case 'otherOrigin':
      return 'the API key is sent only to the configured origin; if that address is the service, use it as --base-url';
    case 'rateLimit':
      return 'wait and retry with --wait, or ask the service operator for a higher tier';
    case 'maxWait':
      return 'the reset is further away than --max-wait allows: raise --max-wait, or ask the service operator for a higher tier';
    default:
      return error.hint;
  }
}

/** Turns anything thrown into what the user sees and the code the process exits with. */
export function describeError(error: unknown, context: HintContext = { contextArgs: [] }): ErrorReport {
  if (error instanceof RepError) {
    const report: ErrorReport = { exitCode: error.exitCode, message: oneLine(error.message) };
    const hint = cliHint(error, context);
    if (hint) report.hint = oneLine(hint);
    if (error.attempts !== undefined && error.attempts > 1) tellAttempts(report, error.attempts, error.elapsedMs ?? 0);
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

/** A failure after retries says how many attempts were made and over how long; the hint no longer offers retries as new. */
function tellAttempts(report: ErrorReport, attempts: number, elapsedMs: number): void {
  const seconds = elapsedMs < 10_000 ? Math.round(elapsedMs / 100) / 10 : Math.round(elapsedMs / 1000);
  report.message += ` (${attempts} attempts over ${seconds} s)`;
  if (report.hint?.includes('--retries')) report.hint = `try again later, or raise --retries (${attempts - 1} retries were made)`;
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
