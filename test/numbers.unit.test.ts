// Numbers for people (src/numbers.ts): written as Intl.NumberFormat('en-US') writes them, without
// loading it. Checked against Intl itself over fixed cases and thousands of generated values.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../src/numbers.js';

type Options = { minDecimals?: number; maxDecimals?: number; grouped?: boolean };
const formats = new Map<string, Intl.NumberFormat>();
const intl = (value: number, minDecimals: number, maxDecimals: number, grouped: boolean) => {
  const style = `${minDecimals} ${maxDecimals} ${grouped}`;
  let format = formats.get(style);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { minimumFractionDigits: minDecimals, maximumFractionDigits: maxDecimals, useGrouping: grouped });
    formats.set(style, format);
  }
  return format.format(value);
};

describe('formatDecimal', () => {
  it.each([
    [62.9, {}, '62.9'],
    [62.9, { minDecimals: 1 }, '62.9'],
    [58, { minDecimals: 1 }, '58.0'],
    [4.25, { minDecimals: 1 }, '4.25'],
    [4.256, { minDecimals: 1 }, '4.26'],
    [1.005, {}, '1.01'],
    [99.995, {}, '100'],
    [99.995, { minDecimals: 1 }, '100.0'],
    [9.999, { minDecimals: 2 }, '10.00'],
    [0.004, {}, '0'],
    [-0.004, {}, '-0'],
    [-0, {}, '-0'],
    [-7.05, { minDecimals: 1 }, '-7.05'],
    [1708, { grouped: true }, '1,708'],
    [1234567.891, { grouped: true }, '1,234,567.89'],
    [999999.999, { grouped: true }, '1,000,000'],
    [100, { grouped: true }, '100'],
    [1234, {}, '1234'],
    [0.125, { minDecimals: 3 }, '0.125'],
    [3, { minDecimals: 2, maxDecimals: 2 }, '3.00'],
  ] as Array<[number, Options, string]>)('%d with %j is %s, as Intl writes it', (value, options, text) => {
    expect(formatDecimal(value, options)).toBe(text);
    const min = options.minDecimals ?? 0;
    expect(intl(value, min, options.maxDecimals ?? Math.max(2, min), options.grouped ?? false)).toBe(text);
  });

  it('writes what Intl writes for numbers past the plain notation and for non-finite ones', () => {
    for (const value of [1e21, 1.5e-7, -2e22, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(formatDecimal(value, { grouped: true })).toBe(intl(value, 0, 2, true));
  });

  it('agrees with Intl on generated scores, counts and their halves', () => {
    let seed = 20261126;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const values: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const magnitude = 10 ** Math.floor(random() * 9 - 2);
      const raw = (random() - 0.3) * magnitude;
      values.push(raw, Math.round(raw * 1000) / 1000, Math.round(raw * 200) / 200 + 0.005, Math.round(raw));
    }
    const mismatches: string[] = [];
    for (const value of values) {
      for (const [min, max] of [
        [0, 2],
        [1, 2],
        [2, 2],
        [0, 1],
        [3, 3],
      ] as const) {
        for (const grouped of [false, true]) {
          const ours = formatDecimal(value, { minDecimals: min, maxDecimals: max, grouped });
          const theirs = intl(value, min, max, grouped);
          if (ours !== theirs) mismatches.push(`${value} ${min}-${max}${grouped ? ' grouped' : ''}: ${ours} ≠ ${theirs}`);
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});

describe('no module but numbers.ts loads ICU to write a number or order names', () => {
  it('src/ calls no Intl.NumberFormat, toLocaleString or localeCompare elsewhere', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && path !== join('src', 'numbers.ts')) {
          for (const [index, line] of readFileSync(path, 'utf8').split('\n').entries())
            if (/Intl\.NumberFormat|\.toLocaleString\(|\.localeCompare\(/.test(line)) found.push(`${path}:${index + 1}`);
        }
      }
    };
    walk('src');
    expect(found).toEqual([]);
  });
});
