// Turns a server's answer into the value a command gets or the typed error it throws: 2xx JSON is
// parsed, every other status gets a one-line message, never an HTML page.
import { STATUS_CODES } from 'node:http';
import { ApiError, AuthError, NotFoundError, type RepError } from '../errors.js';
import { scrubLine } from '../text/scrub.js';
import { shellQuote } from '../shell-quote.js';
import { isRecord, parseJson } from '../text/json.js';
import type { Endpoint } from './types.js';
import { describeUrl } from './url.js';

/** What errorFromStatus needs to know about one answer. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  url: URL;
  endpoint: Endpoint;
  q?: string;
  hasKey: boolean;
  redact: (text: string) => string;
}

const EXCERPT_CHARS = 300;
const MESSAGE_CHARS = 200;

/** `502 Bad Gateway` */
export function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** The start of a body, one line, for --debug only. */
export function bodyExcerpt(text: string, redact: (text: string) => string): string {
  const excerpt = scrubLine(redact(text.slice(0, EXCERPT_CHARS * 2))).trim();
  return excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
}

/**
 * A 2xx body as the JSON object or array every endpoint answers with. Anything else (no body, a
 * 204, a bare `null` or number, text that is not JSON) is a malformed answer: ApiError, never an empty result.
 */
export function parseJsonBody(answer: Answer): unknown {
  const malformed = (what: string) => new ApiError(`the server's answer is ${what} (${statusLine(answer.status)})`, {
    status: answer.status,
    headers: answer.headers,
    bodyExcerpt: bodyExcerpt(answer.text, answer.redact),
    hint: 'run again with --debug to see the request and the answer',
  });
  if (answer.text.trim() === '') throw malformed('empty');
  const parsed = tryParseJson(answer.text);
  if ('value' in parsed) {
    if (typeof parsed.value !== 'object' || parsed.value === null) throw malformed('not a JSON object or array');
    return parsed.value;
  }
  throw new ApiError("the server's answer is not valid JSON", {
    status: answer.status,
    headers: answer.headers,
    bodyExcerpt: bodyExcerpt(answer.text, answer.redact),
    hint: 'check --base-url (it should point at the API, usually ending in /api); --debug shows the start of the answer',
    cause: parsed.error,
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
function serverMessage(body: unknown, redact: (text: string) => string): string | undefined {
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

/** The typed error for a non-2xx answer (429 is handled by the rate-limit code, 3xx by redirects). */
export function errorFromStatus(answer: Answer): RepError {
  const { status, headers } = answer;
  const details = { status, headers, bodyExcerpt: bodyExcerpt(answer.text, answer.redact) };
  // HTML or plain text is never shown, only under --debug as the body excerpt.
  const parsed = tryParseJson(answer.text);
  const said = 'value' in parsed ? serverMessage(parsed.value, answer.redact) : undefined;
  const suffix = said ? `: ${said}` : '';

  if (status === 401 || status === 403) {
    const error = new AuthError(
      answer.hasKey ? `the server rejected the API key (${statusLine(status)})` : `the server needs an API key (${statusLine(status)})`,
      { hint: 'run `rep login`, or set REP_API_KEY' },
    );
    error.status = status;
    return error;
  }
  if (status === 404) {
    if (answer.endpoint === 'audit' && answer.q !== undefined && ('value' in parsed || answer.text.trim() === '')) {
      const name = scrubLine(answer.q);
      return new NotFoundError(`no company named "${name}"`, { hint: `try: rep search ${name.startsWith('-') ? '-- ' : ''}${shellQuote(name)}` });
    }
    return new ApiError(`${describeUrl(answer.url)} was not found (404): is the base URL right?`, {
      ...details,
      hint: 'check --base-url, REP_BASE_URL or `rep status` (the base URL usually ends in /api)',
    });
  }
  if (status >= 500) {
    return new ApiError(`the server failed (${statusLine(status)})${suffix}`, { ...details, hint: 'try again later; --retries retries automatically' });
  }
  return new ApiError(`unexpected answer from the server (${statusLine(status)})${suffix}`, {
    ...details,
    hint: 'run again with --debug to see the request and the answer',
  });
}
