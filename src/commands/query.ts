// Shared by the commands that send a query: validation before any request, then fetch, then render.
import type { Endpoint } from '../views/index.js';
import type { EndpointView } from '../views/index.js';
import type { Deps } from '../deps.js';
import type { Change } from '../history/change.js';
import { signalOf } from '../api/abort-link.js';
import { UsageError } from '../errors.js';
import { withSpinner } from '../progress.js';
import { formatRelative } from '../time.js';
import { writeView } from '../output/render.js';
import { csvBom } from '../output/csv.js';
import { fieldPaths } from '../views/index.js';
import { shapeOf } from './shape.js';

/**
 * Joins words with one space; an empty or whitespace-only query is a usage error, sent nowhere, and so
 * is one with a line break (refuseLineBreak).
 */
export function queryFrom(words: readonly string[], what: QueryWhat): string {
  const query = words.join(' ').trim();
  if (!query)
    throw new UsageError(`the ${what} is empty`, {
      hint: `give a ${what}, e.g. rep ${what === 'company name' ? 'audit "Blue Bottle Coffee"' : 'search coffee'}`,
    });
  return refuseLineBreak(query, what);
}

/** What a query is called in its command's messages. */
export type QueryWhat = 'company name' | 'search text';

/**
 * A query given as an argument holds no line break: a name that does is several names ("$(cat
 * names.txt)") or none, and a search text several texts; either request would answer "not found" for
 * what may exist, a request of the hour's quota spent for nothing.
 */
export function refuseLineBreak(query: string, what: QueryWhat): string {
  if (/[\r\n]/.test(query))
    throw new UsageError(`the ${what} ${JSON.stringify(query)} holds a line break`, {
      hint:
        what === 'company name'
          ? 'one name a line: rep audit --file names.txt, or each name as its own argument'
          : 'search one text at a time, e.g. rep search coffee',
    });
  return query;
}

/** One request, one rendered answer on stdout; `onAnswer` sees the answer's view (and whether it came from the cache) before it is shown. */
export async function fetchAndShow(
  deps: Deps,
  endpoint: Endpoint,
  query?: string,
  onAnswer?: (view: EndpointView['view'], fromCache: { fetchedAt: number } | undefined) => Promise<Change | undefined>,
): Promise<void> {
  const shape = await shapeOf(deps.globals); // a broken --query is told before any request
  const client = await deps.client();
  const label = query === undefined ? `Fetching ${endpoint}…` : `Fetching ${endpoint} for ${query}…`;
  // Read by the client only as it sends: an answer from the cache makes no AbortSignal.
  const call = {
    get signal() {
      return signalOf(deps.signal);
    },
  };
  const response = await withSpinner(deps, label, async () => (endpoint === 'pulse' ? client.pulse(call) : client[endpoint](query ?? '', call)));
  if (response.fromCache && !deps.globals.quiet) deps.io.err(`rep: cached answer from ${cachedAge(response.fromCache.ageMs)} (--max-age 0 to refresh)\n`);
  const change = await onAnswer?.(response.view, response.fromCache);
  // The client already built the view: the renderers take it as it is.
  const answer = { body: response.body, endpoint, view: response.view } as EndpointView & { body: unknown };
  if (deps.globals.debug) for (const line of fieldPaths(answer)) deps.debug(`view: ${line}`);
  await writeView(deps.io, answer, deps.format(), {
    signal: deps.signal,
    bom: csvBom(deps),
    ...(change ? { change } : {}),
    ...(shape ? { shape } : {}),
    ...(query === undefined ? {} : { asked: query }),
  });
}

/** `3 min ago`, or `just now` for an answer under a few seconds old. */
export function cachedAge(ageMs: number): string {
  return ageMs < 5000 ? 'just now' : `${formatRelative(ageMs)} ago`;
}
