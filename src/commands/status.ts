// `rep status`: where rep would send requests, with which key (masked), and how many it sent lately.
// Exits 4 when no key is set, after showing the rest.
import type { Deps } from '../deps.js';
import { AuthError, systemErrorText } from '../errors.js';
import { csvBom } from '../output/csv.js';
import { baseUrlText } from '../api/base-url.js';
import { maskKey, type Settings } from '../config/settings.js';
import { type RateLimitRecord, type StatusView, writeStatus } from '../output/status.js';
import type { CacheStats } from '../state/answer-cache.js';
import type { RateLimitSnapshot, RequestStatus } from '../state/requests.js';

/** status takes no options of its own. */
export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const usage = settings.keySource === 'sandbox' ? undefined : await requestStatus(deps, settings.key ?? '');
  const cache = settings.keySource === 'sandbox' ? undefined : await (await import('./cache.js')).cacheStatus(deps);
  writeStatus(deps.io, statusView(settings, usage, cache), deps.format(), { now: deps.now(), bom: csvBom(deps) });
  if (!settings.key) throw new AuthError('no API key is set', { hint: 'run `rep login`, or set REP_API_KEY' });
}

/** The local request count for a key; none (0, with a warning) when the state dir cannot be read. */
async function requestStatus(deps: Deps, key: string): Promise<RequestStatus | undefined> {
  const { readRequestStatus, keyId, requestsDir } = await import('../state/requests.js');
  const { stateDir } = deps.paths();
  try {
    return readRequestStatus(stateDir, keyId(key), deps.now());
  } catch (error) {
    deps.warn(`cannot read the request count in ${requestsDir(stateDir)} (${systemErrorText(error)})`);
    return undefined;
  }
}

/** `usage` is the local request count, none under the sandbox or when it cannot be read. */
export function statusView(settings: Settings, usage: RequestStatus | undefined, cache?: CacheStats): StatusView {
  return {
    base_url: settings.baseUrl ? baseUrlText(settings.baseUrl) : null,
    base_url_source: settings.baseUrlSource,
    key: settings.key ? maskKey(settings.key) : null,
    key_source: settings.keySource,
    config_path: settings.configPath,
    requests_last_hour: usage?.lastHour ?? 0,
    rate_limit: usage?.rateLimit ? rateLimitRecord(usage.rateLimit) : null,
    cache: cache ?? null,
  };
}

/** The last rate-limit headers seen, with times as ISO 8601 like the rest of the JSON. */
function rateLimitRecord(snapshot: RateLimitSnapshot): RateLimitRecord {
  return {
    limit: snapshot.limit ?? null,
    remaining: snapshot.remaining ?? null,
    reset_at: snapshot.resetAt === undefined ? null : new Date(snapshot.resetAt).toISOString(),
    seen_at: new Date(snapshot.seenAt).toISOString(),
  };
}
