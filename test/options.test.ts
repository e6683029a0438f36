// The option parsers (src/options.ts): what each accepts, and what it says when a value is wrong (the
// message is all a user sees); and chooseFormat, which picks the output format from them.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { chooseFormat } from '../src/context.js';
import { hostName, parseDuration, portNumber, positiveInteger, positiveNumber, scoreThreshold, wholeNumber } from '../src/options.js';

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

  it('reads counts and ports as plain decimal digits, spaces around them allowed, and nothing else', () => {
    expect([wholeNumber(' 4 '), positiveInteger('\t12\n'), portNumber(' 8080')]).toEqual([4, 12, 8080]);
    for (const text of ['', ' ', '-1', '+1', '0x10', '0b11', '1e1', '1.0', '4 4', '٤'])
      for (const read of [wholeNumber, positiveInteger, portNumber])
        expect(() => read(text), `${read.name}(${JSON.stringify(text)})`).toThrow(InvalidArgumentError);
  });

  it('reads a gate threshold as a plain decimal, 0 or more', () => {
    expect(['60', ' 4.5 ', '10.25', '.5', '5.', '0'].map(scoreThreshold)).toEqual([60, 4.5, 10.25, 0.5, 5, 0]);
    for (const text of ['', ' ', '-5', '+5', '0x3C', '1e1', '60x', '.5x', '.', '5..1', 'Infinity'])
      expect(() => scoreThreshold(text), JSON.stringify(text)).toThrow('expected a number such as 60 or 4.5 (0 or more)');
  });

  it('takes a sandbox host as typed, with no blank or control character in it', () => {
    expect(['127.0.0.1', 'localhost', '::1', '0.0.0.0'].map(hostName)).toEqual(['127.0.0.1', 'localhost', '::1', '0.0.0.0']);
    for (const text of ['', ' ', ' 127.0.0.1', '127.0.0.1 ', 'a b', 'a\tb', 'host\n', 'a\u0000b', 'a\u007fb'])
      expect(() => hostName(text), JSON.stringify(text)).toThrow('expected a host name or address, such as 127.0.0.1 or localhost');
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

describe('option values and their messages', () => {
  it('seconds: plain decimals above 0', () => {
    expect(positiveNumber('30')).toBe(30);
    expect(positiveNumber(' 2.')).toBe(2);
    expect(positiveNumber('.25')).toBe(0.25);
    expect(positiveNumber('12.5')).toBe(12.5);
    for (const text of ['0', '-1', '', '1.2.3', '+5']) {
      expect(() => positiveNumber(text)).toThrow('expected a positive number of seconds, at most 2147483 (about 24 days)');
    }
  });

  it('a whole number: 0 or more', () => {
    expect(wholeNumber('12')).toBe(12);
    for (const text of ['-1', '1.5', 'abc']) expect(() => wholeNumber(text)).toThrow('expected a whole number (0 or more)');
  });

  it('a whole number: 1 or more', () => {
    expect(positiveInteger('1')).toBe(1);
    for (const text of ['0', '-3', '2.5', 'x']) expect(() => positiveInteger(text)).toThrow('expected a whole number (1 or more)');
  });

  it('a port: 0 to 65535', () => {
    expect(portNumber('8080')).toBe(8080);
    // '' was port 0 (any free port) and 0x10 port 16.
    for (const text of ['-1', '65536', '80.5', 'http', '', ' ', '0x10', '1e3', '+80'])
      expect(() => portNumber(text)).toThrow('expected a port from 0 to 65535');
  });

  it('a duration: seconds, minutes, hours, or a mix', () => {
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('1h2m3s')).toBe(3_723_000);
    expect(parseDuration('2m30s')).toBe(150_000);
    expect(parseDuration('45S')).toBe(45_000);
    expect(parseDuration('1.25')).toBe(1250);
    expect(parseDuration('2147483.647')).toBe(2 ** 31 - 1); // exactly the longest a timer holds
    for (const text of ['', ' ', 'm', '1h 30m', '30s1m', 'abc', '1x']) {
      expect(() => parseDuration(text)).toThrow(/^expected a duration such as 90, 90s, 15m or 1h$/);
    }
  });

  it('a score threshold: 0 or more, with decimals', () => {
    expect(scoreThreshold('0')).toBe(0);
    expect(scoreThreshold(' 4.5 ')).toBe(4.5);
    for (const text of ['', '  ', '-1', 'abc', 'Infinity']) expect(() => scoreThreshold(text)).toThrow('expected a number such as 60 or 4.5 (0 or more)');
  });
});
