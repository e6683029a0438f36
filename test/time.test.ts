// Durations and clock times as rep writes them (src/time.ts): in a sentence, as a countdown, as a clock.
import { describe, expect, it } from 'vitest';
import { formatClock, formatCountdown, formatRelative } from '../src/time.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('how long a wait reads', () => {
  it.each([
    [0, '1 s'],
    [1_400, '1 s'],
    [1_600, '2 s'],
    [9_400, '9 s'],
    [9_500, '10 s'],
    [12_400, '10 s'],
    [12_600, '15 s'],
    [57_400, '55 s'],
    [57_500, '1 min'],
    [89_000, '1 min'],
    [91_000, '2 min'],
    [59 * MINUTE + 29_000, '59 min'],
    [59 * MINUTE + 30_000, '1 h'],
    [2 * HOUR, '2 h'],
    [90 * MINUTE, '1 h 30 min'],
    [3 * HOUR + 59 * MINUTE, '3 h 59 min'],
  ])('%i ms is %s', (ms, text) => {
    expect(formatRelative(ms)).toBe(text);
  });
});

describe('the clock time of a reset', () => {
  const at = new Date(2026, 10, 22, 17, 44, 10).getTime();
  const clock = (seconds: boolean) =>
    new Date(at).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
  it('has seconds only when the time is less than two minutes ahead', () => {
    expect(formatClock(at, at - 119_999)).toBe(clock(true));
    expect(formatClock(at, at - 120_000)).toBe(clock(false));
    expect(formatClock(at)).toBe(clock(false));
    expect(clock(true)).not.toBe(clock(false));
  });
});

describe('durations in a message and in a countdown', () => {
  it('formats durations', () => {
    expect(formatRelative(400)).toBe('1 s');
    expect(formatRelative(9_000)).toBe('9 s');
    expect(formatRelative(42_000)).toBe('40 s');
    // Whole-second reset headers overshoot by up to a second: a 20 s window still reads 20 s, an hour 1 h.
    expect(formatRelative(20_900)).toBe('20 s');
    expect(formatRelative(19_990)).toBe('20 s');
    expect(formatRelative(57_600)).toBe('1 min');
    expect(formatRelative(3_600_900)).toBe('1 h');
    expect(formatRelative(3_599_100)).toBe('1 h');
    expect(formatRelative(14 * 60_000)).toBe('14 min');
    expect(formatRelative(125 * 60_000)).toBe('2 h 5 min');
    expect(formatCountdown(252_000)).toBe('4m 12s');
    expect(formatCountdown(9_000)).toBe('9s');
  });
});
