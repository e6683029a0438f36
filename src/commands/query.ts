// Shared by the commands that send a query: validation before any request, then fetch, then render.
import type { Endpoint } from '../api/types.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { withSpinner } from '../progress.js';

/** Joins words with one space; an empty or whitespace-only query is a usage error, sent nowhere. */
export function queryFrom(words: readonly string[], what: string): string {
  const query = words.join(' ').trim();
  if (!query) throw new UsageError(`the ${what} is empty`, { hint: `give a ${what}, e.g. rep ${what === 'company name' ? 'audit "Blue Bottle Coffee"' : 'search coffee'}` });
  return query;
}

/** One request, one rendered answer on stdout. */
export async function fetchAndShow(deps: Deps, endpoint: Endpoint, query?: string): Promise<void> {
  const client = await deps.client();
  const label = query === undefined ? `Fetching ${endpoint}…` : `Fetching ${endpoint} for ${query}…`;
  const response = await withSpinner(deps, label, (spinner) =>
    client.get(endpoint, query, { signal: deps.signal, onWait: (waiting) => spinner.hold(waiting) }),
  );
  const [{ writeView }, { csvBom }, { fieldPaths, viewOf }] = await Promise.all([
    import('../output/render.js'),
    import('../output/csv.js'),
    import('../views/index.js'),
  ]);
  const answer = { body: response.body, ...viewOf(endpoint, response.body) };
  for (const line of fieldPaths(answer)) deps.debug(`view: ${line}`);
  await writeView(deps.io, answer, deps.format(), { signal: deps.signal, bom: csvBom(deps) });
}
