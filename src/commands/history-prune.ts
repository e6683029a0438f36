// `rep history prune --before DURATION|DATE`: removes the points dated before then, every series, and
// says how many went on stderr (as `rep cache clear` does). Retention is explicit: nothing else removes a point.
import type { Deps } from '../deps.js';
import { placeOf } from '../store/policy.js';
import { ConfigError, systemErrorText, UsageError } from '../errors.js';
import { localDateTime } from '../history/change.js';
import { parseSince } from '../history/since.js';

export interface HistoryPruneOptions {
  /** `--before`: a duration back from now (2y, 90d) or a date (2026-01-01) or an ISO timestamp. */
  before?: string;
}

export async function run(opts: HistoryPruneOptions, deps: Deps): Promise<void> {
  if (opts.before === undefined) {
    throw new UsageError('rep history prune needs --before', { hint: 'say what goes, e.g. rep history prune --before 2y (or --before 2026-01-01)' });
  }
  const before = parseSince(opts.before, deps.now(), '--before');
  const store = deps.store();
  if (!store) throw new UsageError('--sandbox records no history: there is nothing to prune', { hint: 'drop --sandbox to prune the history' });
  const where = placeOf(store, 'history');
  let removed: number;
  try {
    removed = await store.history.prune(before);
  } catch (error) {
    throw new ConfigError(`cannot prune the history in ${where}: ${systemErrorText(error)}`, { hint: `check the permissions of ${where}`, cause: error });
  }
  if (deps.globals.quiet) return;
  const when = localDateTime(new Date(before).toISOString());
  deps.io.err(
    removed === 0 ? `No points before ${when} in ${where}\n` : `Removed ${removed} point${removed === 1 ? '' : 's'} dated before ${when} from ${where}\n`,
  );
}
