// The store contract on the local-files store.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldJournal } from '../src/state/answer-cache.js';
import { openLocalStore } from '../src/store/local/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeContract } from './store-contract.js';

let root: string | undefined;
const storeAt = (dir: string) => openLocalStore({ cacheDir: join(dir, 'cache'), stateDir: join(dir, 'state'), historyDir: join(dir, 'state', 'history') });

storeContract('local files', {
  async open() {
    root = mkdtempSync(join(tmpdir(), 'rep-store-'));
    return storeAt(root);
  },
  async again() {
    return storeAt(root!);
  },
  async cleanup() {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  },
});

describe('the local answers’ getMany (a batch’s lookups, the folder looked at once)', () => {
  const BASE = 'https://api.example.com/api';
  const key = (query: string) => ({ baseUrl: BASE, endpoint: 'audit' as const, query, keyFingerprint: 'aaaa000011112222' });
  const fresh = { maxAgeMs: 60_000, now: Date.now() };
  const stored = (score: number) => ({ status: 200, bodyText: JSON.stringify({ score }), contentType: 'application/json', storedAt: Date.now() });
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rep-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('misses every key while there is no cache folder, and finds each entry in its place once there is one', async () => {
    const store = storeAt(dir);
    const keys = ['a', 'b', 'c', 'd'].map(key);
    expect(await store.answers.getMany!(keys, fresh)).toEqual([undefined, undefined, undefined, undefined]);
    expect(existsSync(join(dir, 'cache'))).toBe(false);
    await store.answers.put(key('b'), stored(2));
    await store.answers.put(key('d'), stored(4));
    const found = await store.answers.getMany!(keys, fresh);
    expect(found.map((answer) => answer && JSON.parse(answer.bodyText).score)).toEqual([undefined, 2, undefined, 4]);
    await store.close();
  });

  it('misses many keys at once in a folder that holds no entry, and finds one another store put there next time', async () => {
    const store = storeAt(dir);
    const keys = Array.from({ length: 12 }, (_, index) => key(`q${index}`));
    mkdirSync(join(dir, 'cache', 'code'), { recursive: true, mode: 0o700 }); // the code cache, there before any answer
    expect(await store.answers.getMany!(keys, fresh)).toEqual(keys.map(() => undefined));
    const other = storeAt(dir);
    await other.answers.put(key('q7'), stored(7));
    await other.close();
    const found = await store.answers.getMany!(keys, fresh);
    expect(found.map((answer) => answer && JSON.parse(answer.bodyText).score)).toEqual(keys.map((_, index) => (index === 7 ? 7 : undefined)));
    await store.close();
  });

  it('follows a cache folder that is a link to a folder of the user’s, and takes no entry that is a link', async () => {
    const real = join(dir, 'real-cache');
    const first = storeAt(dir);
    await first.answers.put(key('a'), stored(1));
    await first.close();
    await foldJournal(join(dir, 'cache')); // its entry file, which becomes a link below
    renameSync(join(dir, 'cache'), real);
    symlinkSync(real, join(dir, 'cache'));
    const entry = readdirSync(real).find((name) => name.endsWith('.answer'))!;
    const store = storeAt(dir);
    expect((await store.answers.getMany!([key('a')], fresh)).map((answer) => answer?.bodyText)).toEqual(['{"score":1}']);
    renameSync(join(real, entry), join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(real, entry));
    expect(await store.answers.getMany!([key('a'), key('b')], fresh)).toEqual([undefined, undefined]);
    await store.close();
  });
});
