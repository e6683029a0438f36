// `rep status`: where rep would send requests, with which key (masked), and how many it sent lately.
// Exits 4 when no key is set, after showing the rest.
import type { Deps } from '../deps.js';
import { AuthError, systemErrorText } from '../errors.js';
import { csvBom } from '../output/csv.js';
import { writeStatus } from '../output/status.js';
import { baseUrlKey } from '../api/request.js';
import { HOUR_MS } from '../api/rate-limit.js';
import type { RequestStatus } from '../state/requests.js';
import { keyFingerprint, placeOf } from '../store/policy.js';
import type { Store } from '../store/port.js';
import type { Settings } from '../config/settings.js';
import { statusView, type HistoryStatus } from '../views/status.js';

/** status takes no options of its own. */
export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const store = settings.keySource === 'sandbox' ? undefined : deps.store();
  const usage = store ? await requestStatus(deps, store, settings) : undefined;
  const cache = store ? await (await import('./cache.js')).cacheStatus(deps) : undefined;
  const history = store ? await historyStatus(deps, store) : undefined;
  writeStatus(deps.io, statusView(settings, usage, cache, history), deps.format(), { now: deps.now(), bom: csvBom(deps) });
  if (!settings.key) throw new AuthError('no API key is set', { hint: 'run `rep login`, or set REP_API_KEY' });
}

/** The request count for the key at the base URL in use; none (0, with a warning) when the ledger cannot be read. */
async function requestStatus(deps: Deps, store: Store, settings: Settings): Promise<RequestStatus | undefined> {
  if (!settings.baseUrl) return undefined;
  const scope = { keyFingerprint: keyFingerprint(settings.key || undefined), baseUrl: baseUrlKey(settings.baseUrl) };
  const now = deps.now();
  try {
    const [count, rateLimit] = await Promise.all([store.ledger.count(scope, now - HOUR_MS, now), store.ledger.lastRateLimit(scope)]);
    return { lastHour: count.requests, ...(rateLimit ? { rateLimit } : {}) };
  } catch (error) {
    deps.warn(`cannot read the request count in ${placeOf(store, 'requests')} (${systemErrorText(error)})`);
    return undefined;
  }
}

/** The history's points, size and oldest point; none (with a warning) when it cannot be read. */
async function historyStatus(deps: Deps, store: Store): Promise<HistoryStatus | undefined> {
  try {
    const stats = await store.history.stats();
    return { dir: stats.where, points: stats.points, bytes: stats.bytes ?? null, oldest: stats.oldest ?? null };
  } catch (error) {
    deps.warn(`cannot read the history in ${placeOf(store, 'history')} (${systemErrorText(error)})`);
    return undefined;
  }
}
