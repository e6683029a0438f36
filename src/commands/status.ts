// `rep status`: where rep would send requests, with which key (masked), and how many it sent lately.
// Exits 4 when no key is set, after showing the rest.
import { baseUrlText, maskKey } from '../config/settings.js';
import type { Deps } from '../deps.js';
import { AuthError } from '../errors.js';
import type { RateLimitSnapshot } from '../state/requests.js';

export async function run(_opts: object, deps: Deps): Promise<void> {
  const settings = await deps.settings();
  const { readRequestStatus, keyId } = await import('../state/requests.js');
  const usage = settings.keySource === 'sandbox' ? undefined : readRequestStatus(deps.paths().stateDir, keyId(settings.key ?? ''), deps.now(), deps.warn);
  const status = {
    base_url: settings.baseUrl ? baseUrlText(settings.baseUrl) : null,
    base_url_source: settings.baseUrlSource,
    key: settings.key ? maskKey(settings.key) : null,
    key_source: settings.keySource,
    config_path: settings.configPath,
    requests_last_hour: usage?.lastHour ?? 0,
    rate_limit: usage?.rateLimit ? rateLimitRecord(usage.rateLimit) : null,
  };
  if (deps.format() === 'table') {
    const limit = status.rate_limit;
    const lines: Array<[string, string]> = [
      ['Base URL', status.base_url ? `${status.base_url} (from ${sourceName(status.base_url_source)})` : 'not set'],
      ['API key', status.key ? `${status.key} (from ${sourceName(status.key_source)})` : 'not set'],
      ['Config file', status.config_path],
      ['Requests, last hour', String(status.requests_last_hour)],
    ];
    if (limit) lines.push(['Last rate limit seen', describeLimit(limit)]);
    const width = Math.max(...lines.map(([label]) => label.length));
    deps.io.out(lines.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join(''));
  } else {
    deps.io.out(`${JSON.stringify(status, null, deps.format() === 'json' ? 2 : undefined)}\n`);
  }
  if (!settings.key) throw new AuthError('no API key is set', { hint: 'run `rep login`, or set REP_API_KEY' });
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

function describeLimit(limit: RateLimitRecord): string {
  const parts = [];
  if (limit.remaining !== null) parts.push(`${limit.remaining}${limit.limit !== null ? ` of ${limit.limit}` : ''} left`);
  if (limit.reset_at !== null) parts.push(`resets ${new Date(limit.reset_at).toLocaleTimeString()}`);
  return `${parts.join(', ') || 'no details'} (seen ${new Date(limit.seen_at).toLocaleTimeString()})`;
}
