import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { chooseFormat } from '../src/context.js';
import { parseDuration, portNumber, positiveInteger, positiveNumber, wholeNumber } from '../src/options.js';

describe('parseDuration', () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['0.5', 500],
    [' 2M ', 120_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'h', '1d', '-5', 'ten', '1.5m', '5 m'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
  });

  it("accepts up to the longest delay Node's timers hold (2^31 - 1 ms), and names it beyond", () => {
    expect(parseDuration('596h31m23s')).toBe(2_147_483_000);
    expect(parseDuration('2147483')).toBe(2_147_483_000);
    for (const text of ['596h31m24s', '2147483.648', '2147484', '999999999999h', `${'9'.repeat(400)}`]) {
      expect(() => parseDuration(text)).toThrow(/at most 596h31m23s \(about 24 days\)/);
    }
  });
});

describe('numeric options', () => {
  it('accepts and rejects what the help says', () => {
    expect(positiveNumber('0.5')).toBe(0.5);
    expect(() => positiveNumber('0')).toThrow(InvalidArgumentError);
    expect(() => positiveNumber('abc')).toThrow(InvalidArgumentError);
    expect(positiveNumber('2147483')).toBe(2147483);
    for (const text of ['2147484', '1e9', '1e2', '0x10', 'Infinity', ' ', '5s'])
      expect(() => positiveNumber(text)).toThrow(/at most 2147483 \(about 24 days\)/);
    expect(wholeNumber('0')).toBe(0);
    expect(() => wholeNumber('1.5')).toThrow(InvalidArgumentError);
    expect(() => wholeNumber('-1')).toThrow(InvalidArgumentError);
    expect(positiveInteger('4')).toBe(4);
    expect(() => positiveInteger('0')).toThrow(InvalidArgumentError);
    expect(portNumber('0')).toBe(0);
    expect(portNumber('65535')).toBe(65535);
    expect(() => portNumber('65536')).toThrow(InvalidArgumentError);
  });
});

describe('chooseFormat', () => {
  it('is table on a terminal and json when piped, unless asked', () => {
    expect(chooseFormat({}, { stdoutIsTTY: true })).toBe('table');
    expect(chooseFormat({}, { stdoutIsTTY: false })).toBe('json');
    expect(chooseFormat({ format: 'csv' }, { stdoutIsTTY: true })).toBe('csv');
    expect(chooseFormat({ json: true, format: 'csv' }, { stdoutIsTTY: true })).toBe('json');
  });
});
