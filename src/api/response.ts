// A response the client cannot simply return: its body read as JSON (or the ApiError saying it is no
// JSON), and a non-2xx status turned into its typed error with the server's own message.
import { isRecord, parseJson, scrubLine } from '../text.js';
import type { Endpoint } from '../views/index.js';
import { ApiError, AuthError, describeUrl, NotFoundError, type RepError, searchWord, statusLine } from './errors.js';
import type { Redact } from './request.js';
import type { ApiResponse } from './transport.js';

/** What a response's error message needs to know about the request it answers. */
export interface RequestFacts {
  /** None for a raw path (`rep api`) that is no endpoint of ours. */
  endpoint?: Endpoint;
  q?: string;
  hasKey: boolean;
  redact: Redact;
}

/** What reading an answer needs of it (a cached one has no target). */
type AnswerText = Pick<ApiResponse, 'status' | 'headers' | 'text'>;

const EXCERPT_CHARS = 300;
const DEBUG_HINT = "the error's status, headers and bodyExcerpt, and the onRequest and onResponse hooks, show the request and the answer";
const MESSAGE_CHARS = 200;

/** The start of a body, one line, for --debug only. */
export function bodyExcerpt(text: string, redact: Redact): string {
  const excerpt = scrubLine(redact(text.slice(0, EXCERPT_CHARS * 2))).trim();
  return excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
}

/**
 * A 2xx body as the JSON object or array every endpoint answers with. Anything else (no body, a
 * 204, a bare `null` or number, text that is not JSON) is a malformed answer: ApiError, never an empty result.
 */
export function parseJsonBody(response: AnswerText, redact: Redact): unknown {
  if (response.text.trim() === '') throw malformedBody(response, redact, 'empty');
  let value: unknown;
  try {
    value = parseJson(response.text);
  } catch (error) {
    throw new ApiError("the server's answer is not valid JSON", {
      ...bodyDetails(response, redact),
      hint: "check the baseUrl option (it should point at the API, usually ending in /api); the error's bodyExcerpt shows the start of the answer",
      cause: error,
      reason: 'notJson',
    });
  }
  if (typeof value !== 'object' || value === null) throw malformedBody(response, redact, 'not a JSON object or array');
  return value;
}

function malformedBody(response: AnswerText, redact: Redact, what: string): ApiError {
  return new ApiError(`the server's answer is ${what} (${statusLine(response.status)})`, {
    ...bodyDetails(response, redact),
    hint: DEBUG_HINT,
    reason: 'debug',
  });
}

/** What an error about an answer carries; made only for an error (a good answer, every one of a batch, needs no excerpt). */
function bodyDetails(response: AnswerText, redact: Redact) {
  return { status: response.status, headers: response.headers, bodyExcerpt: bodyExcerpt(response.text, redact) };
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
  const { status } = response;
  const details = bodyDetails(response, request.redact);
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
    return new ApiError(`${describeUrl(response.target.url)} was not found (404): is the base URL right?`, {
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
