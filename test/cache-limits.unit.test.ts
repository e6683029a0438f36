// The answer cache's bound as pure policy (src/state/cache-limits.ts): sizes, when to measure, what goes.
import { describe, expect, it } from 'vitest';
import {
  BLOCK_BYTES,
  CACHE_LIMITS,
  type CacheEntryUse,
  DEFAULT_CACHE_MAX_BYTES,
  diskBytes,
  evictionVictims,
  LOW_WATER,
  parseByteSize,
  putsBeforeCheck,
} from '../src/state/cache-limits.js';

describe('parseByteSize', () => {
  it.each([
    ['512', 512],
    ['512b', 512],
    ['64k', 64 * 1024],
    ['64KB', 64 * 1024],
    ['64 KiB', 64 * 1024],
    ['512MB', 512 * 1024 ** 2],
    ['512m', 512 * 1024 ** 2],
    ['512 mib', 512 * 1024 ** 2],
    ['1.5GB', 1.5 * 1024 ** 3],
    ['2g', 2 * 1024 ** 3],
    ['2 GiB', 2 * 1024 ** 3],
    [' 7 ', 7],
    ['0.5k', 512],
  ])('%j is %d bytes', (text, bytes) => expect(parseByteSize(text)).toBe(bytes));

  it.each(['', 'lots', '0', '0MB', '-5MB', '5TB', '5 M B', 'MB', '1e3', '0.1', '99999999999999999999', '5MBs', 'x5MB'])('%j is no size', (text) =>
    expect(parseByteSize(text)).toBeUndefined(),
  );

  it('the default is 512 MiB, checked every 64 puts while unmeasured', () => {
    expect(DEFAULT_CACHE_MAX_BYTES).toBe(512 * 1024 * 1024);
    expect(CACHE_LIMITS).toEqual({ maxBytes: DEFAULT_CACHE_MAX_BYTES, evictEvery: 64 });
  });
});

describe('diskBytes', () => {
  it('its blocks, never less than its size nor a block', () => {
    expect(diskBytes(100, 8)).toBe(4096);
    expect(diskBytes(100, 16)).toBe(8192);
    expect(diskBytes(10_000, 8)).toBe(10_000);
    expect(diskBytes(100, undefined)).toBe(BLOCK_BYTES);
    expect(diskBytes(5000, 0)).toBe(5000);
    expect(diskBytes(0, 0)).toBe(BLOCK_BYTES);
  });
});

describe('putsBeforeCheck', () => {
  const limits = { maxBytes: 1000 * BLOCK_BYTES, evictEvery: 10 };
  it('unmeasured: evictEvery', () => expect(putsBeforeCheck(undefined, limits)).toBe(10));
  it('half the room left, in average entries', () => {
    expect(putsBeforeCheck({ entries: 0, bytes: 0 }, limits)).toBe(500);
    expect(putsBeforeCheck({ entries: 100, bytes: 100 * BLOCK_BYTES }, limits)).toBe(450);
    expect(putsBeforeCheck({ entries: 100, bytes: 200 * BLOCK_BYTES }, limits)).toBe(200); // entries of two blocks each
    expect(putsBeforeCheck({ entries: 10, bytes: 10 }, limits)).toBe(499); // at least a block an entry
  });
  it('never fewer than evictEvery, also when full or past the bound', () => {
    expect(putsBeforeCheck({ entries: 990, bytes: 990 * BLOCK_BYTES }, limits)).toBe(10);
    expect(putsBeforeCheck({ entries: 2000, bytes: 2000 * BLOCK_BYTES }, limits)).toBe(10);
    expect(putsBeforeCheck({ entries: 960, bytes: 960 * BLOCK_BYTES }, limits)).toBe(20);
  });
});

describe('the default bound', () => {
  it('holds a batch of 100,000 answers of a disk block each with none evicted, even unprotected (issue 31)', () => {
    const entries = Array.from({ length: 100_000 }, (_, i) => ({ name: `e${i}`, bytes: BLOCK_BYTES, usedAt: i }));
    // protectedSince 0: nothing is spared for being this run's, and still nothing goes.
    expect(evictionVictims(entries, CACHE_LIMITS, 0)).toEqual([]);
    expect(100_000 * BLOCK_BYTES).toBeLessThanOrEqual(CACHE_LIMITS.maxBytes);
  });
});

describe('evictionVictims', () => {
  const entry = (name: string, usedAt: number, bytes = BLOCK_BYTES): CacheEntryUse => ({ name, bytes, usedAt });
  const limits = { maxBytes: 10 * BLOCK_BYTES, evictEvery: 1 };

  it('within the bound, none; at it exactly, none', () => {
    expect(evictionVictims([], limits, 1000)).toEqual([]);
    expect(
      evictionVictims(
        Array.from({ length: 10 }, (_, i) => entry(`e${i}`, i)),
        limits,
        1000,
      ),
    ).toEqual([]);
  });

  it('past it, the least recently used first, down to LOW_WATER of the bound', () => {
    expect(LOW_WATER).toBe(0.9);
    const entries = Array.from({ length: 12 }, (_, i) => entry(`e${i}`, 100 - i)); // e11 used longest ago
    expect(evictionVictims(entries, limits, 1000)).toEqual(['e11', 'e10', 'e9']);
  });

  it('counts bytes, not entries: one big entry can make room for many', () => {
    const entries = [entry('big', 1, 8 * BLOCK_BYTES), ...Array.from({ length: 5 }, (_, i) => entry(`e${i}`, 10 + i))];
    expect(evictionVictims(entries, limits, 1000)).toEqual(['big']);
  });

  it('never one used at or after the run began, even when that leaves it over', () => {
    const entries = [entry('old', 1), ...Array.from({ length: 12 }, (_, i) => entry(`run${i}`, 500 + i))];
    expect(evictionVictims(entries, limits, 500)).toEqual(['old']);
    expect(evictionVictims([entry('edge', 500), ...entries.slice(1)], limits, 500)).toEqual([]);
    expect(evictionVictims([entry('before', 499), ...entries.slice(1)], limits, 500)).toEqual(['before']);
  });

  it('does not reorder the caller’s list', () => {
    const entries = [entry('b', 2), entry('a', 1), ...Array.from({ length: 10 }, (_, i) => entry(`e${i}`, 10 + i))];
    evictionVictims(entries, limits, 1000);
    expect(entries.map((e) => e.name).slice(0, 2)).toEqual(['b', 'a']);
  });
});
