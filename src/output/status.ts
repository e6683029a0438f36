// `rep status` in each format, from its view: aligned lines for people, one CSV row, JSON as the view.
import type { Format } from '../deps.js';
import type { IO } from '../io.js';
import { formatClock } from '../time.js';
import { byteSize, type CacheSummary, describeCacheStats } from './cache.js';
import { BOM, csvRow } from './csv.js';
import { markdownTable } from './markdown.js';

/** `rep status`: its field names are the JSON output's, so `rep status --json | jq .key_source` reads them. */
export interface StatusView {
  /** The active profile (null under --sandbox, which reads no config), where the choice came from (flag, env, default), and every profile of the config file. */
  profile: string | null;
  profile_source: string | null;
  profiles: string[];
  base_url: string | null;
  /** Where the base URL came from: flag, env, config, sandbox or none (config/settings.ts). */
  base_url_source: string;
  key: string | null;
  /** Where the key came from: env, config, sandbox or none. */
  key_source: string;
  config_path: string;
  requests_last_hour: number;
  /** With a team store only: how many machines sent the last hour's requests. */
  requests_machines?: number;
  rate_limit: RateLimitRecord | null;
  /** The answer cache: where it is, how many answers it holds and their size (the sandbox's own under --sandbox); null when unreadable. */
  cache: CacheSummary | null;
  /** The score history: where, how many points, their size, the oldest point's time (the sandbox's own under --sandbox); null when unreadable. */
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

/** `now` places the last rate limit's times; `bom` starts CSV with a BOM. */
export function writeStatus(io: IO, view: StatusView, format: Format, { now, bom }: { now: number; bom: boolean }): void {
  switch (format) {
    case 'table':
      io.out(statusLines(view, now));
      return;
    case 'markdown':
      io.out(markdownTable(['Setting', 'Value'], statusPairs(view, now)));
      return;
    case 'csv':
      io.out((bom ? BOM : '') + statusCsv(view));
      return;
    case 'json':
    case 'ndjson':
      io.out(`${JSON.stringify(view, null, format === 'json' ? 2 : undefined)}\n`);
      return;
  }
}

function statusLines(view: StatusView, now: number): string {
  const lines = statusPairs(view, now);
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join('');
}

/** Each setting's label and value, as people read them. */
function statusPairs(view: StatusView, now: number): Array<[string, string]> {
  const lines: Array<[string, string]> = [
    ...profileLines(view),
    ['Base URL', view.base_url ? `${view.base_url} (from ${sourceName(view.base_url_source, 'REP_BASE_URL', view.profile)})` : 'not set'],
    ['API key', view.key ? `${view.key} (from ${sourceName(view.key_source, 'REP_API_KEY', view.profile)})` : 'not set'],
    ['Config file', view.config_path],
    ['Requests, last hour', `${view.requests_last_hour}${view.requests_machines === undefined ? '' : `, from ${machinesText(view.requests_machines)}`}`],
  ];
  if (view.rate_limit) lines.push(['Last rate limit seen', describeLimit(view.rate_limit, now)]);
  if (view.cache) lines.push(['Answer cache', describeCacheStats(view.cache)]);
  if (view.history) lines.push(['History', describeHistory(view.history)]);
  return lines;
}

function machinesText(machines: number): string {
  return `${machines} machine${machines === 1 ? '' : 's'}`;
}

/** The active profile and the others; none under --sandbox. */
function profileLines(view: StatusView): Array<[string, string]> {
  if (view.profile === null) return [];
  const from = { flag: '--profile', env: 'REP_PROFILE', default: 'default' }[view.profile_source ?? 'default'];
  const others = view.profiles.filter((name) => name !== view.profile);
  return [
    ['Profile', `${view.profile} (from ${from})`],
    ['Other profiles', others.length > 0 ? others.join(', ') : 'none'],
  ];
}

/** Where a setting came from; a variable that wins over a named profile's own value says so. */
function sourceName(source: string, variable: string, profile: string | null): string {
  const named = profile !== null && profile !== 'default'; // the default profile is the config file's top level
  if (source === 'env') return named ? `environment: ${variable} wins over profile ${profile}` : 'environment';
  return { flag: '--base-url', config: named ? `profile ${profile}` : 'config file', sandbox: 'sandbox' }[source] ?? source;
}

/** A header and one row; the rate limit's fields in columns of their own, empty when none was seen. */
function statusCsv({ rate_limit: limit, cache, history, profile, profile_source, profiles, ...rest }: StatusView): string {
  const fields = ['limit', 'remaining', 'reset_at', 'seen_at'] as const;
  const cacheFields = ['dir', 'entries', 'bytes', 'max_bytes'] as const;
  const historyFields = ['dir', 'points', 'bytes', 'oldest'] as const;
  const record = {
    profile,
    profile_source,
    profiles: profiles.join(' '),
    ...rest,
    ...Object.fromEntries(fields.map((field) => [`rate_limit.${field}`, limit?.[field]])),
    ...Object.fromEntries(cacheFields.map((field) => [`cache.${field}`, cache?.[field]])),
    ...Object.fromEntries(historyFields.map((field) => [`history.${field}`, history?.[field]])),
  };
  return csvRow(Object.keys(record)) + csvRow(Object.values(record));
}

/** `/home/me/.local/state/rep/history, 1,204 points, 310 KB, oldest 2025-01-02`. */
function describeHistory(history: HistoryStatus): string {
  const points = `${history.points} point${history.points === 1 ? '' : 's'}`;
  const size = history.bytes === null ? '' : `, ${byteSize(history.bytes)}`;
  return `${history.dir}, ${points}${size}${history.oldest === null ? '' : `, oldest ${history.oldest.slice(0, 10)}`}`;
}

function describeLimit(limit: RateLimitRecord, now: number): string {
  const parts = [];
  if (limit.remaining !== null) parts.push(`${limit.remaining}${limit.limit !== null ? ` of ${limit.limit}` : ''} left`);
  if (limit.reset_at !== null) parts.push(`resets ${formatClock(Date.parse(limit.reset_at), now)}`);
  return `${parts.join(', ') || 'no details'} (seen ${formatClock(Date.parse(limit.seen_at))})`;
}
