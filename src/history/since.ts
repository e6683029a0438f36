// `--since DURATION|DATE` for `rep history` (and `--before` for its prune): a duration back from now (90s, 15m, 12h, 30d, 2w, 1y, 1d12h)
// or a date (`2026-11-01`: local midnight) or an ISO timestamp (`2026-11-01T08:00:00Z`, local without an offset).
import { UsageError } from '../errors.js';
import { DAY_MS, readDuration } from '../time.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
/** Years (365 days), weeks and days lead; hours, minutes and seconds are readDuration's (untimed: `600h` is 25 days back). */
const DAYS = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(.*)$/i;

/** The earliest time (epoch ms) `--since` lets through; a usage error for anything else. */
export function parseSince(text: string, nowMs: number, flag = '--since'): number {
  const value = text.trim();
  const date = DATE.exec(value);
  if (date) return validDate(value, new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime(), date, flag);
  const stamp = TIMESTAMP.exec(value);
  if (stamp) return validDate(value, Date.parse(value), stamp, flag);
  return nowMs - durationMs(value, flag);
}

function durationMs(value: string, flag: string): number {
  const match = DAYS.exec(value);
  // A line break stops the pattern: such text is refused, not read as no time back at all (now).
  if (!match) throw sinceError(value, flag);
  // Stryker disable next-line StringLiteral: Number('') is 0 as well, and the last group always takes part
  const [, years = '0', weeks = '0', days = '0', rest = ''] = match;
  let restMs: number;
  try {
    restMs = rest === '' && value !== '' ? 0 : readDuration(rest, { untimed: true });
  } catch {
    throw sinceError(value, flag);
  }
  const ms = (Number(years) * 365 + Number(weeks) * 7 + Number(days)) * DAY_MS + restMs;
  if (!Number.isSafeInteger(ms)) throw sinceError(value, flag); // more years than a number holds
  return ms;
}

/** The time, unless the text names a day that does not exist (2026-02-30) or is no time at all. */
function validDate(value: string, ms: number, parts: RegExpExecArray, flag: string): number {
  const [, year, month, day] = parts.map(Number) as [number, number, number, number];
  const check = new Date(year, month - 1, day);
  if (!Number.isFinite(ms) || check.getFullYear() !== year) throw sinceError(value, flag);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a day the month lacks (02-30, 11-00) moves the month and the day alike: either check refuses it
  if (check.getMonth() !== month - 1 || check.getDate() !== day) throw sinceError(value, flag);
  return ms;
}

function sinceError(value: string, flag: string): UsageError {
  return new UsageError(`invalid ${flag} ${JSON.stringify(value)}: expected a duration or a date`, {
    hint: `e.g. ${flag} 30d, ${flag} 12h, ${flag} 2026-11-01 or ${flag} 2026-11-01T08:00:00Z`,
  });
}
