import type { Deps } from '../deps.js';
import { fetchAndShow } from './query.js';

/** pulse takes no options of its own. */
export type PulseOptions = Record<string, never>;

export async function run(_opts: PulseOptions, deps: Deps): Promise<void> {
  await fetchAndShow(deps, 'pulse');
}
