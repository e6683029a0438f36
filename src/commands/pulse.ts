import type { Deps } from '../deps.js';
import { fetchAndShow } from './query.js';

export async function run(_opts: object, deps: Deps): Promise<void> {
  await fetchAndShow(deps, 'pulse');
}
