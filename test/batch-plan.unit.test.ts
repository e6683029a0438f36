// The quota plan's bookkeeping (src/batch/plan.ts, number-table.ts): what it holds for each name it
// reads ahead stays a few bytes a name, and the names it found uncached are told to the batch as it
// gives them, so their requests do not look in the cache again.
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { baseUrlKey } from '../src/api/base-url.js';
import { NumberTable } from '../src/state/number-table.js';
import { planBatch, type PlannedNames } from '../src/batch/plan.js';
import { createDeps } from '../src/context.js';
import { testIO } from '../src/io.js';
import { keyFingerprint } from '../src/store/policy.js';
import { makeTempHome, type TempHome } from './helpers/cli.js';
import { testGlobals } from './helpers/globals.js';

describe('NumberTable', () => {
  it('keeps the first value of each key, and tells a new key from one it has', () => {
    const table = new NumberTable(4);
    expect([table.add(0, 1), table.add(2 ** 53 - 1, 2), table.add(0, 3), table.add(2 ** 32, 4)]).toEqual([true, true, false, true]);
    expect([table.get(0), table.get(2 ** 53 - 1), table.get(2 ** 32), table.get(1)]).toEqual([1, 2, 4, undefined]);
    expect(table.size).toBe(3);
    expect(() => table.add(-1, 0)).toThrow(RangeError);
    expect(() => table.add(0.5, 0)).toThrow(RangeError);
  });

  it('100,000 keys in typed arrays of at most 48 bytes a key, all found again', () => {
    const table = new NumberTable();
    const keys = Array.from({ length: 100_000 }, (_, i) => (i * 2654435761) % 2 ** 53);
    for (const [index, key] of keys.entries()) table.add(key, index);
    expect(table.size).toBe(100_000);
    expect(table.bytes).toBeLessThanOrEqual(48 * 100_000);
    expect(keys.every((key, index) => table.get(key) === index)).toBe(true);
  });
});

describe('planBatch', () => {
  let home: TempHome | undefined;
  afterEach(() => home?.cleanup());

  /** The plan of `input` (reading `ahead` names ahead) on a new home whose answer cache holds `Cached`. */
  /** `chunks` of names as openNames gives them; by default a name a chunk. */
  async function plan(input: string[], ahead: number, chunks: string[][] = input.map((name) => [name])): Promise<PlannedNames> {
    home = makeTempHome();
    const base = 'http://127.0.0.1:9/api';
    const env = { ...home.env, REP_BASE_URL: base, REP_API_KEY: 'rk_test_plan_unit_0001' };
    const { deps } = createDeps({ globals: testGlobals(), io: testIO(), env, signal: new AbortController().signal });
    const key = { keyFingerprint: keyFingerprint(env.REP_API_KEY), baseUrl: baseUrlKey(base), endpoint: 'audit' as const, query: 'Cached' };
    const body = '{"name":"Cached","score":70}';
    expect(await deps.store().answers.put(key, { status: 200, bodyText: body, contentType: 'application/json', storedAt: Date.now() })).toEqual({
      stored: true,
    });
    return planBatch(deps, Readable.from(chunks), ahead);
  }

  /** Each name given, in order, with what `ask` tells of its place. */
  async function told(planned: PlannedNames, ask: (place: number) => boolean = planned.missed): Promise<Array<[string, boolean]>> {
    const said: Array<[string, boolean]> = [];
    for await (const chunk of planned) for (const name of chunk) said.push([name, ask(said.length)]);
    return said;
  }

  it('tells, of each name as it is given, whether the plan found it uncached: a duplicate and a cached name are not', async () => {
    const planned = await plan(['Acme', 'Cached', 'Acme', 'Zeta'], 100);
    expect(planned.total).toBe(4);
    expect(await told(planned)).toEqual([
      ['Acme', true],
      ['Cached', false],
      ['Acme', false],
      ['Zeta', true],
    ]);
  });

  it('past the read-ahead, names go unplanned: none of them is said to be uncached', async () => {
    const planned = await plan(['Acme', 'Cached', 'Zeta', 'Omega'], 2);
    expect(planned.total).toBeUndefined();
    expect((await told(planned)).map(([, missed]) => missed)).toEqual([true, false, false, false]);
  });

  it('tells, of each name as it is given, whether the input has it more than once', async () => {
    const planned = await plan(['Acme', 'Zeta', 'Acme', 'Omega', 'Zeta', 'Acme'], 100);
    expect((await told(planned, planned.repeats)).map(([, again]) => again)).toEqual([true, true, true, false, true, true]);
  });

  it('past the read-ahead, every name may come again', async () => {
    const planned = await plan(['Acme', 'Zeta', 'Omega'], 2);
    expect((await told(planned, planned.repeats)).map(([, again]) => again)).toEqual([true, true, true]);
  });

  it('keeps a chunk whole past the read-ahead: every name is given once, in order, unplanned but its first ones', async () => {
    const input = ['Acme', 'Cached', 'Zeta', 'Omega', 'Acme'];
    const planned = await plan(input, 2, [input.slice(0, 1), input.slice(1, 4), input.slice(4)]);
    expect(planned.total).toBeUndefined();
    expect(await told(planned)).toEqual([
      ['Acme', true],
      ['Cached', false],
      ['Zeta', true],
      ['Omega', true],
      ['Acme', false],
    ]);
  });

  it('plans an input that ends within the read-ahead, however it is chunked', async () => {
    const planned = await plan(['Acme', 'Zeta', 'Omega'], 4, [['Acme', 'Zeta', 'Omega']]);
    expect([planned.total, (await told(planned)).map(([name]) => name)]).toEqual([3, ['Acme', 'Zeta', 'Omega']]);
  });
});
