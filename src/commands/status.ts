// `rep status`: where rep would send requests, with which key (masked), how many it sent lately, and
// what the store holds (answers, history). Exits 4 when no key is set, after showing the rest.
import { baseUrlText } from '../api/base-url.js';
import { maskKey, type Settings } from '../config/settings.js';
import type { Deps } from '../deps.js';
import { AuthError, systemErrorText } from '../errors.js';
import type { CacheSummary } from '../output/cache.js';
import { csvBom } from '../output/csv.js';
import { type HistoryStatus, type RateLimitRecord, type StatusView, writeStatus } from '../output/status.js';
import { keyFingerprint, placeOf } from '../store/policy.js';
import type { RateLimitFacts, Store } from '../store/port.js';
import { HOUR_MS } from '../time.js';

/** status takes no options of its own. */
export type StatusOptions = Record<string, never>;

/** Requests in the last hour and the last rate-limit facts, for the key at the base URL in use. */
interface RequestStatus {
  lastHour: number;
  /** A shared store's: how many machines sent them (a local store counts processes, which people need not see). */
  machines?: number;
  rateLimit?: RateLimitFacts;
}

export async function run(_opts: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const store = deps.store();
  const usage = await requestStatus(deps, store, settings);
  const cache = await (await import('./cache.js')).cacheStatus(deps);
  const history = await historyStatus(deps, store);
  writeStatus(deps.io, statusView(settings, usage, cache, history), deps.format(), { now: deps.now(), bom: csvBom(deps) });
  if (!settings.key) throw new AuthError('no API key is set', { hint: 'run `rep login`, or set REP_API_KEY' });
}

/** The request count for the key at the base URL in use; none (0, with a warning) when the ledger cannot be read. */
async function requestStatus(deps: Deps, store: Store, settings: Settings): Promise<RequestStatus | undefined> {
  const baseUrl = await deps.storeBaseUrl();
  if (!baseUrl) return undefined;
  const scope = { keyFingerprint: keyFingerprint(settings.key || undefined), baseUrl };
  const now = deps.now();
  try {
    const [count, rateLimit] = await Promise.all([store.ledger.count(scope, now - HOUR_MS, now), store.ledger.lastRateLimit(scope)]);
    const shared = store.describe().kind !== 'local';
    return { lastHour: count.requests, ...(shared ? { machines: count.contributors ?? 0 } : {}), ...(rateLimit ? { rateLimit } : {}) };
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

/** `usage` is the request count, none when it cannot be read. */
export function statusView(settings: Settings, usage: RequestStatus | undefined, cache?: CacheSummary, history?: HistoryStatus): StatusView {
  return {
    profile: settings.profile?.name ?? null,
    profile_source: settings.profile?.source ?? null,
    profiles: settings.profiles ?? [],
    base_url: settings.baseUrl ? baseUrlText(settings.baseUrl) : null,
    base_url_source: settings.baseUrlSource,
    key: settings.key ? maskKey(settings.key) : null,
    key_source: settings.keySource,
    config_path: settings.configPath,
    requests_last_hour: usage?.lastHour ?? 0,
    ...(usage?.machines === undefined ? {} : { requests_machines: usage.machines }),
    rate_limit: usage?.rateLimit ? rateLimitRecord(usage.rateLimit) : null,
    cache: cache ?? null,
    history: history ?? null,
  };
}

/** The last rate-limit headers seen, with times as ISO 8601 like the rest of the JSON. */
function rateLimitRecord(snapshot: RateLimitFacts): RateLimitRecord {
  return {
    limit: snapshot.limit ?? null,
    remaining: snapshot.remaining ?? null,
    reset_at: snapshot.resetAt === undefined ? null : new Date(snapshot.resetAt).toISOString(),
    seen_at: new Date(snapshot.seenAt).toISOString(),
  };
}
