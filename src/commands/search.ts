import type { Deps } from '../deps.js';
import { fetchAndShow, queryFrom } from './query.js';

export interface SearchOptions {
  args: [string[]];
}

export async function run(opts: SearchOptions, deps: Deps): Promise<void> {
  await fetchAndShow(deps, 'search', queryFrom(opts.args[0], 'search text'));
}
