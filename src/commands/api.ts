// `rep api PATH`: a raw GET of `{base URL}/PATH` (as `gh api` and restish make one), through the
// library client's one request path: the key only to its origin, redirects, size cap, retries, rate
// limits, the request count, and the cache for the endpoints' own questions. The body goes out as JSON.
import { signalOf } from '../api/abort-link.js';
import type { Deps } from '../deps.js';
import { jsonDocument } from '../output/json-colour.js';
import { jsonText } from '../output/json-text.js';
import { withSpinner } from '../progress.js';
import { cachedAge } from './query.js';

export interface ApiOptions {
  /** Below the base URL: `pulse`, `audit?q=Acme`. */
  path: string;
}

export async function run(opts: ApiOptions, deps: Deps): Promise<void> {
  const query = deps.globals.query === undefined ? undefined : await (await import('../output/query.js')).compileQuery(deps.globals.query);
  const client = await deps.client();
  const response = await withSpinner(deps, `Fetching ${opts.path}…`, () => client.get(opts.path, { signal: signalOf(deps.signal) }));
  if (response.fromCache && !deps.globals.quiet) deps.io.err(`rep: cached answer from ${cachedAge(response.fromCache.ageMs)} (--max-age 0 to refresh)\n`);
  const format = deps.format();
  if (query) {
    const { writeQueryResult } = await import('../output/query.js');
    writeQueryResult(deps.io, query(response.body), format);
  } else if (format === 'ndjson') deps.io.out(`${jsonText(response.body)}\n`);
  else deps.io.out(jsonDocument(deps.io, response.body));
}
