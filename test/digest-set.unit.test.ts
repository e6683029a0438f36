// The local history's set of index lines (src/state/digest-set.ts): texts kept as digests in one typed
// array, a few bytes each, every one told apart from the others.
import { describe, expect, it } from 'vitest';
import { DigestSet } from '../src/state/digest-set.js';

describe('DigestSet', () => {
  it('adds a text once: true the first time, false after', () => {
    const set = new DigestSet();
    expect([set.add('a'), set.add('b'), set.add('a'), set.add(''), set.add('')]).toEqual([true, true, false, true, false]);
    expect(set.size).toBe(3);
  });

  it('100,000 index lines in at most 24 bytes each, every one still known after the table grew', () => {
    const set = new DigestSet();
    const lines = Array.from({ length: 100_000 }, (_, i) => `{"base":"http://127.0.0.1:9/api","series":"s${i}","query":"Bench Company ${i}"}`);
    expect(lines.every((line) => set.add(line))).toBe(true);
    expect(set.size).toBe(100_000);
    expect(set.bytes).toBeLessThanOrEqual(24 * 100_000);
    expect(lines.some((line) => set.add(line))).toBe(false);
  });
});
