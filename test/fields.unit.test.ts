// Numbers and text as the views read them from a body (src/views/fields.ts): a number, or text that is
// exactly one, in every notation JSON and people write; text that only starts with one is no number.
import { describe, expect, it, vi } from 'vitest';

// The module loaded anew inside a test: its number pattern is made as it loads, and the mutation run
// ties it only to the tests that load it.
const fresh = async () => {
  vi.resetModules();
  return await import('../src/views/fields.js');
};

describe('asNumber', () => {
  it('reads integers, decimals and exponents, with a sign, and spaces around them', async () => {
    const { asNumber } = await fresh();
    const read = ['87', '12', '123.5', '1', '.25', '7.', '12.50', '-5', '+5', '1e3', '1E-3', '1e+10', '1e10', '  87', '87  ', '\t3\n'];
    expect(read.map(asNumber)).toEqual([87, 12, 123.5, 1, 0.25, 7, 12.5, -5, 5, 1000, 0.001, 1e10, 1e10, 87, 87, 3]);
  });

  it('takes no number from text around one, nor from half of one', async () => {
    const { asNumber } = await fresh();
    const refused = ['x87', '87x', 'a 1', '1 a', '1e', 'e3', '.', '-', '+', '1.2.3', '1e3.5', '--1', '+-1', '1e--3', '0x10', '١٢'];
    expect(refused.map(asNumber)).toEqual(refused.map(() => undefined));
  });

  it('keeps finite numbers as they are and refuses the rest', async () => {
    const { asNumber, asText } = await fresh();
    expect([0, -0.5, 1e21, Number.POSITIVE_INFINITY, Number.NaN].map(asNumber)).toEqual([0, -0.5, 1e21, undefined, undefined]);
    expect([undefined, null, {}, [], true, Number.NaN, Number.POSITIVE_INFINITY, 12].map(asText)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      '12',
    ]);
  });
});
