// The request records of rep before the ledger's logs (record-store.ts, gone): requests/*.jsonl, each
// line one run's requests per minute and its last rate-limit facts, `.live.jsonl` while the run went on,
// merged under `.merging`. Read, never written, so an upgrade keeps the hour's count and the day's
// facts; removed once a day old (nothing in them counts by then), with that layout's stale leftovers.
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isRecord, parseJson } from '../text.js';
import { readPrivateFile, removeStaleFiles, TEMP_SUFFIX } from './files.js';
import { cleanMinutes, cleanSnapshot, type LegacyRecord } from './ledger-lines.js';

/** A file this big is no file of ours: skipped. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Past this age a record file holds nothing that counts: its minutes are an hour old, its facts a day. */
const LEGACY_TTL_MS = 24 * 60 * 60 * 1000;
const LOCK = '.merging';

/** The records of key `id` that count for `base` (a record without a base counts for every base URL); a run's saves as one. */
export function readLegacyRecords(dir: string, names: readonly string[], id: string, base: string | undefined): LegacyRecord[] {
  const runs = new Map<string, LegacyRecord>();
  for (const name of names) {
    if (!isLegacy(name)) continue;
    // Only a regular file of this user's of a sane size: a FIFO does not block, a link is not followed.
    const file = readPrivateFile(join(dir, name), MAX_FILE_BYTES);
    if (typeof file !== 'object' || !('text' in file)) continue;
    for (const line of file.text.split('\n')) {
      const record = line ? legacyRecord(line, id, base) : undefined;
      if (!record) continue;
      const known = runs.get(record.id);
      runs.set(record.id, known ? latestOf(known, record) : record);
    }
  }
  return [...runs.values()];
}

/**
 * Removes what of the old layout no longer counts: record files a day old, anything under a record
 * file's name that is no file (a FIFO or link: never read), and a merge's lock or temp file a dead
 * process left (STALE_MS). Never throws.
 */
export function removeLegacyLeftovers(dir: string, names: readonly string[], nowMs = Date.now()): void {
  removeStaleFiles(dir, (name) => name === LOCK || name.endsWith(TEMP_SUFFIX), nowMs);
  for (const name of names) {
    if (!isLegacy(name)) continue;
    try {
      const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (stat && !stat.isDirectory() && (!stat.isFile() || nowMs - stat.mtimeMs > LEGACY_TTL_MS)) rmSync(join(dir, name), { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: the next read tries again.
    }
  }
}

function isLegacy(name: string): boolean {
  return name.endsWith('.jsonl') && !name.startsWith('.');
}

/** A well-formed record of the key that counts for base, or undefined. */
function legacyRecord(line: string, id: string, base: string | undefined): LegacyRecord | undefined {
  let data: unknown;
  try {
    data = parseJson(line);
  } catch {
    return undefined; // a torn line: the others still count
  }
  if (!isRecord(data) || typeof data.id !== 'string' || !/^[0-9a-f]{1,64}$/.test(data.id) || data.key !== id || !/^[0-9a-f]{1,64}$/.test(id)) return undefined;
  const recordBase = typeof data.base === 'string' && data.base.length <= 2048 ? data.base : undefined;
  if (base !== undefined && recordBase !== undefined && recordBase !== base) return undefined;
  const rateLimit = isRecord(data.rateLimit) ? cleanSnapshot(data.rateLimit) : undefined;
  return { id: data.id, minutes: isRecord(data.minutes) ? cleanMinutes(data.minutes) : {}, ...(rateLimit ? { rateLimit } : {}) };
}

/** A run's record as saved at two moments (its counts only grow): each minute's larger count, the later facts. */
function latestOf(a: LegacyRecord, b: LegacyRecord): LegacyRecord {
  const minutes = { ...a.minutes };
  for (const [minute, n] of Object.entries(b.minutes)) minutes[minute] = Math.max(minutes[minute] ?? 0, n);
  const rateLimit = !a.rateLimit || (b.rateLimit && b.rateLimit.seenAt >= a.rateLimit.seenAt) ? b.rateLimit : a.rateLimit;
  return { id: a.id, minutes, ...(rateLimit ? { rateLimit } : {}) };
}
