import type { Deps } from '../deps.js';
import type { PulseView } from '../views/pulse.js';
import { fetchAndShow } from './query.js';

/** pulse takes no options of its own. */
export type PulseOptions = Record<string, never>;

export async function run(_opts: PulseOptions, deps: Deps): Promise<void> {
  let fresh: number | undefined;
  await fetchAndShow(deps, 'pulse', undefined, async (view, fromCache) => {
    if (!fromCache) fresh = (view as PulseView).index;
    return undefined;
  });
  if (fresh !== undefined) await (await import('../history/market.js')).recordMarket(deps, fresh);
}
