// `--since DURATION|DATE` for `rep history`: a duration back from now (90s, 15m, 12h, 30d, 2w, 1d12h)
// or a date (`2026-11-01`: local midnight) or an ISO timestamp (`2026-11-01T08:00:00Z`, local without an offset).
import { UsageError } from '../errors.js';
import { DAY_MS, readDuration } from '../time.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
/** Days and weeks lead (readDuration, shared with --max-wait, stops at hours). */
const DAYS = /^(?:(\d+)w)?(?:(\d+)d)?(.*)$/i;

/** The earliest time (epoch ms) `--since` lets through; a usage error for anything else. */
export function parseSince(text: string, nowMs: number): number {
  const value = text.trim();
  const date = DATE.exec(value);
  if (date) return validDate(value, new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime(), date);
  const stamp = TIMESTAMP.exec(value);
  if (stamp) return validDate(value, Date.parse(value), stamp);
  return nowMs - durationMs(value);
}

function durationMs(value: string): number {
  const [, weeks = '0', days = '0', rest = ''] = DAYS.exec(value) ?? [];
  try {
    const restMs = rest === '' && value !== '' ? 0 : readDuration(rest);
    return (Number(weeks) * 7 + Number(days)) * DAY_MS + restMs;
  } catch {
    throw sinceError(value);
  }
}

/** The time, unless the text names a day that does not exist (2026-02-30) or is no time at all. */
function validDate(value: string, ms: number, parts: RegExpExecArray): number {
  const [, year, month, day] = parts.map(Number) as [number, number, number, number];
  const check = new Date(year, month - 1, day);
  if (!Number.isFinite(ms) || check.getFullYear() !== year || check.getMonth() !== month - 1 || check.getDate() !== day) throw sinceError(value);
  return ms;
}

function sinceError(value: string): UsageError {
  return new UsageError(`invalid --since ${JSON.stringify(value)}: expected a duration or a date`, {
    hint: 'e.g. --since 30d, --since 12h, --since 2026-11-01 or --since 2026-11-01T08:00:00Z',
  });
}
