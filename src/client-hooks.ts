// What the library client tells, in the CLI's words: requests, answers, cache and retries as --debug
// lines, a failed cache write and low quota as warnings, a rate-limit wait as progress.ts's countdown.
// The client itself never writes to the terminal.
import type { RepHooks } from './api/client.js';
import { statusLine } from './api/errors.js';
import type { Deps } from './deps.js';
import { systemErrorText } from './errors.js';
import { showRateLimitWait } from './progress.js';
import { alreadyTold } from './store/errors.js';
import { formatRelative } from './time.js';

const RATE_LIMIT_HEADER = /ratelimit|retry-after/i;

/** The client's hooks for one run: what it tells goes to stderr in the CLI's words. */
export function clientHooks(deps: Deps): RepHooks {
  return {
    // Only under --debug: without a listener the client builds no event a request (a batch sends thousands).
    ...(deps.globals.debug ? debugHooks(deps) : {}),
    onCache(event) {
      if (event.kind === 'hit') return deps.debug(`cache: hit for ${event.endpoint}, ${formatRelative(event.ageMs)} old`);
      if (event.kind === 'miss') return deps.debug(`cache: miss for ${event.endpoint}`);
      const { outcome } = event;
      if ('error' in outcome) {
        // A team store tells its own failure once; this run need not tell it again.
        if (!alreadyTold(outcome.error)) deps.warn(`cannot save the answer in the cache (${systemErrorText(outcome.error)})`);
      } else deps.debug(outcome.stored ? `cache: stored the ${event.endpoint} answer` : `cache: not stored: ${outcome.reason}`);
    },
    onRetry({ attempt, retries, delayMs, error }) {
      deps.debug(`retry ${attempt} of ${retries} in ${delayMs} ms: ${error.message}`);
    },
    onRateLimitWait: (wait) => showRateLimitWait(deps, wait),
    onLowQuota: ({ message }) => deps.warn(message),
  };
}

/** A request and its answer as --debug lines. */
function debugHooks(deps: Deps): Pick<RepHooks, 'onRequest' | 'onResponse'> {
  return {
    onRequest({ method, url, headers, proxy }) {
      deps.debug(`> ${method} ${url}${proxy ? ` via the proxy ${proxy}` : ''}`);
      if (headers.authorization) deps.debug(`> authorization: ${headers.authorization}`);
    },
    onResponse({ status, headers, durationMs }) {
      if (status >= 300 && status < 400 && headers.location !== undefined) return deps.debug(`< ${statusLine(status)} → ${headers.location}`);
      deps.debug(`< ${statusLine(status)} (${durationMs} ms)`);
      for (const [name, value] of Object.entries(headers)) if (RATE_LIMIT_HEADER.test(name)) deps.debug(`< ${name}: ${value}`);
    },
  };
}
