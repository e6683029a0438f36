// The request ledger's edges (src/state/requests.ts): where its logs are and what they are named, the
// window's bounds to the millisecond, which logs count for which base URL, a folder it must not trust,
// and what is refused rather than counted as nothing. The module is loaded afresh for each test: its
// names and sizes are constants made as it loads.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
    // The oldest counted request's minute starts the count: a run's own request 10 s into a minute.
    log.record(NOW - 30 * 60_000 + 10_000);
    expect(log.countSince(NOW - 40 * 60_000)).toEqual({ requests: 2, oldestAt: NOW - 30 * 60_000, contributors: 1 });
    log.flush();
    // Read back by another process's log and by `rep status`'s reader: the same three.
    expect(openRequestLog(stateDir, ID, () => NOW, BASE).countSince(since).requests).toBe(3);
    expect(readRequestCount(stateDir, ID, NOW, BASE, since)).toMatchObject({ requests: 3, contributors: 1 });
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
    // A file that only looks like a log of the key is none of its logs, though its lines would count.
    const lookAlikes = [`${ID}-0000.log`, `${ID}.log.bak`, `${ID}0-0123456789abcdef.log`, `${ID}-0123456789abcdef.log.log`, `${ID}.old.log`, `${ID}.log.1.log`];
    for (const [n, name] of lookAlikes.entries()) writeFileSync(join(stateDir, 'requests', name), `{"id":"ee${n}-1","at":${NOW}}\n`, { mode: 0o600 });
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

describe('a run’s log, open and closed', () => {
  /** How many of this process's descriptors are open on `path` (Linux's /proc). */
  const openOn = (path: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path;
      } catch {
        return false; // closed meanwhile (readdir's own)
      }
    }).length;

  it('a turn holding a request at a time that is no number writes the sound one alone, and counts it once', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    await Promise.all([log.recordInTurn(Number.NaN), log.recordInTurn(NOW)]);
    const [name] = readdirSync(join(stateDir, 'requests'));
    const lines = readFileSync(join(stateDir, 'requests', name!), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{16}-1$/), at: NOW }]);
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toStrictEqual({ lastHour: 1 });
    expect(log.flush()).toBeUndefined();
  });

  it.skipIf(!existsSync('/proc/self/fd'))('stays open once for the run however many requests it sends, and flush closes it', async () => {
    const { openRequestLog } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    for (let i = 0; i < 50; i++) log.record(NOW);
    await Promise.all([log.recordInTurn(NOW), log.recordInTurn(NOW)]);
    const [name] = readdirSync(join(stateDir, 'requests'));
    const path = join(stateDir, 'requests', name!);
    expect(openOn(path)).toBe(1);
    expect(log.flush()).toBeUndefined();
    expect(openOn(path)).toBe(0);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(52);
  });

  it('a close that fails (a deferred write error, as NFS reports one) is told by flush, which never throws', async () => {
    let failClose = false;
    vi.doMock('node:fs', async (importOriginal) => {
      const fs = await importOriginal<typeof import('node:fs')>();
      const closeSync = (fd: number) => {
        fs.closeSync(fd);
        if (failClose) throw Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' });
      };
      return { ...fs, default: { ...fs, closeSync }, closeSync };
    });
    try {
      const { openRequestLog } = await ledger();
      const log = openRequestLog(stateDir, ID, () => NOW, BASE);
      log.record(NOW);
      failClose = true;
      expect(log.flush()).toMatchObject({ code: 'EIO' });
      failClose = false;
      expect(log.flush()).toMatchObject({ code: 'EIO' }); // said again at a second flush, not lost
    } finally {
      vi.doUnmock('node:fs');
      vi.resetModules();
    }
  });

  it('a turn whose write fails never rejects: each request goes on, and flush says why', async () => {
    const { openRequestLog } = await ledger();
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, 'requests'), 'not a folder');
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.noteRateLimitInTurn({ limit: 100, remaining: 3 });
    await expect(Promise.all([log.recordInTurn(NOW), log.recordInTurn(NOW)])).resolves.toEqual([undefined, undefined]);
    expect(String(log.flush())).toMatch(/EEXIST|ENOTDIR|not a directory|file already exists/);
    expect(log.lastRateLimit()).toEqual({ limit: 100, remaining: 3, seenAt: NOW });
  });
});

describe('a rewrite killed or under way (its old file linked aside in requests/pruning/)', () => {
  /** A rewrite of the log at path as the ledger's own, with `step` called at each of its steps. */
  async function rewriteLedger(path: string, step: (at: string) => void) {
    const { linesMissing, rewriteLog } = await import('../src/state/append-log.js');
    const { LedgerLines } = await import('../src/state/ledger-lines.js');
    return rewriteLog(path, {
      asideDir: join(stateDir, 'requests', 'pruning'),
      tag: String(NOW),
      maxBytes: 1 << 20,
      rewrite: (text) => LedgerLines.compact(text, NOW),
      recover: linesMissing,
      step,
    });
  }

  /** A rewrite of the log at path, as the ledger's own, killed once it renamed the folded log into place; `meanwhile` appends to the old file first. */
  async function killedRewrite(path: string, meanwhile: () => void): Promise<void> {
    await expect(
      rewriteLedger(path, (at) => {
        if (at === 'linked') meanwhile();
        if (at === 'renamed') throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
  }

  it('keeps a line another run was writing when the rewrite read the log: its first part stays for the rest to end', async () => {
    const { openRequestLog, readRequestCount, REWRITE_AT_BYTES } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    for (let i = 0; i < Math.ceil(REWRITE_AT_BYTES / 80); i++) log.record(NOW);
    log.flush();
    const [name] = readdirSync(join(stateDir, 'requests')).filter((file) => file.endsWith('.log'));
    const path = join(stateDir, 'requests', name!);
    const before = readRequestCount(stateDir, ID, NOW, BASE, NOW - HOUR).requests;
    // Another run's request line, as a read may see it: its first part, then the rest after the read.
    const line = `{"id":"ee0123456789abcd-1","at":${NOW}}\n`;
    writeFileSync(path, line.slice(0, 20), { flag: 'a' });
    const outcome = await rewriteLedger(path, (at) => {
      if (at === 'linked') writeFileSync(path, line.slice(20), { flag: 'a' });
    });
    expect(outcome).toBe('rewritten');
    expect(readFileSync(path, 'utf8').endsWith(line)).toBe(true);
    expect(readRequestCount(stateDir, ID, NOW, BASE, NOW - HOUR).requests).toBe(before + 1);
  });

  it('is merged back by the next reader, for a log with a base URL and one without; an aside of no ledger log is left alone', async () => {
    const { openRequestLog, readRequestCount, readRequestStatus } = await ledger();
    const dir = join(stateDir, 'requests');
    for (const base of [BASE, undefined]) {
      const log = openRequestLog(stateDir, ID, () => NOW, base);
      log.record(NOW);
      log.record(NOW);
      log.flush();
    }
    const logs = readdirSync(dir).sort();
    expect(logs).toHaveLength(2);
    // Another run's request goes to each old file after the rewrite read it: only the aside holds it.
    for (const name of logs) {
      await killedRewrite(join(dir, name), () => {
        const late = openRequestLog(stateDir, ID, () => NOW, name.includes('-') ? BASE : undefined);
        late.record(NOW);
        late.flush();
      });
    }
    const foreign = ['zz-0123456789abcdef.7.ab.log', 'abc-notes.7.ab.log', '0123abcd.7.ab.tmp'];
    for (const name of foreign) writeFileSync(join(dir, 'pruning', name), `{"id":"dd-1","at":${NOW}}\n`, { mode: 0o600 });
    expect(readdirSync(join(dir, 'pruning'))).toHaveLength(2 + foreign.length);
    // The log with a base URL counts its own and the one without: 3 + 3.
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toStrictEqual({ lastHour: 6 });
    expect(readdirSync(join(dir, 'pruning')).sort()).toEqual([...foreign].sort());
    expect(readdirSync(dir).sort()).toEqual([...logs, 'pruning'].sort());
    for (const name of logs) expect(readFileSync(join(dir, name), 'utf8').match(/"at":/g)).toHaveLength(3); // the late line is back in its log
    expect(readRequestCount(stateDir, ID, NOW, undefined, NOW - HOUR).requests).toBe(6);
  });

  it('one under way (its lock held by a live process) is left to it, and its aside counted', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    const dir = join(stateDir, 'requests');
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.record(NOW);
    log.flush();
    const [name] = readdirSync(dir);
    const stem = name!.slice(0, -'.log'.length);
    mkdirSync(join(dir, 'pruning'), { mode: 0o700 });
    writeFileSync(join(dir, 'pruning', `${stem}.lock`), `${process.pid}\n`, { mode: 0o600 });
    const aside = `${stem}.${NOW}.0a1b2c3d.log`;
    writeFileSync(join(dir, 'pruning', aside), `${readFileSync(join(dir, name!), 'utf8')}{"id":"dd-1","at":${NOW}}\n`, { mode: 0o600 });
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toStrictEqual({ lastHour: 2 });
    expect(readdirSync(join(dir, 'pruning')).sort()).toEqual([aside, `${stem}.lock`].sort());
    expect(readFileSync(join(dir, name!), 'utf8').match(/"at":/g)).toHaveLength(1);
  });
});

describe('an earlier rep’s leftovers', () => {
  it('a merge lock and temp file a dead rep left are cleared though no record file is left', async () => {
    const { openRequestLog, readRequestStatus } = await ledger();
    const log = openRequestLog(stateDir, ID, () => NOW, BASE);
    log.record(NOW);
    log.flush();
    const dir = join(stateDir, 'requests');
    const hoursAgo = (Date.now() - 2 * HOUR) / 1000;
    for (const name of ['.merging', '.x.jsonl.1a-2b.tmp']) {
      writeFileSync(join(dir, name), '', { mode: 0o600 });
      utimesSync(join(dir, name), hoursAgo, hoursAgo);
    }
    expect(readRequestStatus(stateDir, ID, NOW, BASE)).toStrictEqual({ lastHour: 1 });
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});
