// What rep says of the answer cache: its figures on `rep status`, and the count `rep cache clear` reports.

/** The cache's figures as `rep status` shows them (and names them in JSON: `cache.dir`, `cache.entries`, `cache.bytes`). */
export interface CacheSummary {
  dir: string;
  entries: number;
  bytes: number;
}

/** `/home/me/.cache/rep, 12 cached answers, 48 KB`: the status line's value. */
export function describeCacheStats(stats: CacheSummary): string {
  return `${stats.dir}, ${cachedAnswers(stats.entries)}, ${byteSize(stats.bytes)}`;
}

export function cachedAnswers(count: number): string {
  return `${count} cached answer${count === 1 ? '' : 's'}`;
}

/** `48 KB`, `1.2 MB`: a size as people read it. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / 1024 / 1024, 'MB'];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}
