// What the local-history test files share: points on a fixed clock and temp folders removed after
// each test (the files are split by concern so their slow tests run on different workers).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { HistoryPoint } from '../../src/store/port.js';
import { tmpfsFolder } from './tmpfs.js';

export const BASE = 'https://api.example.test/api';
export const T0 = Date.parse('2025-01-01T09:00:00.000Z');
export const DAY = 24 * 60 * 60 * 1000;

export const point = (id: string, query: string, at: number, score: number): HistoryPoint => ({
  id,
  at: new Date(at).toISOString(),
  base_url: BASE,
  query,
  score,
  sources: [],
});

/** A fresh temp folder per call, all removed after each test of the file that calls this. */
export function useTempDirs(prefix = 'rep-history-dir-'): (base?: string) => string {
  const roots: string[] = [];
  afterEach(() => {
    for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (base = tmpdir()) => {
    const dir = mkdtempSync(join(base, prefix));
    roots.push(dir);
    return dir;
  };
}

/**
 * A folder in memory (tmpfs) where there is one, else the temp folder: a hole of a sparse file there
 * reads as the shared zero page, where a disk's file system fills 4 KB of page cache for each
 * (reading a 2 GB hole took 4.4 s of CPU on ext4, 0.1 s on tmpfs). The reader's work is the same.
 */
export function memoryTempBase(): string {
  return tmpfsFolder() ?? tmpdir();
}
