// The answer cache's bound, as pure policy: its size in bytes (REP_CACHE_MAX_BYTES), how many puts may
// pass before the folder is measured again, and which entries go when it is over: the least recently
// used first, never one used since the evicting run began. No I/O: answer-cache-dir.ts does the files.

/** The bound: past maxBytes on disk the least recently used entries go, checked at least once every `evictEvery` puts while the size is unknown. */
export interface CacheLimits {
  maxBytes: number;
  evictEvery: number;
}

/** 512 MiB: 100,000 answers of a few KB each (a disk block each) fit several times over. */
export const DEFAULT_CACHE_MAX_BYTES = 512 * 1024 * 1024;
export const CACHE_LIMITS: CacheLimits = { maxBytes: DEFAULT_CACHE_MAX_BYTES, evictEvery: 64 };
/** Eviction goes down to this share of the bound, so the next one is many puts away. */
export const LOW_WATER = 0.9;
/** A disk block: the least an entry takes on disk, whatever its size. */
export const BLOCK_BYTES = 4096;

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `512MB`, `1.5 GB`, `200000000` (bytes; units of 1024); undefined for anything else, zero or negative. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** What an entry takes on disk: its blocks, and never less than its size (a file system without block counts). */
export function diskBytes(size: number, blocks: number | undefined): number {
  return Math.max(size, (blocks ?? 0) * 512, BLOCK_BYTES);
}

/** The folder as last measured: its entries and their bytes on disk. */
export interface CacheUsage {
  entries: number;
  bytes: number;
}

/**
 * How many puts may follow a measurement before the next: as many as fill half the room left at the
 * average entry's size, at least `evictEvery`; `evictEvery` when the folder was never measured.
 */
export function putsBeforeCheck(usage: CacheUsage | undefined, limits: CacheLimits): number {
  if (!usage) return limits.evictEvery;
  const average = usage.entries > 0 ? Math.max(BLOCK_BYTES, usage.bytes / usage.entries) : BLOCK_BYTES;
  const room = Math.max(0, limits.maxBytes - usage.bytes);
  return Math.max(limits.evictEvery, Math.floor(room / average / 2));
}

export interface CacheEntryUse {
  name: string;
  bytes: number;
  /** When it was last stored or read (its mtime, epoch ms). */
  usedAt: number;
}

/**
 * The entries to remove so the rest fit in LOW_WATER of the bound: the least recently used first, and
 * none used at or after `protectedSince` (the evicting run's start: what it stored or read stays, even
 * when that leaves the folder over its bound until a later run).
 */
export function evictionVictims(entries: readonly CacheEntryUse[], limits: CacheLimits, protectedSince: number): string[] {
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  if (total <= limits.maxBytes) return [];
  const goal = limits.maxBytes * LOW_WATER;
  const victims: string[] = [];
  for (const entry of [...entries].sort((a, b) => a.usedAt - b.usedAt)) {
    if (total <= goal || entry.usedAt >= protectedSince) break;
    victims.push(entry.name);
    total -= entry.bytes;
  }
  return victims;
}
