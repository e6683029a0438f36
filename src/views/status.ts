// The status view: where rep would send requests, with which key (masked), and how many it sent
// lately. Its field names are the JSON output's, so `rep status --json | jq .key_source` reads them.
import { baseUrlText, maskKey, type Settings } from '../config/settings.js';
import type { CacheStats } from '../state/answer-cache.js';
import type { RateLimitSnapshot, RequestStatus } from '../state/requests.js';

export interface StatusView {
  base_url: string | null;
  base_url_source: Settings['baseUrlSource'];
  key: string | null;
  key_source: Settings['keySource'];
  config_path: string;
  requests_last_hour: number;
  rate_limit: RateLimitRecord | null;
  /** The answer cache: where it is, how many answers it holds and their size; null under --sandbox or when unreadable. */
  cache: CacheStats | null;
  /** The score history: where, how many points, their size, the oldest point's time; null under --sandbox or when unreadable. */
  history: HistoryStatus | null;
}

export interface HistoryStatus {
  dir: string;
  points: number;
  bytes: number | null;
  oldest: string | null;
}

export interface RateLimitRecord {
  limit: number | null;
  remaining: number | null;
  reset_at: string | null;
  seen_at: string;
}

/** `usage` is the local request count, none under the sandbox or when it cannot be read. */
export function statusView(settings: Settings, usage: RequestStatus | undefined, cache?: CacheStats, history?: HistoryStatus): StatusView {
  return {
    base_url: settings.baseUrl ? baseUrlText(settings.baseUrl) : null,
    base_url_source: settings.baseUrlSource,
    key: settings.key ? maskKey(settings.key) : null,
    key_source: settings.keySource,
    config_path: settings.configPath,
    requests_last_hour: usage?.lastHour ?? 0,
    rate_limit: usage?.rateLimit ? rateLimitRecord(usage.rateLimit) : null,
    cache: cache ?? null,
    history: history ?? null,
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
