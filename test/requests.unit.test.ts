// The rate-limit facts and request counts `rep status` and the reset estimate read back
// (src/state/requests.ts): which facts win, how long they are kept, and which records are believed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MERGE_AT, openRequestLog, readRequestStatus, REQUESTS_DIR, requestsDir } from '../src/state/requests.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-requests-unit-'));
  dir = join(root, 'state');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Runs that each note one rate-limit snapshot, then one more run at `at` that merges them all. */
function mergeAfter(seenAts: number[], at: number): void {
  for (const seenAt of seenAts) {
    const log = openRequestLog(dir, 'abc', () => at);
    log.noteRateLimit({ remaining: 1, seenAt });
    log.flush();
  }
  for (let run = seenAts.length; run < MERGE_AT; run++) {
    const log = openRequestLog(dir, 'abc', () => at);
    log.record(at);
    log.flush();
  }
}

describe('the last rate-limit facts', () => {
  it('the newest snapshot wins, whichever process wrote it last', () => {
    const newer = openRequestLog(dir, 'abc', () => NOW);
    const older = openRequestLog(dir, 'abc', () => NOW);
    newer.noteRateLimit({ remaining: 5, seenAt: NOW });
    older.noteRateLimit({ remaining: 9, seenAt: NOW - MINUTE });
    newer.flush();
    older.flush();
    expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toEqual({ remaining: 5, seenAt: NOW });
    expect(openRequestLog(dir, 'abc', () => NOW).lastRateLimit()).toEqual({ remaining: 5, seenAt: NOW });
  });

  it('of two seen at the same moment, the one read last wins', () => {
    for (const remaining of [1, 2]) {
      const log = openRequestLog(dir, 'abc', () => NOW);
      log.noteRateLimit({ remaining, seenAt: NOW });
      log.flush();
    }
    expect([1, 2]).toContain(readRequestStatus(dir, 'abc', NOW).rateLimit?.remaining);
  });

  it('are dated now when no time is given, and keep only sound numbers', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.noteRateLimit({ limit: 100, remaining: -1, resetAt: Number.NaN, windowSeconds: 3600 });
    expect(log.lastRateLimit()).toEqual({ limit: 100, windowSeconds: 3600, seenAt: NOW });
    log.noteRateLimit({ limit: 7, seenAt: -5 });
    expect(log.lastRateLimit()).toEqual({ limit: 100, windowSeconds: 3600, seenAt: NOW });
  });

  it('are kept for 24 hours through a merge, not longer', () => {
    mergeAfter([NOW - 24 * HOUR], NOW);
    expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toEqual({ remaining: 1, seenAt: NOW - 24 * HOUR });
    rmSync(dir, { recursive: true });
    mergeAfter([NOW - 24 * HOUR - 1], NOW);
    expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toBeUndefined();
  });

  it('a merge keeps the newest facts of each key apart', () => {
    const other = openRequestLog(dir, 'def', () => NOW);
    other.noteRateLimit({ remaining: 42, seenAt: NOW - HOUR });
    other.flush();
    mergeAfter([NOW - 2 * HOUR, NOW - HOUR], NOW);
    expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toEqual({ remaining: 1, seenAt: NOW - HOUR });
    expect(readRequestStatus(dir, 'def', NOW).rateLimit).toEqual({ remaining: 42, seenAt: NOW - HOUR });
  });
});

describe('the request count', () => {
  it('counts the hour before now, from the start of the oldest minute, never before the window', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - HOUR + 30_000);
    log.record(NOW - 30 * MINUTE + 10_000);
    expect(log.oldestSince(NOW - HOUR)).toBe(NOW - HOUR); // the start of its minute
    expect(log.oldestSince(NOW - HOUR + 10_000)).toBe(NOW - HOUR + 10_000); // never before the window
    expect(log.oldestSince(NOW - 40 * MINUTE)).toBe(NOW - 30 * MINUTE);
    log.flush();
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(2);
    expect(readRequestStatus(dir, 'abc', NOW + MINUTE).lastHour).toBe(1);
  });

  it('flush with nothing new writes nothing', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    expect(log.flush()).toBeUndefined();
    expect(() => readRequestStatus(dir, 'abc', NOW)).not.toThrow();
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 0 });
  });

  it('believes only well-formed records: hex ids and keys, whole positive counts per minute', () => {
    mkdirSync(requestsDir(dir), { recursive: true });
    const minute = String(NOW / MINUTE - 1);
    const lines = [
      { id: 'a1', key: 'abc', minutes: { [minute]: 2 } },
      { id: 'XYZ', key: 'abc', minutes: { [minute]: 100 } },
      { id: 'a2', key: 'not-hex', minutes: { [minute]: 100 } },
      { id: 'a3', key: 'abc', minutes: { [minute]: 1.5, x1: 100, [String(NOW / MINUTE - 2)]: -4 } },
      { id: 'a4', key: 'abc', minutes: { [minute]: 3 }, rateLimit: { remaining: 'many', seenAt: NOW } },
      { id: 'a5', key: 'abc', rateLimit: { limit: 5 } },
      { id: 7, key: 'abc', minutes: { [minute]: 100 } },
    ];
    writeFileSync(join(dir, REQUESTS_DIR, 'x.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 5, rateLimit: { seenAt: NOW } });
  });
});
