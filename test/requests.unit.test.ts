// The request ledger's edges (src/state/requests.ts): where its logs are and what they are named, the
// window's bounds to the millisecond, which logs count for which base URL, a folder it must not trust,
// and what is refused rather than counted as nothing. The module is loaded afresh for each test: its
// names and sizes are constants made as it loads.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const HOUR = 60 * 60 * 1000;
const ID = '0123456789abcdef';
const BASE = 'https://api.example.com/api';
let stateDir: string;

async function ledger(): Promise<typeof import('../src/state/requests.js')> {
  vi.resetModules();
  return import('../src/state/requests.js');
}

beforeEach(() => {
  stateDir = join(mkdtempSync(join(tmpdir(), 'rep-ledger-unit-')), 'state');
});
afterEach(() => rmSync(join(stateDir, '..'), { recursive: true, force: true }));

describe('the ledger’s logs', () => {
  it('are requests/<key hash>-<16 hex of the base URL>.log, or <key hash>.log without a base URL, in a 0700 folder', async () => {
    const { openRequestLog } = await ledger();
    const withBase = openRequestLog(stateDir, ID, () => NOW, BASE);
    withBase.record(NOW);
    const without = openRequestLog(stateDir, ID, () => NOW);
    without.record(NOW);
    expect([withBase.flush(), without.flush()]).toEqual([undefined, undefined]);
    expect(readdirSync(join(stateDir, 'requests')).sort()).toEqual([expect.stringMatching(new RegExp(`^${ID}-[0-9a-f]{16}\\.log$`)), `${ID}.log`]);
  });

  it('a log stays under the rewrite size plus a line, however many requests a run sends', async () => {
    const { openRequestLog, REWRITE_AT_BYTES } = await ledger();
    expect(REWRITE_AT_BYTES).toBe(64 * 1024);
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    for (let i = 0; i < 5000; i++) log.record(NOW - 1000 + (i % 1000));
    log.flush();
    const [name] = readdirSync(join(stateDir, 'requests'));
    expect(statSync(join(stateDir, 'requests', name!)).size).toBeLessThanOrEqual(REWRITE_AT_BYTES + 64);
    expect(openRequestLog(stateDir, ID, () => NOW, BASE).countSince(NOW - HOUR).requests).toBe(5000);
  });
});

describe('the window', () => {
  it('counts a request sent at its very start, not one a millisecond before, and skips a time that is no number', async () => {
    const { openRequestLog, readRequestCount } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    const since = NOW - HOUR;
    log.record(since - 1);
    log.record(since);
    log.record(Number.NaN);
    log.record(NOW);
    expect(log.countSince(since)).toMatchObject({ requests: 2, contributors: 1 });
    log.flush();
    // Read back by another process's log and by `rep status`'s reader: the same two.
    expect(openRequestLog(stateDir, ID, () => NOW, BASE).countSince(since).requests).toBe(2);
    expect(readRequestCount(stateDir, ID, NOW, BASE, since)).toMatchObject({ requests: 2, contributors: 1 });
  });

  it('a run’s requests folded into per-minute counts stop counting once their last minute is out of the window', async () => {
    const { openRequestLog, REWRITE_AT_BYTES } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    const minute = NOW - 30 * 60 * 1000;
    for (let i = 0; i < Math.ceil(REWRITE_AT_BYTES / 30); i++) log.record(minute + (i % 60_000));
    log.flush();
    expect(openRequestLog(stateDir, ID, () => NOW, BASE).countSince(minute).requests).toBe(Math.ceil(REWRITE_AT_BYTES / 30));
    expect(openRequestLog(stateDir, ID, () => NOW, BASE).countSince(minute + 60_000).requests).toBe(0);
  });
});

describe('which logs count', () => {
  it('for a base URL: its own log and the one without a base URL; for none: every log of the key, no other key’s', async () => {
    const { openRequestLog, readRequestCount } = await ledger();
    const record = (id: string, base: string | undefined, times: number) => {
      const log = openRequestLog(stateDir, id, () => NOW, base);
      for (let i = 0; i < times; i++) log.record(NOW);
      log.flush();
    };
    record(ID, BASE, 1);
    record(ID, 'https://other.example.com/api', 2);
    record(ID, undefined, 4);
    record('fedcba9876543210', BASE, 8);
    // A file that only looks like a log of the key is none of its logs.
    writeFileSync(join(stateDir, 'requests', `${ID}-0000.log`), `{"id":"x-1","at":${NOW}}\n`, { mode: 0o600 });
    writeFileSync(join(stateDir, 'requests', `${ID}.log.bak`), `{"id":"y-1","at":${NOW}}\n`, { mode: 0o600 });
    const since = NOW - HOUR;
    expect(readRequestCount(stateDir, ID, NOW, BASE, since).requests).toBe(1 + 4);
    expect(readRequestCount(stateDir, ID, NOW, undefined, since).requests).toBe(1 + 2 + 4);
    expect(readRequestCount(stateDir, 'fedcba9876543210', NOW, BASE, since).requests).toBe(8);
  });
});

describe('what is refused, not counted as nothing', () => {
  it('no folder yet: zero, and no rate limit in the status', async () => {
    const { readRequestStatus } = await ledger();
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toStrictEqual({ lastHour: 0 });
    expect(existsSync(join(stateDir, 'requests'))).toBe(false);
  });

  it('a requests path that is a file throws on reading, and a run’s saves fail once, saying why', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, 'requests'), 'not a folder');
    expect(() => readRequestStatus(stateDir, ID, NOW, BASE)).toThrow(/ENOTDIR|not a directory/);
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.record(NOW);
    log.record(NOW);
    expect(String(log.flush())).toMatch(/EEXIST|ENOTDIR|not a directory|file already exists/);
  });

  it('a folder others can write to is neither read nor written', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    mkdirSync(join(stateDir, 'requests'), { recursive: true, mode: 0o700 });
    chmodSync(join(stateDir, 'requests'), 0o777);
    expect(() => readRequestStatus(stateDir, ID, NOW, BASE)).toThrow(/^the folder /);
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.record(NOW);
    expect(String(log.flush())).toMatch(/the folder /);
    expect(readdirSync(join(stateDir, 'requests'))).toEqual([]);
  });

  it('a turn’s requests and newest rate-limit facts go in one write at its end; each request’s promise settles once written', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    const file = () => join(stateDir, 'requests', readdirSync(join(stateDir, 'requests'))[0]!);
    let written = 0;
    const requests = [log.recordInTurn(NOW), log.recordInTurn(NOW + 1)].map((done) => done.then(() => (written += 1)));
    log.noteRateLimitInTurn({ limit: 100, remaining: 99 });
    log.noteRateLimitInTurn({ limit: 100, remaining: 98 }); // the turn's newest: the one written
    expect([existsSync(join(stateDir, 'requests')), written]).toEqual([false, 0]);
    await Promise.all(requests);
    expect(readFileSync(file(), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(readRequestStatus(stateDir, ID, NOW + 5, BASE)).toMatchObject({ lastHour: 2, rateLimit: { limit: 100, remaining: 98, seenAt: NOW } });
    // Facts alone, then flush (a run's end, a second signal): written at once.
    log.noteRateLimitInTurn({ limit: 100, remaining: 97 });
    log.flush();
    expect(readRequestStatus(stateDir, ID, NOW + 5, BASE)).toMatchObject({ rateLimit: { remaining: 97 } });
  });

  it('a status with rate-limit facts shows them', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.record(NOW);
    log.noteRateLimitInTurn({ limit: 100, remaining: 99 });
    log.flush();
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toMatchObject({ lastHour: 1, rateLimit: { limit: 100, remaining: 99, seenAt: NOW } });
  });
});
