import type { Deps } from '../deps.js';
import { fetchAndShow, queryFrom } from './query.js';

export interface SearchOptions {
  /** The words given, joined with one space. */
  words: string[];
}

export async function run(opts: SearchOptions, deps: Deps): Promise<void> {
  await fetchAndShow(deps, 'search', queryFrom(opts.words, 'search text'));
}
