// The CLI's words for what to do next: an error's hint, worded with rep's flags and commands and the run's
// context. What the error is (its message, exit code and details) is errors.ts's business.
import { ApiError, NotFoundError, RepError, searchWord } from './api/errors.js';
import { suggestedCommand } from './shell-quote.js';

/** What the CLI's hints need to know of the run: the flags a suggested command keeps, where the key came from. */
export interface HintContext {
  /** `--sandbox`, or `--base-url URL` given on the command line. */
  contextArgs: readonly string[];
  keySource?: 'env' | 'config' | 'sandbox' | 'none';
  configPath?: string;
}

/** The hint for anything thrown: a RepError's in the CLI's words, after retries no longer offering them as new. */
export function hintFor(error: unknown, context: HintContext): string | undefined {
  if (!(error instanceof RepError)) return 'run again with --debug for details';
  const hint = cliHint(error, context);
  if (error.attempts !== undefined && error.attempts > 1 && hint?.includes('--retries'))
    return `try again later, or raise --retries (${error.attempts - 1} retries were made)`;
  return hint;
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
