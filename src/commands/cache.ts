// `rep cache clear`: empties the answer cache and says how many answers went. Also the cache's figures
// `rep status` shows (output/cache.ts words them).
import type { Deps } from '../deps.js';
import { ConfigError, systemErrorText, UsageError } from '../errors.js';
import { cachedAnswers, type CacheSummary } from '../output/cache.js';
import { placeOf } from '../store/policy.js';

export type CacheClearOptions = Record<string, never>;

export async function run(_opts: CacheClearOptions, deps: Deps): Promise<void> {
  if (deps.globals.sandbox) {
    throw new UsageError('--sandbox does not clear the answer cache: it neither reads nor writes it', { hint: 'drop --sandbox to clear the cache' });
  }
  const store = deps.store()!;
  const dir = placeOf(store, 'cache');
  let removed: number;
  try {
    removed = await store.answers.clear();
  } catch (error) {
    throw new ConfigError(`cannot clear the answer cache in ${dir}: ${systemErrorText(error)}`, { hint: `check the permissions of ${dir}`, cause: error });
  }
  if (deps.globals.quiet) return;
  deps.io.err(removed === 0 ? `No cached answers in ${dir}\n` : `Removed ${cachedAnswers(removed)} from ${dir}\n`);
}

/** The cache's place, answer count and size for `rep status`; undefined (after a warning) when it cannot be read. */
export async function cacheStatus(deps: Pick<Deps, 'store' | 'warn'>): Promise<CacheSummary | undefined> {
  const store = deps.store();
  if (!store) return undefined;
  try {
    const stats = await store.answers.stats();
    return { dir: stats.where, entries: stats.entries, bytes: stats.bytes };
  } catch (error) {
    deps.warn(`cannot read the answer cache in ${placeOf(store, 'cache')} (${systemErrorText(error)})`);
    return undefined;
  }
}
