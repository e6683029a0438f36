// The answer cache's store, in-process: what is a hit and what a miss (age, the server's own limits,
// another key or base URL, the exact query), what is never stored, damaged or foreign entries as
// misses, private files without the key, eviction within the bound, and clear/stats.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldJournal, openAnswerCache, type AnswerKey, type CacheLimits, type FreshAnswer } from '../src/state/answer-cache.js';

const KEY = 'sk-live-RECOGNISABLE-key-0123456789abcdef';
const T0 = Date.UTC(2020, 0, 1, 12, 0, 0); // in the past: a file written now is newer than any dated T0 + i
const MINUTE = 60_000;
const BODY = '{"company": "Acme", "score": 71.5,\n  "sources": [{"name": "web", "score": 70}]}';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-answer-cache-'));
  dir = join(root, 'cache', 'rep');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function question(over: Partial<AnswerKey> = {}): AnswerKey {
  return { baseUrl: 'https://api.example.test/api', endpoint: 'audit', query: 'Acme', apiKey: KEY, ...over };
}

function answer(over: Partial<FreshAnswer> = {}): FreshAnswer {
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, bodyText: BODY, receivedAt: T0, ...over };
}

/** The entry files in the cache dir (not rep's counter). */
function entryFiles(): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.answer')) : [];
}

/** Stores one answer and returns the path of its file. */
async function storedEntry(key = question(), fresh = answer()): Promise<string> {
  const before = new Set(entryFiles());
  expect(await openAnswerCache(dir).put(key, fresh)).toEqual({ stored: true });
  await foldJournal(dir); // the entry files' own rules: answers reach them from the journal
  const added = entryFiles().filter((name) => !before.has(name));
  expect(added).toHaveLength(1);
  return join(dir, added[0] as string);
}

const hit = (key = question(), now = T0 + MINUTE, maxAgeMs = 15 * MINUTE) => openAnswerCache(dir).get(key, { maxAgeMs, now });

describe('hits and misses', () => {
  it('gives the body exactly as sent while younger than the max age, then misses', async () => {
    await storedEntry();
    expect(hit()).toEqual({ bodyText: BODY, status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, storedAt: T0, ageMs: MINUTE });
    expect(hit(question(), T0 + 15 * MINUTE - 1)?.ageMs).toBe(15 * MINUTE - 1);
    expect(hit(question(), T0 + 15 * MINUTE)).toBeUndefined();
    expect(hit(question(), T0 + 60 * MINUTE, 61 * MINUTE)?.bodyText).toBe(BODY);
  });

  it('an answer stored just after the caller read the clock is a hit of age 0; one stored far "later" (clock turned back) misses', async () => {
    await storedEntry();
    expect(hit(question(), T0 - 30_000)?.ageMs).toBe(0);
    expect(hit(question(), T0 - 2 * MINUTE)).toBeUndefined();
  });

  it('max age 0 always misses, and a missing cache directory is a miss', async () => {
    expect(hit()).toBeUndefined();
    await storedEntry();
    expect(hit(question(), T0, 0)).toBeUndefined();
    expect(hit(question(), T0 + 1, 0)).toBeUndefined();
  });

  it('another key, no key, another base URL or another endpoint misses; the same API spelt otherwise hits', async () => {
    await storedEntry();
    expect(hit(question({ apiKey: `${KEY}x` }))).toBeUndefined();
    expect(hit(question({ apiKey: undefined }))).toBeUndefined();
    expect(hit(question({ baseUrl: 'https://api.example.test/v2/api' }))).toBeUndefined();
    expect(hit(question({ baseUrl: 'https://other.example.test/api' }))).toBeUndefined();
    expect(hit(question({ baseUrl: 'http://api.example.test/api' }))).toBeUndefined();
    expect(hit(question({ endpoint: 'search' }))).toBeUndefined();
    for (const same of ['https://api.example.test/api/', 'https://user:pw@API.example.test:443/api//', new URL('https://api.example.test/api#x')]) {
      expect(hit(question({ baseUrl: same }))?.bodyText).toBe(BODY);
    }
    // No key is a key of its own: an answer fetched without one is found without one.
    await storedEntry(question({ apiKey: undefined }), answer({ bodyText: '{"anonymous":true}' }));
    expect(hit(question({ apiKey: undefined }))?.bodyText).toBe('{"anonymous":true}');
    expect(hit()?.bodyText).toBe(BODY);
  });

  it('the query is exact: case and spacing make another question', async () => {
    await storedEntry(question({ query: 'Acme Corp' }));
    expect(hit(question({ query: 'Acme Corp' }))?.bodyText).toBe(BODY);
    for (const other of ['acme corp', 'ACME CORP', 'Acme  Corp', ' Acme Corp', 'Acme Corp ', 'Acme\tCorp']) {
      expect(hit(question({ query: other }))).toBeUndefined();
    }
  });
});

describe("the server's word", () => {
  it.each([
    ['no-store', { 'cache-control': 'no-store' }],
    ['no-store among others', { 'cache-control': 'max-age=600, No-Store' }],
    ['no-cache', { 'cache-control': 'no-cache' }],
    ['no-cache on a field', { 'cache-control': 'no-cache="set-cookie", max-age=600' }],
    ['Pragma: no-cache without Cache-Control', { pragma: 'no-cache' }],
    ['max-age=0', { 'cache-control': 'max-age=0' }],
    ['a malformed max-age', { 'cache-control': 'max-age=soon' }],
    ['an invalid Expires', { expires: '0' }],
    ['an Expires in the past', { date: new Date(T0).toUTCString(), expires: new Date(T0 - MINUTE).toUTCString() }],
    ['an Age past max-age', { 'cache-control': 'max-age=60', age: '60' }],
    ['Vary: *', { vary: '*' }],
  ])('%s: not stored', async (_name, headers) => {
    const outcome = await openAnswerCache(dir).put(question(), answer({ headers }));
    expect(outcome).toMatchObject({ stored: false, reason: expect.any(String) });
    expect(readdirSync(root)).toEqual([]); // not even a directory
  });

  it('an answer the server now forbids storing takes an older stored one with it', async () => {
    await storedEntry();
    expect(await openAnswerCache(dir).put(question(), answer({ receivedAt: T0 + MINUTE, headers: { 'cache-control': 'no-store' } }))).toMatchObject({
      stored: false,
    });
    expect(entryFiles()).toEqual([]);
    expect(hit(question(), T0 + 2 * MINUTE)).toBeUndefined();
  });

  it('private is stored (this is a per-user cache); s-maxage is for shared caches and ignored', async () => {
    await storedEntry(question({ query: 'a' }), answer({ headers: { 'cache-control': 'private' } }));
    await storedEntry(question({ query: 'b' }), answer({ headers: { 'cache-control': 's-maxage=0' } }));
    expect(hit(question({ query: 'a' }))?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'b' }))?.bodyText).toBe(BODY);
  });

  it('max-age caps reuse below the max age; Age counts against it', async () => {
    await storedEntry(question({ query: 'max-age' }), answer({ headers: { 'cache-control': 'public, max-age=120' } }));
    await storedEntry(question({ query: 'aged' }), answer({ headers: { 'cache-control': 'max-age=120', age: '100' } }));
    expect(hit(question({ query: 'max-age' }), T0 + 119_999)?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'max-age' }), T0 + 120_000)).toBeUndefined();
    expect(hit(question({ query: 'aged' }), T0 + 19_999)?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'aged' }), T0 + 20_000)).toBeUndefined();
  });

  it('the max age still caps an answer the server lets live longer', async () => {
    await storedEntry(undefined, answer({ headers: { 'cache-control': 'max-age=86400' } }));
    expect(hit(question(), T0 + 15 * MINUTE)).toBeUndefined();
    expect(hit(question(), T0 + 15 * MINUTE, 16 * MINUTE)?.bodyText).toBe(BODY);
  });

  it('Expires caps reuse, counted from Date when given, else from arrival', async () => {
    const serverNow = T0 + 10 * MINUTE; // the server's clock is 10 minutes ahead of ours
    await storedEntry(
      question({ query: 'dated' }),
      answer({ headers: { date: new Date(serverNow).toUTCString(), expires: new Date(serverNow + 2 * MINUTE).toUTCString() } }),
    );
    await storedEntry(question({ query: 'undated' }), answer({ headers: { expires: new Date(T0 + 3 * MINUTE).toUTCString() } }));
    expect(hit(question({ query: 'dated' }), T0 + 2 * MINUTE - 1)?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'dated' }), T0 + 2 * MINUTE)).toBeUndefined();
    expect(hit(question({ query: 'undated' }), T0 + 3 * MINUTE - 1)?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'undated' }), T0 + 3 * MINUTE)).toBeUndefined();
  });

  it('a Date behind our clock makes the answer that much older on arrival (RFC 9111 §4.2.3)', async () => {
    const serverNow = T0 - MINUTE;
    const cache = openAnswerCache(dir);
    const dated = (expires: number) => answer({ headers: { date: new Date(serverNow).toUTCString(), expires: new Date(expires).toUTCString() } });
    expect(await cache.put(question({ query: 'stale' }), dated(serverNow + MINUTE))).toMatchObject({ stored: false });
    await storedEntry(question({ query: 'fresh' }), dated(serverNow + 3 * MINUTE));
    expect(hit(question({ query: 'fresh' }), T0 + 2 * MINUTE - 1)?.bodyText).toBe(BODY);
    expect(hit(question({ query: 'fresh' }), T0 + 2 * MINUTE)).toBeUndefined();
  });

  it('max-age wins over Expires', async () => {
    await storedEntry(undefined, answer({ headers: { 'cache-control': 'max-age=60', expires: new Date(T0 + 10 * MINUTE).toUTCString() } }));
    expect(hit(question(), T0 + 59_999)?.bodyText).toBe(BODY);
    expect(hit(question(), T0 + 60_000)).toBeUndefined();
  });

  it.each([
    ['a 404', answer({ status: 404, bodyText: '{"error":"not found"}' })],
    ['a 500', answer({ status: 500, bodyText: '{"error":"boom"}' })],
    ['a 304', answer({ status: 304, bodyText: '{}' })],
    ['malformed JSON', answer({ bodyText: '{"score": 7' })],
    ['an empty body', answer({ bodyText: '' })],
    ['a bare number', answer({ bodyText: '42' })],
    ['null', answer({ bodyText: 'null' })],
    ['a body that echoes the key', answer({ bodyText: `{"token":"${KEY}"}` })],
  ])('%s is never stored', async (_name, fresh) => {
    expect(await openAnswerCache(dir).put(question(), fresh)).toMatchObject({ stored: false, reason: expect.any(String) });
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('damaged and foreign entries are misses', () => {
  it('truncated, garbled, emptied or checksum-breaking entries', async () => {
    const path = await storedEntry();
    const whole = readFileSync(path, 'utf8');
    const damaged = [
      whole.slice(0, -1),
      whole.slice(0, whole.indexOf('\n')),
      '',
      'not json\n{}',
      whole.replace('71.5', '71.6'),
      `${whole} `,
      whole.replace(/"v":\d+/, '"v":999'),
      whole.replace(/"checksum":"\w+"/, '"sha256":"00"'), // no checksum
    ];
    for (const text of damaged) {
      writeFileSync(path, text);
      expect(hit(), JSON.stringify(text.slice(0, 60))).toBeUndefined();
    }
    writeFileSync(path, whole);
    expect(hit()?.bodyText).toBe(BODY); // the same file, whole again, is a hit: the misses were for the damage
  });

  it("another question's entry under this question's name", async () => {
    const mine = await storedEntry(question({ query: 'Acme' }));
    const theirs = await storedEntry(question({ query: 'Other' }), answer({ bodyText: '{"company":"Other"}' }));
    copyFileSync(theirs, mine);
    expect(hit(question({ query: 'Acme' }))).toBeUndefined();
    expect(hit(question({ query: 'Other' }))?.bodyText).toBe('{"company":"Other"}');
  });

  it("an oversized file, a FIFO, a symlink and a directory in an entry's place (no hang, no crash)", async () => {
    const path = await storedEntry();
    const whole = readFileSync(path, 'utf8');
    const elsewhere = join(root, 'elsewhere.answer');
    writeFileSync(elsewhere, whole);

    truncateSync(path, 9 * 1024 * 1024); // sparse: past the size cap
    expect(hit()).toBeUndefined();
    rmSync(path);
    symlinkSync(elsewhere, path);
    expect(hit()).toBeUndefined();
    rmSync(path);
    mkdirSync(path);
    expect(hit()).toBeUndefined();
    rmSync(path, { recursive: true });
    execFileSync('mkfifo', [path]);
    expect(hit()).toBeUndefined(); // opened non-blocking and refused: a blocking open would hang here
    rmSync(path);
  });

  it.skipIf(process.getuid?.() === 0)('an entry that cannot be read', async () => {
    const path = await storedEntry();
    chmodSync(path, 0o000);
    expect(hit()).toBeUndefined();
  });
});

describe('files on disk', () => {
  it('entries are 0600 in a 0700 directory, and no file holds the key: in the journal, and folded', async () => {
    const umask = process.umask(0o000); // the widest umask: modes must not depend on it
    /** Every file and folder under dir: folders 0700, files 0600, none holding the key. */
    const checkAll = (folder: string) => {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) {
          checkAll(path);
          continue;
        }
        expect({ name, mode: statSync(path).mode & 0o777 }).toEqual({ name, mode: 0o600 });
        const bytes = readFileSync(path);
        expect(bytes.includes(KEY), name).toBe(false);
        expect(bytes.includes(KEY.slice(-12)), name).toBe(false);
      }
    };
    try {
      for (const [endpoint, query] of [
        ['audit', 'Acme'],
        ['search', 'acme'],
        ['pulse', ''],
      ] as const) {
        const fresh = answer({ headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' } });
        expect(await openAnswerCache(dir).put(question({ endpoint, query }), fresh)).toEqual({ stored: true });
      }
      expect(entryFiles()).toHaveLength(0); // in the journal
      checkAll(dir);
      await foldJournal(dir);
    } finally {
      process.umask(umask);
    }
    expect(entryFiles()).toHaveLength(3);
    checkAll(dir);
  });

  it('an existing directory open to others is narrowed to 0700', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    await storedEntry();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a directory that cannot be written: put says why, get misses, nothing throws', async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'cache'), 'a file where a directory should be');
    const outcome = await openAnswerCache(dir).put(question(), answer());
    expect(outcome).toMatchObject({ stored: false, error: expect.any(Error) });
    expect(hit()).toBeUndefined();
    expect(() => openAnswerCache(dir).stats()).toThrow();
  });
});

describe('eviction, stats and clear', () => {
  /** Stores answers 0..n-1, the file of answer i dated i minutes after T0 (older answers are older files). */
  async function storeMany(n: number, limits: CacheLimits, from = 0): Promise<void> {
    const cache = openAnswerCache(dir, limits);
    for (let i = from; i < from + n; i++) {
      const before = new Set(entryFiles());
      expect(await cache.put(question({ query: `q${i}` }), answer({ bodyText: `{"i":${i}}` }))).toEqual({ stored: true });
      await foldJournal(dir, limits);
      const added = entryFiles().find((name) => !before.has(name));
      if (added) utimesSync(join(dir, added), (T0 + i * MINUTE) / 1000, (T0 + i * MINUTE) / 1000);
    }
  }
  const kept = (n: number) =>
    Array.from({ length: n }, (_, i) => i).filter((i) => hit(question({ query: `q${i}` }), T0 + MINUTE, 10 * 24 * 60 * MINUTE) !== undefined);

  const BLOCK = 4096;
  it('past the byte bound, the least recently used go: a hit counts as use', async () => {
    await storeMany(6, { maxBytes: 1024 * BLOCK, evictEvery: 100 });
    expect(hit(question({ query: 'q0' }), T0 + MINUTE, 10 * 24 * 60 * MINUTE)).toBeDefined(); // q0 is used now
    // Seven entries of a block each against a bound of four: down to 90% of it, the least recently used first.
    await storeMany(1, { maxBytes: 4 * BLOCK, evictEvery: 1 }, 6);
    expect(entryFiles()).toHaveLength(3);
    expect(kept(7)).toEqual([0, 5, 6]);
  });

  it('never evicts what the running cache stored or read, even past the bound', async () => {
    await storeMany(4, { maxBytes: 1024 * BLOCK, evictEvery: 100 });
    const running = openAnswerCache(dir, { maxBytes: 2 * BLOCK, evictEvery: 1 });
    expect(running.get(question({ query: 'q1' }), { maxAgeMs: 10 * 24 * 60 * MINUTE, now: T0 + MINUTE })).toBeDefined();
    for (let i = 10; i < 14; i++) expect(await running.put(question({ query: `q${i}` }), answer({ bodyText: `{"i":${i}}` }))).toEqual({ stored: true });
    const all = Array.from({ length: 14 }, (_, i) => i).filter((i) => hit(question({ query: `q${i}` }), T0 + MINUTE, 10 * 24 * 60 * MINUTE));
    expect(all).toEqual([1, 10, 11, 12, 13]);
  });

  it('measures the folder once, then not again until the puts could fill half the room left', async () => {
    const limits = { maxBytes: 1000 * BLOCK, evictEvery: 1 };
    await storeMany(1, limits);
    expect(JSON.parse(readFileSync(join(dir, '.usage'), 'utf8'))).toEqual({ entries: 1, bytes: BLOCK });
    expect(existsSync(join(dir, '.puts'))).toBe(false);
    await storeMany(20, limits, 1);
    // 20 puts counted, none measured: 499 may pass (half of 999 blocks of room) before the next.
    expect(statSync(join(dir, '.puts')).size).toBe(20);
    expect(entryFiles()).toHaveLength(21);
  });

  it('counts the puts of one turn together: 20 at once against a count of 8 measure the folder once, with all 20 in it', async () => {
    const cache = openAnswerCache(dir, { maxBytes: 1000 * BLOCK, evictEvery: 8 });
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.put(question({ query: `q${i}` }), answer({ bodyText: `{"i":${i}}` }))));
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => ({ stored: true })));
    await foldJournal(dir, { maxBytes: 1000 * BLOCK, evictEvery: 8 }); // the 20 written to entry files in one turn
    expect(JSON.parse(readFileSync(join(dir, '.usage'), 'utf8'))).toEqual({ entries: 20, bytes: 20 * BLOCK });
    expect(existsSync(join(dir, '.puts'))).toBe(false);
    expect(entryFiles()).toHaveLength(20);
  });

  it('counts on after the count file went (a clear, an eviction elsewhere) while this process held it open', async () => {
    const limits = { maxBytes: 1000 * BLOCK, evictEvery: 1 };
    await storeMany(1, limits);
    await storeMany(5, limits, 1);
    expect(statSync(join(dir, '.puts')).size).toBe(5);
    rmSync(join(dir, '.puts'));
    await storeMany(3, limits, 6);
    expect(statSync(join(dir, '.puts')).size).toBe(3);
  });

  it('an entry a crash cut off is a miss, and the next put replaces it whole', async () => {
    const path = await storedEntry();
    truncateSync(path, statSync(path).size - 5);
    expect(hit()).toBeUndefined();
    writeFileSync(path, ''); // made, nothing written yet
    expect(hit()).toBeUndefined();
    expect(await openAnswerCache(dir).put(question(), answer())).toEqual({ stored: true });
    expect(hit()?.bodyText).toBe(BODY);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('stats counts entries and bytes; clear removes only entries and says how many', async () => {
    const cache = openAnswerCache(dir);
    expect(cache.stats()).toEqual({ dir, entries: 0, bytes: 0, max_bytes: 512 * 1024 * 1024 });
    expect(cache.clear()).toBe(0);
    await storeMany(3, { maxBytes: 1024 * 1024, evictEvery: 100 });
    writeFileSync(join(dir, 'notes.txt'), 'not rep’s');
    const bytes = entryFiles().reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    expect(cache.stats()).toEqual({ dir, entries: 3, bytes, max_bytes: 512 * 1024 * 1024 });
    expect(cache.clear()).toBe(3);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(cache.stats()).toEqual({ dir, entries: 0, bytes: 0, max_bytes: 512 * 1024 * 1024 });
    expect(cache.clear()).toBe(0);
  });
});
