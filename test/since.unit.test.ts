// `--since` (rep history, rep report) and `--before` (rep history prune): a duration back from now
// (90s, 15m, 12h, 30d, 2w, 1y, 1d12h), a date (local midnight) or an ISO timestamp, and the usage error
// for anything else. The module is loaded anew in each test: its patterns are made as it loads, and the
// mutation run ties them only to the tests that load it (CONTRIBUTING.md, "Mutation testing").
import { describe, expect, it, vi } from 'vitest';

/** parseSince with the UsageError class of the same load (a fresh load makes a new class). */
const fresh = async () => {
  vi.resetModules();
  const { parseSince } = await import('../src/history/since.js');
  const { UsageError } = await import('../src/errors.js');
  return { parseSince, UsageError };
};

const now = Date.parse('2026-11-10T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('--since DURATION', () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['15m', 15 * MINUTE],
    ['12h', 12 * HOUR],
    ['1h30m', 90 * MINUTE],
    ['30d', 30 * DAY],
    ['2w', 14 * DAY],
    ['12w', 84 * DAY],
    ['1y', 365 * DAY],
    ['2y', 730 * DAY],
    ['10y', 3650 * DAY],
    ['1d12h', 36 * HOUR],
    ['600h', 600 * HOUR], // more than a timer holds: a look back has none
    ['9000h30m', 9000 * HOUR + 30 * MINUTE],
    ['1y2w3d4h5m', (365 + 14 + 3) * DAY + 4 * HOUR + 5 * MINUTE],
    [' 7D ', 7 * DAY],
    ['2W1D', 15 * DAY],
    ['1Y', 365 * DAY],
    ['0', 0],
  ])('%j goes back that far from now', async (text, ms) => {
    const { parseSince } = await fresh();
    expect(parseSince(text, now)).toBe(now - ms);
  });
});

describe('--since DATE', () => {
  it('a date is local midnight, around spaces too', async () => {
    const { parseSince } = await fresh();
    expect(parseSince('2026-11-01', now)).toBe(new Date(2026, 10, 1).getTime());
    expect(parseSince(' 2026-02-28 ', now)).toBe(new Date(2026, 1, 28).getTime());
    expect(parseSince('2028-02-29', now)).toBe(new Date(2028, 1, 29).getTime());
  });

  it('a timestamp is its instant: with Z, an offset with or without a colon, or local without one', async () => {
    const { parseSince } = await fresh();
    expect(parseSince('2026-11-01T08:00:00Z', now)).toBe(Date.parse('2026-11-01T08:00:00Z'));
    expect(parseSince('2026-11-01T08:00Z', now)).toBe(Date.parse('2026-11-01T08:00:00Z'));
    expect(parseSince('2026-11-01T08:00:00.5+01:00', now)).toBe(Date.parse('2026-11-01T07:00:00.500Z'));
    expect(parseSince('2026-11-01T08:00:00-0230', now)).toBe(Date.parse('2026-11-01T10:30:00Z'));
    expect(parseSince('2026-11-01T08:00:00.250Z', now)).toBe(Date.parse('2026-11-01T08:00:00.250Z'));
    expect(parseSince('2026-11-01T08:00:00.123456789Z', now)).toBe(Date.parse('2026-11-01T08:00:00.123Z'));
    expect(parseSince('2026-11-01T08:00', now)).toBe(new Date(2026, 10, 1, 8, 0).getTime());
    expect(parseSince('2026-11-01T08:00:30', now)).toBe(new Date(2026, 10, 1, 8, 0, 30).getTime());
  });
});

describe('--since and --before refuse anything else', () => {
  it.each([
    ['', 'nothing'],
    ['yesterday', 'a word'],
    ['-5', 'a negative number'],
    ['30 days', 'a unit spelled out'],
    ['d', 'a unit without a number'],
    ['1.5d', 'a fraction of a day'],
    [`${'9'.repeat(400)}h`, 'more hours than a number holds'],
    [`${'9'.repeat(400)}y`, 'more years than a number holds'],
    ['1d\n12h', 'two lines'],
    ['30d\nfrom the notes', 'a duration with a second line'],
    ['2026-02-30', 'a day the month does not have'],
    ['2026-04-31', 'a day the month does not have'],
    ['2026-11-00', 'day 0'],
    ['2026-13-01', 'month 13'],
    ['2026-00-10', 'month 0'],
    ['0050-01-01', 'a year before 100, not read as 1950'],
    ['0050-01-01T08:00Z', 'a year before 100, not read as 1950'],
    ['12026-11-01', 'a five-digit year'],
    ['+002026-11-01T08:00Z', 'an expanded ISO year'],
    ['2026-11-1', 'a one-digit day'],
    ['2026-1-01', 'a one-digit month'],
    ['26-11-01', 'a two-digit year'],
    ['2026-11-01x', 'a date with more after it'],
    ['since 2026-11-01', 'a date with more before it'],
    ['2026-11-01T25:00', 'hour 25'],
    ['2026-11-01T8:00', 'a one-digit hour'],
    ['2026-11-01T08:0', 'a one-digit minute'],
    ['2026-11-01T08:00:5Z', 'one-digit seconds'],
    ['2026-11-01T08:00:00.Z', 'a point without a fraction'],
    ['2026-11-01T08:00:00.1234567891Z', 'more than nine digits of fraction'],
    ['2026-11-01T08:00:00+1:00', 'a one-digit offset hour'],
    ['2026-11-01T08:00:00+01:0', 'a one-digit offset minute'],
    ['2026-11-01T08:00:00+01', 'an offset without minutes'],
    ['2026-11-01T08:00:00 +01:00', 'a space before the offset'],
    ['2026-02-30T08:00:00Z', 'a day the month does not have, in a timestamp'],
    ['11/01/2026', 'a date in another order'],
  ])('%j (%s) is a usage error saying what is expected', async (text) => {
    const { parseSince, UsageError } = await fresh();
    let error: unknown;
    try {
      parseSince(text, now);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as InstanceType<typeof UsageError>).message).toBe(`invalid --since ${JSON.stringify(text.trim())}: expected a duration or a date`);
    expect((error as InstanceType<typeof UsageError>).hint).toBe('e.g. --since 30d, --since 12h, --since 2026-11-01 or --since 2026-11-01T08:00:00Z');
  });

  it('refuses a --before of two lines rather than reading it as now, which would prune every point', async () => {
    const { parseSince, UsageError } = await fresh();
    expect(() => parseSince('2y\nkeep two years', now, '--before')).toThrow(UsageError);
    expect(() => parseSince('2y\u2028two years', now, '--before')).toThrow(UsageError);
  });

  it('names --before when prune reads it, in the message and the examples', async () => {
    const { parseSince, UsageError } = await fresh();
    expect(parseSince('2y', now, '--before')).toBe(now - 730 * DAY);
    expect(parseSince('2026-01-01', now, '--before')).toBe(new Date(2026, 0, 1).getTime());
    expect(() => parseSince(' last year ', now, '--before')).toThrow(
      expect.objectContaining({
        constructor: UsageError,
        message: 'invalid --before "last year": expected a duration or a date',
        hint: 'e.g. --before 30d, --before 12h, --before 2026-11-01 or --before 2026-11-01T08:00:00Z',
      }),
    );
  });
});
