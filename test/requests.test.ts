// The local request count (src/state/requests.ts over src/state/append-log.ts): counting, estimating,
// lines that parallel writers cannot lose, one log a key, rewritten and pruned so it stays small.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyId, openRequestLog, readRequestStatus, REQUESTS_DIR, requestsDir, REWRITE_AT_BYTES } from '../src/state/requests.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let root: string;
let dir: string;
/** The files in the store. */
const recordFiles = () => readdirSync(join(dir, REQUESTS_DIR));
/** Runs enough to have made the earlier rep merge its record files (16) twice. */
const MANY_RUNS = 32;
/** Requests enough to pass REWRITE_AT_BYTES in one run's lines. */
const PAST_REWRITE = Math.ceil(REWRITE_AT_BYTES / 40);

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
    expect(keyId('sk_live_secret')).toBe(id); // asked again after another key
    expect(keyId('')).toMatch(/^[0-9a-f]{16}$/); // no key is a name too
  });
});

describe('openRequestLog', () => {
  it('counts requests and finds the oldest in a window', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - 50 * MINUTE);
    log.record(NOW - 10 * MINUTE);
    log.record(NOW - 10 * MINUTE + 5);
    log.record(NOW - 2 * HOUR);
    expect(log.oldestSince(NOW - HOUR)).toBe(NOW - 50 * MINUTE);
    expect(log.oldestSince(NOW)).toBeUndefined();
    log.flush();
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(3);
  });

  it('saves each request as it is sent (a kill loses none), and the facts at the turn’s end, in a 0600 file in a 0700 dir, read back by a new log', async () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    expect(() => statSync(dir)).toThrow();
    log.record(NOW);
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 1 });
    log.noteRateLimitInTurn({ limit: 100, remaining: 42, resetAt: NOW + 600_000, seenAt: NOW });
    await new Promise(setImmediate); // the turn's end, no flush
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 1, rateLimit: { limit: 100, remaining: 42, resetAt: NOW + 600_000, seenAt: NOW } });
    expect(log.flush()).toBeUndefined();
    expect(statSync(join(dir, REQUESTS_DIR)).mode & 0o777).toBe(0o700);
    const files = recordFiles();
    expect(files).toHaveLength(1); // no temp file left behind
    expect(statSync(join(dir, REQUESTS_DIR, files[0] as string)).mode & 0o777).toBe(0o600);
    const again = openRequestLog(dir, 'abc', () => NOW);
    expect(again.oldestSince(NOW - HOUR)).toBe(NOW);
    expect(again.lastRateLimit()).toEqual({ limit: 100, remaining: 42, resetAt: NOW + 600_000, seenAt: NOW });
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(1);
    expect(openRequestLog(dir, 'def', () => NOW).oldestSince(0)).toBeUndefined();
    expect(readRequestStatus(dir, 'def', NOW).lastHour).toBe(0);
  });

  it('reads the files only when asked (a request only counts), then adds its own requests and facts to theirs', () => {
    const earlier = openRequestLog(dir, 'abc', () => NOW);
    earlier.record(NOW - 40 * MINUTE);
    earlier.noteRateLimitInTurn({ limit: 100, remaining: 60, seenAt: NOW - 40 * MINUTE });
    earlier.flush();
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - 5 * MINUTE); // a request of this run: nothing read yet
    // Another process writes meanwhile: read when asked, it counts too.
    const other = openRequestLog(dir, 'abc', () => NOW);
    other.record(NOW - 50 * MINUTE);
    other.noteRateLimitInTurn({ limit: 100, remaining: 7, seenAt: NOW - MINUTE });
    other.flush();
    expect(log.oldestSince(NOW - HOUR)).toBe(NOW - 50 * MINUTE);
    expect(log.lastRateLimit()).toMatchObject({ remaining: 7 });
    log.noteRateLimitInTurn({ limit: 100, remaining: 5, seenAt: NOW });
    expect(log.lastRateLimit()).toMatchObject({ remaining: 5 });
    log.flush();
    expect(readRequestStatus(dir, 'abc', NOW)).toMatchObject({ lastHour: 3, rateLimit: { remaining: 5 } });
  });

  it('a rate limit seen before the files are read wins over theirs', () => {
    const other = openRequestLog(dir, 'abc', () => NOW);
    other.noteRateLimitInTurn({ limit: 100, remaining: 50, seenAt: NOW - 30 * MINUTE });
    other.flush();
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    log.noteRateLimitInTurn({ limit: 100, remaining: 4, seenAt: NOW });
    expect(log.lastRateLimit()).toMatchObject({ remaining: 4 });
    expect(log.oldestSince(NOW - HOUR)).toBe(NOW);
    log.flush(); // the turn's line, before the folder goes
  });

  it('stays small for 10,000 requests and drops what is older than an hour', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW - 2 * HOUR);
    for (let i = 0; i < 10_000; i++) log.record(NOW - 50 * MINUTE + i * 300);
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(10_000); // saved as they went
    log.flush();
    const files = recordFiles();
    expect(files).toHaveLength(1);
    expect(readFileSync(join(dir, REQUESTS_DIR, files[0] as string), 'utf8').length).toBeLessThan(70_000); // started again as it grew
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(10_000);
  });

  it('merges with what other processes wrote meanwhile', () => {
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

  it("a run's log is counted while it runs, through other runs' rewrites, and counted once after them", () => {
    const running = openRequestLog(dir, 'abc', () => NOW);
    running.record(NOW);
    for (let run = 0; run < MANY_RUNS; run++) {
      const other = openRequestLog(dir, 'abc', () => NOW);
      other.record(NOW);
      if (run === 0) for (let i = 0; i < PAST_REWRITE; i++) other.record(NOW); // rewrites the log under the running one
      other.flush();
    }
    running.record(NOW);
    expect(recordFiles()).toEqual(['abc.log']);
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(MANY_RUNS + PAST_REWRITE + 2);
    running.flush();
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(MANY_RUNS + PAST_REWRITE + 2);
  });

  it('keeps the files few: one log a key, every count kept', () => {
    for (let run = 0; run < 5 * MANY_RUNS; run++) {
      const log = openRequestLog(dir, 'abc', () => NOW);
      log.record(NOW - (run % 50) * MINUTE);
      log.flush();
      expect(recordFiles().length).toBe(1);
    }
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(5 * MANY_RUNS);
    expect(recordFiles().some((name) => name.startsWith('.'))).toBe(false); // no lock or temp file left
  });

  it('a rewrite drops counts older than an hour, and keeps only the latest rate-limit facts of a key', () => {
    for (let run = 0; run < 15; run++) {
      const log = openRequestLog(dir, 'abc', () => NOW - 2 * HOUR);
      log.record(NOW - 2 * HOUR);
      log.noteRateLimitInTurn({ remaining: run, seenAt: NOW - 2 * HOUR + run });
      log.flush();
    }
    const now = openRequestLog(dir, 'abc', () => NOW);
    for (let i = 0; i < PAST_REWRITE; i++) now.record(NOW); // past the size: rewritten at NOW
    now.flush();
    const files = recordFiles();
    expect(files).toHaveLength(1);
    const lines = readFileSync(join(dir, REQUESTS_DIR, files[0] as string), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeLessThan(PAST_REWRITE / 2); // the requests before the rewrite folded into one line
    expect(lines.filter((line) => typeof line.at === 'number' && line.at < NOW - HOUR)).toEqual([]); // the old ones gone
    expect(lines.filter((line) => 'rateLimit' in line)).toHaveLength(1);
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: PAST_REWRITE, rateLimit: { remaining: 14, seenAt: NOW - 2 * HOUR + 14 } });
  });

  it('counts a line once when an appender that raced a rewrite wrote it twice', () => {
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    log.record(NOW);
    log.flush();
    const [file] = recordFiles();
    const text = readFileSync(join(dir, REQUESTS_DIR, file as string), 'utf8');
    writeFileSync(join(dir, REQUESTS_DIR, file as string), text + text, { mode: 0o600 });
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(2);
  });

  it('skips a broken line and counts the rest', () => {
    mkdirSync(join(dir, REQUESTS_DIR), { recursive: true });
    const good = JSON.stringify({ id: 'aa11', key: 'abc', minutes: { [String(NOW / MINUTE)]: 2 } });
    writeFileSync(join(dir, REQUESTS_DIR, 'a.jsonl'), `{"id":"bb22","key":"abc","minu\n${good}\n{"id":"cc","key":"abc","minutes":{"x":"y"}}\n`);
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(2);
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    log.flush();
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(3);
  });

  it('never reads what is not a regular file (a FIFO would hang) among the earlier record files, and clears it', () => {
    mkdirSync(join(dir, REQUESTS_DIR), { recursive: true });
    expect(spawnSync('mkfifo', [join(dir, REQUESTS_DIR, 'fifo.jsonl')]).status).toBe(0);
    symlinkSync('/dev/zero', join(dir, REQUESTS_DIR, 'zero.jsonl'));
    for (let run = 0; run < MANY_RUNS; run++) {
      const log = openRequestLog(dir, 'abc', () => NOW);
      log.record(NOW);
      log.flush();
    }
    expect(readRequestStatus(dir, 'abc', NOW).lastHour).toBe(MANY_RUNS);
    expect(recordFiles().filter((name) => ['fifo.jsonl', 'zero.jsonl'].includes(name))).toEqual([]);
  });

  it('never throws from flush when the directory cannot be written, and says why', () => {
    writeFileSync(join(root, 'state'), 'a file where the directory should be');
    const log = openRequestLog(dir, 'abc', () => NOW);
    log.record(NOW);
    expect(log.flush()).toMatchObject({ code: 'ENOTDIR' });
  });
});

describe('readRequestStatus', () => {
  it('gives zero and no rate limit when nothing is stored', () => {
    expect(readRequestStatus(dir, 'abc', NOW)).toEqual({ lastHour: 0 });
  });
});

// The rate-limit facts and request counts `rep status` and the reset estimate read back
// (src/state/requests.ts): which facts win, how long they are kept, and which records are believed.
describe('the rate-limit facts and counts read back', () => {
  beforeEach(() => {
    dir = join(root, 'state');
  });

  /** Runs that each note one rate-limit snapshot, then runs at `at` that count (the earlier rep merged them all). */
  function mergeAfter(seenAts: number[], at: number): void {
    for (const seenAt of seenAts) {
      const log = openRequestLog(dir, 'abc', () => at);
      log.noteRateLimitInTurn({ remaining: 1, seenAt });
      log.flush();
    }
    for (let run = seenAts.length; run < MANY_RUNS; run++) {
      const log = openRequestLog(dir, 'abc', () => at);
      log.record(at);
      log.flush();
    }
  }

  describe('the last rate-limit facts', () => {
    it('the newest snapshot wins, whichever process wrote it last', () => {
      const newer = openRequestLog(dir, 'abc', () => NOW);
      const older = openRequestLog(dir, 'abc', () => NOW);
      newer.noteRateLimitInTurn({ remaining: 5, seenAt: NOW });
      older.noteRateLimitInTurn({ remaining: 9, seenAt: NOW - MINUTE });
      newer.flush();
      older.flush();
      expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toEqual({ remaining: 5, seenAt: NOW });
      expect(openRequestLog(dir, 'abc', () => NOW).lastRateLimit()).toEqual({ remaining: 5, seenAt: NOW });
    });

    it('of two seen at the same moment, the one read last wins', () => {
      for (const remaining of [1, 2]) {
        const log = openRequestLog(dir, 'abc', () => NOW);
        log.noteRateLimitInTurn({ remaining, seenAt: NOW });
        log.flush();
      }
      expect([1, 2]).toContain(readRequestStatus(dir, 'abc', NOW).rateLimit?.remaining);
    });

    it('are dated now when no time is given, and keep only sound numbers', () => {
      const log = openRequestLog(dir, 'abc', () => NOW);
      log.noteRateLimitInTurn({ limit: 100, remaining: -1, resetAt: Number.NaN, windowSeconds: 3600 });
      expect(log.lastRateLimit()).toEqual({ limit: 100, windowSeconds: 3600, seenAt: NOW });
      log.noteRateLimitInTurn({ limit: 7, seenAt: -5 });
      expect(log.lastRateLimit()).toEqual({ limit: 100, windowSeconds: 3600, seenAt: NOW });
      log.flush(); // the turn's line, before the folder goes
    });

    it('are kept for 24 hours, not longer', () => {
      mergeAfter([NOW - 24 * HOUR], NOW);
      expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toEqual({ remaining: 1, seenAt: NOW - 24 * HOUR });
      rmSync(dir, { recursive: true });
      mergeAfter([NOW - 24 * HOUR - 1], NOW);
      expect(readRequestStatus(dir, 'abc', NOW).rateLimit).toBeUndefined();
    });

    it('the newest facts of each key are kept apart', () => {
      const other = openRequestLog(dir, 'def', () => NOW);
      other.noteRateLimitInTurn({ remaining: 42, seenAt: NOW - HOUR });
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
});

// The record files of rep before the logs (record-store.ts): an upgrade must keep their hour's count.
describe("an earlier rep's record files (requests/*.jsonl)", () => {
  const minute = (ms: number) => String(Math.floor(ms / MINUTE));
  const BASE = 'https://api.example.test/api';
  /** Files as that rep left them: a merged file and a live one a run appended its saves to. */
  function plantLegacy(): Record<string, string> {
    mkdirSync(requestsDir(dir), { recursive: true, mode: 0o700 });
    const files = {
      'mf2x1ab-1a2b-0c0d0e0f.jsonl': [
        { id: '00aa00aa00aa00aa', key: 'abc', base: BASE, minutes: { [minute(NOW - 30 * MINUTE)]: 4 } },
        { id: '00bb00bb00bb00bb', key: 'abc', base: 'https://other.example.test/api', minutes: { [minute(NOW - MINUTE)]: 50 } },
        { id: '00cc00cc00cc00cc', key: 'abc', minutes: { [minute(NOW - 2 * HOUR)]: 9, [minute(NOW - 5 * MINUTE)]: 1 } },
        { id: '00dd00dd00dd00dd', key: 'def', base: BASE, minutes: { [minute(NOW)]: 7 } },
      ],
      'mf2x9zz-1a2c-01020304.live.jsonl': [
        { id: '00ee00ee00ee00ee', key: 'abc', base: BASE, minutes: { [minute(NOW - 10 * MINUTE)]: 1 } },
        { id: '00ee00ee00ee00ee', key: 'abc', base: BASE, minutes: { [minute(NOW - 10 * MINUTE)]: 2 } },
        { id: '00ee00ee00ee00ee', key: 'abc', base: BASE, rateLimit: { limit: 100, remaining: 60, seenAt: NOW - 10 * MINUTE } },
      ],
    };
    const texts: Record<string, string> = {};
    for (const [name, lines] of Object.entries(files)) {
      texts[name] = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
      writeFileSync(join(requestsDir(dir), name), texts[name], { mode: 0o600 });
    }
    return texts;
  }

  it('are counted for their hour and facts, never written, and counted once beside the new log', () => {
    const texts = plantLegacy();
    const mtimes = Object.keys(texts).map((name) => statSync(join(requestsDir(dir), name)).mtimeMs);
    // 4 of its base URL, 1 without one (counts for every base URL), the live run's 2 (its saves as one record).
    expect(readRequestStatus(dir, 'abc', NOW, BASE)).toEqual({ lastHour: 7, rateLimit: { limit: 100, remaining: 60, seenAt: NOW - 10 * MINUTE } });
    const log = openRequestLog(dir, 'abc', () => NOW, BASE);
    expect(log.countSince(NOW - HOUR)).toEqual({ requests: 7, oldestAt: NOW - 30 * MINUTE, contributors: 3 });
    log.record(NOW);
    log.noteRateLimitInTurn({ remaining: 59, seenAt: NOW });
    expect(log.flush()).toBeUndefined();
    expect(readRequestStatus(dir, 'abc', NOW, BASE)).toEqual({ lastHour: 8, rateLimit: { remaining: 59, seenAt: NOW } });
    expect(readRequestStatus(dir, 'abc', NOW + HOUR + MINUTE, BASE).lastHour).toBe(0);
    for (const [i, name] of Object.keys(texts).entries()) {
      expect(readFileSync(join(requestsDir(dir), name), 'utf8')).toBe(texts[name]);
      expect(statSync(join(requestsDir(dir), name)).mtimeMs).toBe(mtimes[i]);
    }
    expect(recordFiles().filter((name) => name.endsWith('.log'))).toEqual([expect.stringMatching(/^abc-[0-9a-f]{16}\.log$/)]);
  });

  it('go once a day old, with a merge lock and temp file a dead rep left an hour ago', () => {
    const texts = plantLegacy();
    writeFileSync(join(requestsDir(dir), '.merging'), '', { mode: 0o600 });
    writeFileSync(join(requestsDir(dir), '.x.jsonl.1a-2b.tmp'), '{"id":', { mode: 0o600 });
    const [older, newer] = Object.keys(texts) as [string, string];
    const ago = (ms: number) => (Date.now() - ms) / 1000;
    utimesSync(join(requestsDir(dir), older), ago(25 * HOUR), ago(25 * HOUR));
    utimesSync(join(requestsDir(dir), '.merging'), ago(2 * HOUR), ago(2 * HOUR));
    utimesSync(join(requestsDir(dir), '.x.jsonl.1a-2b.tmp'), ago(2 * HOUR), ago(2 * HOUR));
    readRequestStatus(dir, 'abc', NOW, BASE);
    expect(recordFiles()).toEqual([newer]);
  });
});
