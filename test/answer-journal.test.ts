// The answer cache's journal (src/state/answer-journal.ts): a batch's answers in a few shard files
// rather than a file an answer, the newest of journal and entry file answering, forgetting, folding into
// entry files at the bound, a killed fold's aside merged back, and links and foreign shards refused.
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldJournal, openAnswerCache, type AnswerKey, type CacheLimits, type FreshAnswer } from '../src/state/answer-cache.js';
import { JOURNAL_DIR } from '../src/state/answer-journal.js';
import { openLocalStore } from '../src/store/local/index.js';

const KEY = 'rk_journal_test_0123456789';
const T0 = Date.now() - 60_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rep-answer-journal-'));
  dir = join(root, 'cache');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const question = (query: string, over: Partial<AnswerKey> = {}): AnswerKey => ({
  baseUrl: 'https://api.example.test/api',
  endpoint: 'audit',
  query,
  apiKey: KEY,
  ...over,
});
const answer = (body: unknown, receivedAt = T0, headers: FreshAnswer['headers'] = { 'content-type': 'application/json' }): FreshAnswer => ({
  status: 200,
  headers,
  bodyText: JSON.stringify(body),
  receivedAt,
});
const bodyOf = (query: string, cache = openAnswerCache(dir)) => cache.get(question(query), { maxAgeMs: HOUR })?.bodyText;
const entryFiles = () => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.answer')) : []);
const shards = () => (existsSync(join(dir, JOURNAL_DIR)) ? readdirSync(join(dir, JOURNAL_DIR)).filter((name) => name.endsWith('.log')) : []);

/**
 * What a fold killed after its link and rename leaves: the shard at shardPath linked aside in
 * journal/folding/, and in its place a new shard holding `text` (empty: nothing appended since).
 */
function leaveKilledFold(shardPath: string, text = ''): void {
  const shard = shardPath.slice(shardPath.lastIndexOf('/') + 1, shardPath.lastIndexOf('/') + 3);
  mkdirSync(join(dir, JOURNAL_DIR, 'folding'), { mode: 0o700 });
  linkSync(shardPath, join(dir, JOURNAL_DIR, 'folding', `${shard}.fold.0a1b2c3d.log`));
  rmSync(shardPath);
  writeFileSync(shardPath, text, { mode: 0o600 });
}

describe('a batch of answers', () => {
  it('goes to a few shard files, one write a shard a turn, and every answer is found again', async () => {
    const cache = openAnswerCache(dir);
    const names = Array.from({ length: 200 }, (_, i) => `Company ${i}`);
    const outcomes = await Promise.all(names.map((name, i) => cache.put(question(name), answer({ name, score: i }))));
    expect(outcomes.every((outcome) => outcome.stored)).toBe(true);
    expect(entryFiles()).toEqual([]);
    expect(shards().length).toBeGreaterThan(1);
    expect(shards().length).toBeLessThanOrEqual(64);
    // One write a shard for the turn (a line end first): each shard's lines end where the turn's text ended, none torn.
    const lines = shards().flatMap((name) => {
      const text = readFileSync(join(dir, JOURNAL_DIR, name), 'utf8');
      expect(text.startsWith('\n')).toBe(true);
      return text.trim().split('\n');
    });
    expect(lines).toHaveLength(200);
    for (const [i, name] of names.entries()) expect(bodyOf(name)).toBe(JSON.stringify({ name, score: i }));
    expect(cache.stats()).toMatchObject({ entries: 200 });
  });

  it('is found by a store of another process (getMany), which reads only what was appended since its last look', async () => {
    const store = openLocalStore({ cacheDir: dir, stateDir: join(root, 'state'), historyDir: join(root, 'history') });
    const key = (query: string) => ({ baseUrl: 'https://api.example.test/api', endpoint: 'audit' as const, query, keyFingerprint: 'f'.repeat(16) });
    const put = (query: string, score: number) => store.answers.put(key(query), { status: 200, bodyText: JSON.stringify({ score }), storedAt: Date.now() });
    const scores = async (queries: string[]) =>
      (await store.answers.getMany!(queries.map(key), { maxAgeMs: HOUR, now: Date.now() })).map((found) => found && JSON.parse(found.bodyText).score);
    await Promise.all(Array.from({ length: 20 }, (_, i) => put(`q${i}`, i)));
    expect(await scores(['q0', 'q7', 'q19', 'none'])).toEqual([0, 7, 19, undefined]);
    await put('q7', 70); // a newer answer to the same question, appended to the shard read before
    await put('q20', 20);
    expect(await scores(['q7', 'q20', 'q0'])).toEqual([70, 20, 0]);
    await store.close();
  });
});

describe('the line of a record', () => {
  const journalText = () =>
    shards()
      .map((name) => readFileSync(join(dir, JOURNAL_DIR, name), 'utf8'))
      .join('');

  it('holds an entry as it is, its facts and body apart by a tab; a body with a line end as a JSON string', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ name: 'Acme "Coffee"' }));
    await cache.put(question('Tartine'), { ...answer({}), bodyText: '{\n  "name": "Tartine"\n}' });
    const lines = journalText().split('\n').filter(Boolean);
    const acme = lines.find((line) => line.includes('Acme'))!;
    expect(acme).toMatch(/^[0-9a-f]{64} \{"v":2,.*"checksum":"[0-9a-f]{8}"\}\t\{"name":"Acme \\"Coffee\\""\}$/);
    // What a reader of the earlier format does with it (JSON.parse of the payload, kept only when a string): nothing, a miss.
    expect(() => JSON.parse(acme.slice(65))).toThrow(SyntaxError);
    const tartine = lines.find((line) => line.includes('Tartine'))!;
    expect(typeof JSON.parse(tartine.slice(65))).toBe('string');
    expect(bodyOf('Acme')).toBe('{"name":"Acme \\"Coffee\\""}');
    expect(bodyOf('Tartine')).toBe('{\n  "name": "Tartine"\n}');
    await foldJournal(dir);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBe('{"name":"Acme \\"Coffee\\""}');
    expect(bodyOf('Tartine', openAnswerCache(dir))).toBe('{\n  "name": "Tartine"\n}');
  });

  it('of the earlier format (the entry as a JSON string) is read and folded as before', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    const [hash, facts, body] = /^\n([0-9a-f]{64}) (\{.*\})\t(.*)\n$/.exec(readFileSync(shardPath, 'utf8'))!.slice(1);
    // Exactly as the rep before this format wrote it: a line end first, the hash, a space, the entry's text as a JSON string.
    writeFileSync(shardPath, `\n${hash} ${JSON.stringify(`${facts}\n${body}`)}\n`, { mode: 0o600 });
    expect(readFileSync(shardPath, 'utf8')).toMatch(/^\n[0-9a-f]{64} "\{\\"v\\":2,\\"baseUrl\\":.*\\"\}\\n\{\\"v\\":1\}"\n$/);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBe('{"v":1}');
    await foldJournal(dir);
    expect(entryFiles()).toHaveLength(1);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBe('{"v":1}');
  });

  it('of a newer answer torn by a killed writer is no answer: the older one stays, before and after a fold', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    const newer = openAnswerCache(join(root, 'elsewhere'));
    await newer.put(question('Acme'), answer({ v: 2, pad: 'x'.repeat(200) }, T0 + 1000));
    const line = readFileSync(join(root, 'elsewhere', JOURNAL_DIR, shard!), 'utf8').slice(1);
    // Its facts whole, its body cut off; a later write's line end ends it.
    writeFileSync(shardPath, `${line.slice(0, line.length - 50)}\n`, { flag: 'a' });
    expect(bodyOf('Acme', openAnswerCache(dir))).toBe('{"v":1}');
    await foldJournal(dir);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBe('{"v":1}');
  });
});

describe('the newest answer wins', () => {
  it('over an older entry file, and an entry file over older journal records', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    await foldJournal(dir);
    expect(entryFiles()).toHaveLength(1);
    await cache.put(question('Acme'), answer({ v: 2 }, T0 + 1000));
    expect(bodyOf('Acme')).toBe('{"v":2}');
    await foldJournal(dir);
    expect(bodyOf('Acme')).toBe('{"v":2}');
    // A record older than the entry (a killed fold's record merged back late) does not win.
    await cache.put(question('Acme'), answer({ v: 0 }, T0 - 1000));
    expect(bodyOf('Acme')).toBe('{"v":2}');
  });

  it('a fold keeps a newer entry file: an older record, or an older forgetting, in the journal does not undo it', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 2 }, T0 + 1000));
    await foldJournal(dir);
    // A record older than the entry (a killed fold's merged back late, another process's slower put).
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    await foldJournal(dir);
    expect(bodyOf('Acme')).toBe('{"v":2}');
    // An answer forgotten, then a newer one too large for the journal, straight to its entry file.
    expect(await cache.put(question('Acme'), answer({ v: 3 }, Date.now(), { 'cache-control': 'no-store' }))).toMatchObject({ stored: false });
    const large = { v: 4, pad: 'x'.repeat(70 * 1024) };
    expect(await cache.put(question('Acme'), answer(large, Date.now() + 1000))).toEqual({ stored: true });
    expect(bodyOf('Acme')).toBe(JSON.stringify(large));
    await foldJournal(dir);
    expect(bodyOf('Acme')).toBe(JSON.stringify(large));
  });

  it('a forgetting that cannot be written is said (the answer may still be served), through the store and the cache alike', async () => {
    const warnings: string[] = [];
    const store = openLocalStore({ cacheDir: dir, stateDir: join(root, 'state'), historyDir: join(root, 'history'), warn: (line) => warnings.push(line) });
    const key = { baseUrl: 'https://api.example.test/api', endpoint: 'audit' as const, query: 'Acme', keyFingerprint: 'f'.repeat(16) };
    expect(await store.answers.put(key, { status: 200, bodyText: '{"v":1}', storedAt: Date.now() })).toEqual({ stored: true });
    // No shard can be appended to (a folder in the place of each): no forgetting can be recorded.
    for (let shard = 0; shard < 64; shard++) {
      const shardPath = join(dir, JOURNAL_DIR, `${shard.toString(16).padStart(2, '0')}.log`);
      rmSync(shardPath, { force: true });
      mkdirSync(shardPath);
    }
    await store.answers.forget(key);
    expect(warnings).toEqual([expect.stringMatching(/^cannot forget a cached answer in .* \(.*\): it may be reused until it is older than the max age$/)]);
    await store.close();
    const cache = openAnswerCache(dir);
    const outcome = await cache.put(question('Acme'), answer({ v: 2 }, Date.now(), { 'cache-control': 'no-store' }));
    expect(outcome).toMatchObject({ stored: false, error: expect.any(Error) });
  });

  it('a forgetting appended after a writer killed mid-write (its line torn, no line end) still hides the answer', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    // What a writer killed mid-write leaves: the first part of its line, never ended.
    const torn = readFileSync(shardPath, 'utf8').replace(/^\n?[0-9a-f]{64}/, `${shard!.slice(0, 2)}${'e'.repeat(62)}`);
    writeFileSync(shardPath, torn.slice(0, 120), { flag: 'a' });
    const other = openAnswerCache(dir); // another process, later
    expect(await other.put(question('Acme'), answer({ v: 2 }, Date.now(), { 'cache-control': 'no-store' }))).toMatchObject({ stored: false });
    expect(bodyOf('Acme', openAnswerCache(dir))).toBeUndefined();
    await foldJournal(dir);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBeUndefined();
  });

  it("a killed fold's aside merged back into a shard whose last line is torn: its forgetting still hides the answer", async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    const before = readFileSync(shardPath, 'utf8');
    expect(await cache.put(question('Acme'), answer({ v: 2 }, Date.now(), { 'cache-control': 'no-store' }))).toMatchObject({ stored: false });
    // A fold killed after its link and rename: the old shard (the forgetting in it) aside; in place, the
    // answer and a line a writer killed mid-write left unfinished.
    leaveKilledFold(shardPath, `${before}${shard!.slice(0, 2)}${'e'.repeat(62)} "torn`);
    expect(bodyOf('Acme')).toBeUndefined();
    await foldJournal(dir); // merges the aside back first
    expect(existsSync(join(dir, JOURNAL_DIR, 'folding'))).toBe(false);
    expect(bodyOf('Acme', openAnswerCache(dir))).toBeUndefined();
  });

  it('an answer the server forbids keeping takes the older ones with it, in the journal and in the entry file', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, T0));
    await foldJournal(dir);
    await cache.put(question('Acme'), answer({ v: 2 }, T0 + 1000));
    expect(await cache.put(question('Acme'), answer({ v: 3 }, T0 + 2000, { 'cache-control': 'no-store' }))).toMatchObject({ stored: false });
    expect(bodyOf('Acme')).toBeUndefined();
    expect(entryFiles()).toEqual([]);
    await foldJournal(dir);
    expect(bodyOf('Acme')).toBeUndefined();
    await cache.put(question('Acme'), answer({ v: 4 }, Date.now()));
    expect(bodyOf('Acme')).toBe('{"v":4}');
  });
});

describe('folding', () => {
  it('a shard past its bound goes to entry files, and the entry files keep the bound', async () => {
    // A bound of 64 blocks: each shard folds past 64 * 4096 / 256 = 1 KiB, and eviction keeps ~58 entries.
    const limits: CacheLimits = { maxBytes: 64 * 4096, evictEvery: 1 };
    const cache = openAnswerCache(dir, limits);
    const pad = 'x'.repeat(600);
    for (let i = 0; i < 150; i++) expect(await cache.put(question(`q${i}`), answer({ i, pad }, Date.now()))).toEqual({ stored: true });
    expect(entryFiles().length).toBeGreaterThan(0);
    const journalBytes = shards().reduce((sum, name) => sum + readFileSync(join(dir, JOURNAL_DIR, name)).length, 0);
    expect(journalBytes).toBeLessThanOrEqual(64 * 2 * 1024); // each shard under its bound plus one answer
    expect(cache.stats().bytes).toBeLessThanOrEqual(64 * 4096 + journalBytes + 64 * 4096 * 0.1);
    // What this cache stored stays (its run is protected), whatever the bound.
    expect(bodyOf('q149', cache)).toBe(JSON.stringify({ i: 149, pad }));
  });

  it("a fold killed after linking the old shard aside: the next fold merges the aside's answers back", async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, Date.now()));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    // What a fold killed after its link and rename leaves: the old shard aside, an empty one in place.
    leaveKilledFold(shardPath);
    expect(bodyOf('Acme')).toBe('{"v":1}'); // read from the aside meanwhile
    // The next fold of the shard merges the aside back first, and lets it go (a new process's first write does too).
    await foldJournal(dir);
    expect(existsSync(join(dir, JOURNAL_DIR, 'folding'))).toBe(false);
    expect(entryFiles()).toHaveLength(1);
    expect(bodyOf('Acme')).toBe('{"v":1}');
  });
  it('a fold keeps a last line still being written, for the rest of it to end', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, Date.now()));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    const whole = readFileSync(shardPath, 'utf8');
    // Another writer's line, half written when the fold reads: the first half there, the rest to come.
    const line = whole.replace(/^\n?[0-9a-f]{64}/, 'f'.repeat(64));
    writeFileSync(shardPath, whole + line.slice(0, 40), { flag: 'a' });
    await foldJournal(dir);
    expect(entryFiles()).toHaveLength(1);
    expect(readFileSync(shardPath, 'utf8')).toBe(line.slice(0, 40));
    writeFileSync(shardPath, line.slice(40), { flag: 'a' });
    expect(readFileSync(shardPath, 'utf8')).toBe(line);
  });
});

describe('what is not ours to trust', () => {
  it('a journal folder that is a link: answers go to entry files, the link and its target untouched', async () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(dir, JOURNAL_DIR));
    const cache = openAnswerCache(dir);
    expect(await cache.put(question('Acme'), answer({ v: 1 }, Date.now()))).toEqual({ stored: true });
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(entryFiles()).toHaveLength(1);
    expect(bodyOf('Acme')).toBe('{"v":1}');
  });

  it('a journal folder put in place as a link is not read through: its answers are not served', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, Date.now()));
    const elsewhere = join(root, 'elsewhere');
    renameSync(join(dir, JOURNAL_DIR), elsewhere);
    symlinkSync(elsewhere, join(dir, JOURNAL_DIR));
    const warnings: string[] = [];
    const other = openAnswerCache(dir, undefined, (line) => warnings.push(line));
    expect(other.get(question('Acme'), { maxAgeMs: HOUR })).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^not using the answer journal in .*: the journal .* is a link/)]);
    // Nor counted, nor cleared through: the link goes, what it leads to stays.
    expect(other.stats().entries).toBe(0);
    const there = readdirSync(elsewhere);
    other.clear();
    expect(existsSync(join(dir, JOURNAL_DIR))).toBe(false);
    expect(readdirSync(elsewhere)).toEqual(there);
  });

  it('a shard that is a link, or that others can write, is not read (one warning); the answer comes from elsewhere or not at all', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, Date.now()));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    const target = join(root, 'target.log');
    const text = readFileSync(shardPath);
    writeFileSync(target, text, { mode: 0o600 });
    rmSync(shardPath);
    symlinkSync(target, shardPath);
    const warnings: string[] = [];
    const warned = openAnswerCache(dir, undefined, (line) => warnings.push(line));
    expect(warned.get(question('Acme'), { maxAgeMs: HOUR })).toBeUndefined();
    expect(warned.get(question('Acme'), { maxAgeMs: HOUR })).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^not using the answer journal in .*: ELOOP/)]);
    expect(readFileSync(target)).toEqual(text);
    rmSync(shardPath);
    writeFileSync(shardPath, text, { mode: 0o600 });
    chmodSync(shardPath, 0o620);
    expect(warned.get(question('Acme'), { maxAgeMs: HOUR })).toBeUndefined();
    expect(warnings.at(-1)).toMatch(/is writable by other users \(mode 620\)$/);
    chmodSync(shardPath, 0o600);
    expect(warned.get(question('Acme'), { maxAgeMs: HOUR })?.bodyText).toBe('{"v":1}');
  });
});

describe('clear and stats', () => {
  it('count and remove answers in the journal and in entry files alike, each once', async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('a'), answer({ v: 1 }, Date.now()));
    await cache.put(question('b'), answer({ v: 1 }, Date.now()));
    await foldJournal(dir);
    await cache.put(question('b'), answer({ v: 2 }, Date.now())); // in both: one answer
    await cache.put(question('c'), answer({ v: 1 }, Date.now()));
    expect(cache.stats().entries).toBe(3);
    expect(cache.clear()).toBe(3);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
    expect(readdirSync(dir)).toEqual([]);
    expect(bodyOf('b')).toBeUndefined();
    await cache.put(question('d'), answer({ v: 1 }, Date.now())); // the folder made again
    expect(bodyOf('d')).toBe('{"v":1}');
  });

  it("clear removes a killed fold's aside too: no answer it cleared comes back, and it is counted", async () => {
    const cache = openAnswerCache(dir);
    await cache.put(question('Acme'), answer({ v: 1 }, Date.now()));
    const [shard] = shards();
    const shardPath = join(dir, JOURNAL_DIR, shard!);
    // What a fold killed after its link and rename leaves: the old shard aside, an empty one in place.
    leaveKilledFold(shardPath);
    expect(cache.stats().entries).toBe(1);
    expect(cache.clear()).toBe(1);
    expect(bodyOf('Acme')).toBeUndefined();
    // Nor through a later process's recovery, before its first write.
    await cache.put(question('Other'), answer({ v: 1 }, Date.now()));
    expect(bodyOf('Acme', openAnswerCache(dir))).toBeUndefined();
    expect(cache.stats().entries).toBe(1);
  });
});
