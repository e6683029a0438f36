// The quota plan's read-ahead (src/batch/name-spill.ts): names past the in-memory few go to a
// temporary file and come back in order, once; distinct names are counted by hash.
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { NameSpill } from '../src/batch/name-spill.js';
import { hash53 } from '../src/state/ids.js';

const planDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('rep-plan-'));

function replayed(spill: NameSpill): string[] {
  const names: string[] = [];
  for (const chunk of spill.replay()) names.push(...chunk);
  return names;
}

describe('NameSpill', () => {
  it('gives back every name in order, the ones past memory from a file it then removes', async () => {
    const before = new Set(planDirs());
    const spill = new NameSpill(3);
    const input = ['Acme', 'Blue Bottle', 'Acme', 'Café Ünïcode', '  spaced  ', 'Blue Bottle', 'Zeta'];
    const firsts = input.map((name) => spill.push(name));
    expect(firsts).toEqual([true, true, false, true, true, false, true]);
    expect(spill.size).toBe(7);
    const spilled = planDirs().filter((name) => !before.has(name));
    expect(spilled).toHaveLength(1);
    expect(replayed(spill)).toEqual(input);
    expect(existsSync(`${tmpdir()}/${spilled[0]}`)).toBe(false);
  });

  it('gives back a file of many blocks whole: a name across two blocks, in bytes of several each, comes back as it went', () => {
    const spill = new NameSpill(10);
    const input = Array.from({ length: 20_000 }, (_, i) => `Café Ünïcode 東京 ${i}`);
    for (const name of input) spill.push(name);
    expect(replayed(spill)).toEqual(input);
  });

  it('within memory, no file at all; discard before a replay removes the file', async () => {
    const before = new Set(planDirs());
    const small = new NameSpill(10);
    small.push('a');
    expect(planDirs().filter((name) => !before.has(name))).toEqual([]);
    expect(replayed(small)).toEqual(['a']);
    const big = new NameSpill(1);
    big.push('a');
    big.push('b');
    expect(planDirs().filter((name) => !before.has(name))).toHaveLength(1);
    big.discard();
    expect(planDirs().filter((name) => !before.has(name))).toEqual([]);
  });

  it('a replay closes its file once: a descriptor opened meanwhile (often the same number) stays open', async () => {
    const spill = new NameSpill(1);
    for (const name of ['a', 'b', 'c']) spill.push(name);
    const dir = mkdtempSync(`${tmpdir()}/rep-spill-test-`);
    let fd: number | undefined;
    const names: string[] = [];
    try {
      for (const chunk of spill.replay()) {
        names.push(...chunk);
        if (chunk.includes('b')) fd = openSync(`${dir}/other`, 'w'); // the spill's file is closed by now
      }
      spill.discard(); // as at exit
      expect(names).toEqual(['a', 'b', 'c']);
      expect(fstatSync(fd as number).isFile()).toBe(true);
    } finally {
      if (fd !== undefined) closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hash53: the same text the same number, within 53 bits; near texts differ', () => {
    expect(hash53('Acme')).toBe(hash53('Acme'));
    expect(Number.isSafeInteger(hash53('Acme'))).toBe(true);
    const hashes = new Set(Array.from({ length: 10_000 }, (_, i) => hash53(`Company ${i}`)));
    expect(hashes.size).toBe(10_000);
    expect(hash53('acme')).not.toBe(hash53('Acme'));
  });
});
