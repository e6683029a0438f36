// `rep status`: where rep would send requests, with which key (masked), and how many it sent lately.
// Exits 4 when no key is set, after showing the rest.
import { formatClock } from '../api/rate-limit-message.js';
import { baseUrlText, maskKey } from '../config/settings.js';
import type { Deps } from '../deps.js';
import { AuthError, systemErrorText } from '../errors.js';
import { csvRow } from '../output/csv.js';
import type { RateLimitSnapshot, RequestStatus } from '../state/requests.js';

/** status takes no options of its own. */
export type StatusOptions = Record<string, never>;

export async function run(_opts: StatusOptions, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const usage = settings.keySource === 'sandbox' ? undefined : await requestStatus(deps, settings.key ?? '');
  const status = {
    base_url: settings.baseUrl ? baseUrlText(settings.baseUrl) : null,
    base_url_source: settings.baseUrlSource,
    key: settings.key ? maskKey(settings.key) : null,
    key_source: settings.keySource,
    config_path: settings.configPath,
    requests_last_hour: usage?.lastHour ?? 0,
    rate_limit: usage?.rateLimit ? rateLimitRecord(usage.rateLimit) : null,
  };
  const format = deps.format();
  if (format === 'table') {
    const limit = status.rate_limit;
    const lines: Array<[string, string]> = [
      ['Base URL', status.base_url ? `${status.base_url} (from ${sourceName(status.base_url_source)})` : 'not set'],
      ['API key', status.key ? `${status.key} (from ${sourceName(status.key_source)})` : 'not set'],
      ['Config file', status.config_path],
      ['Requests, last hour', String(status.requests_last_hour)],
    ];
    if (limit) lines.push(['Last rate limit seen', describeLimit(limit, deps.now())]);
    const width = Math.max(...lines.map(([label]) => label.length));
    deps.io.out(lines.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join(''));
  } else if (format === 'csv') {
    deps.io.out(statusCsv(status));
  } else {
    deps.io.out(`${JSON.stringify(status, null, format === 'json' ? 2 : undefined)}\n`);
  }
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

function sourceName(source: string): string {
  return { flag: '--base-url', env: 'environment', config: 'config file', sandbox: 'sandbox' }[source] ?? source;
}

interface RateLimitRecord {
  limit: number | null;
  remaining: number | null;
  reset_at: string | null;
  seen_at: string;
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

/** A header and one row; the rate limit's fields in columns of their own, empty when none was seen. */
function statusCsv({ rate_limit: limit, ...rest }: Record<string, unknown> & { rate_limit: RateLimitRecord | null }): string {
  const fields = ['limit', 'remaining', 'reset_at', 'seen_at'] as const;
  const record = { ...rest, ...Object.fromEntries(fields.map((field) => [`rate_limit.${field}`, limit?.[field]])) };
  return csvRow(Object.keys(record)) + csvRow(Object.values(record));
}

function describeLimit(limit: RateLimitRecord, now: number): string {
  const parts = [];
  if (limit.remaining !== null) parts.push(`${limit.remaining}${limit.limit !== null ? ` of ${limit.limit}` : ''} left`);
  if (limit.reset_at !== null) parts.push(`resets ${formatClock(Date.parse(limit.reset_at), now)}`);
  return `${parts.join(', ') || 'no details'} (seen ${formatClock(Date.parse(limit.seen_at))})`;
}
