// The local request count (src/state/requests.ts): counting, estimating, compact atomic storage.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyId, openRequestLog, readRequestStatus, REQUESTS_FILE } from '../src/state/requests.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-requests-'));
  dir = join(root, 'state', 'rep');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('keyId', () => {
  it('is a short hex hash, never the key', () => {
    const id = keyId('sk_live_secret');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(id).toBe(keyId('sk_live_secret'));
    expect(id).not.toBe(keyId('sk_live_other'));
  });
});

describe('openRequestLog', () => {
  it('counts requests and finds the oldest in a window', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - 50 * MINUTE);
    log.record(NOW - 10 * MINUTE);
    log.record(NOW - 10 * MINUTE + 5);
    log.record(NOW - 2 * HOUR);
    expect(log.countSince(NOW - HOUR)).toBe(3);
    expect(log.oldestSince(NOW - HOUR)).toBe(NOW - 50 * MINUTE);
    expect(log.oldestSince(NOW)).toBeUndefined();
  });

  it('writes nothing until flush, then a 0600 file in a 0700 dir, read back by a new log', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    log.noteRateLimit({ limit: 100, remaining: 42, resetAt: NOW + 600_000, seenAt: NOW });
    expect(() => statSync(dir)).toThrow();
    log.flush();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, REQUESTS_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([REQUESTS_FILE]); // no temp file left behind
    const again = openRequestLog(dir, 'abc', () => NOW);
    expect(again.countSince(NOW - HOUR)).toBe(1);
    expect(again.lastRateLimit()).toEqual({ limit: 100, remaining: 42, resetAt: NOW + 600_000, seenAt: NOW });
    expect(openRequestLog(dir, 'def', () => NOW).countSince(0)).toBe(0);
  });

  it('stays small for 10,000 requests and drops what is older than an hour', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - 2 * HOUR);
    for (let i = 0; i < 10_000; i++) log.record(NOW - 50 * MINUTE + i * 300);
    log.flush();
    const text = readFileSync(join(dir, REQUESTS_FILE), 'utf8');
    expect(text.length).toBeLessThan(2000);
    expect(openRequestLog(dir, 'abc', () => NOW).countSince(0)).toBe(10_000);
  });

  it('merges with what another process wrote meanwhile', () => {
    const first = openRequestLog(dir, 'abc', () => NOW);
    const second = openRequestLog(dir, 'abc', () => NOW);
    first.record(NOW);
    second.record(NOW);
    second.record(NOW);
    first.flush();
    second.flush();
    first.flush(); // nothing pending: no double count
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(3);
  });

  it('ignores and replaces a corrupt file', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, REQUESTS_FILE), '{"version":1,"keys":{"abc":{"minutes":{"x":"y"}}');
    const log = openRequestLog(dir, 'abc', () => NOW);
    expect(log.countSince(0)).toBe(0);
    log.record(NOW);
    log.flush();
    expect(JSON.parse(readFileSync(join(dir, REQUESTS_FILE), 'utf8'))).toMatchObject({ version: 1, keys: { abc: { minutes: { [String(NOW / MINUTE)]: 1 } } } });
  });

  it('never throws from flush when the directory cannot be written', () => {
    writeFileSync(join(root, 'state'), 'a file where the directory should be');
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    expect(() => log.flush()).not.toThrow();
  });
});

describe('readRequestStatus', () => {
  it('gives zero and no rate limit when nothing is stored', () => {
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 0 });
  });
});
