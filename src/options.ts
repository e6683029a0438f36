// Parsers for option values: each turns one argv string into a value or a usage error (exit 2).
import { InvalidArgumentError } from 'commander';

/** The longest delay Node's timers hold (2^31 - 1 ms): a longer one fires at once. */
export const MAX_DELAY_MS = 2 ** 31 - 1;
const MAX_SECONDS = Math.floor(MAX_DELAY_MS / 1000);

/** Seconds in plain decimal notation (`30`, `0.5`), from above 0 up to what a timer holds. */
export function positiveNumber(value: string): number {
  const number = /^(?:\d+\.?\d*|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(number > 0 && number <= MAX_SECONDS)) throw new InvalidArgumentError(`expected a positive number of seconds, at most ${MAX_SECONDS} (about 24 days)`);
  return number;
}

export function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number (0 or more)');
  return number;
}

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a whole number (1 or more)');
  return number;
}

export function portNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return number;
}

/**
 * `90` and `90s` are seconds, `15m` minutes, `1h` hours (also `1h30m`), up to what a timer holds;
 * returns milliseconds. Every duration option (`--max-wait`, `--window`) goes through here.
 */
export function parseDuration(value: string): number {
  const text = value.trim().toLowerCase();
  const ms = durationMs(text);
  if (ms === undefined) throw new InvalidArgumentError('expected a duration such as 90, 90s, 15m or 1h');
  if (ms > MAX_DELAY_MS)
    throw new InvalidArgumentError(`expected a duration such as 90, 90s, 15m or 1h, at most ${formatDuration(MAX_SECONDS)} (about 24 days)`);
  return ms;
}

function durationMs(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!text || !match) return undefined;
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/** `596h31m23s`, in the form parseDuration reads. */
function formatDuration(seconds: number): string {
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m${seconds % 60}s`;
}

/** A gate's threshold (`--fail-under 60`, `--fail-on-drop 5`): 0 or more, on the server's own scale. */
export function scoreThreshold(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new InvalidArgumentError('expected a number such as 60 or 4.5 (0 or more)');
  return number;
}
