// Parsers for option values: each turns one argv string into a value or a usage error (exit 2).
import { InvalidArgumentError } from 'commander';
import { hasControlCharacter } from './text.js';
import { MAX_DELAY_SECONDS, readDuration } from './time.js';

/** Seconds in plain decimal notation (`30`, `0.5`), from above 0 up to what a timer holds. */
export function positiveNumber(value: string): number {
  const number = /^(?:\d+\.?\d*|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!(number > 0 && number <= MAX_DELAY_SECONDS))
    throw new InvalidArgumentError(`expected a positive number of seconds, at most ${MAX_DELAY_SECONDS} (about 24 days)`);
  return number;
}

/**
 * A count in plain decimal digits (`4`, ` 4 `), or NaN. Number() alone reads `` and ` ` as 0 and
 * `0x10`, `0b11` and `1e1` as other numbers: `--retries ""` (an unset variable) was 0 retries.
 */
function decimalInteger(value: string): number {
  return /^\d+$/.test(value.trim()) ? Number(value) : NaN;
}

export function wholeNumber(value: string): number {
  const number = decimalInteger(value);
  if (!Number.isInteger(number)) throw new InvalidArgumentError('expected a whole number (0 or more)'); // NaN for a sign or a fraction
  return number;
}

export function positiveInteger(value: string): number {
  const number = decimalInteger(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a whole number (1 or more)');
  return number;
}

export function portNumber(value: string): number {
  const number = decimalInteger(value);
  if (!Number.isInteger(number) || number > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return number;
}

/**
 * `rep sandbox --host`: a name or address as typed, no blank in it. Node reads an empty host as every
 * interface (and the base URL printed for it, `http://:PORT/api`, is none).
 */
export function hostName(value: string): string {
  if (value === '' || /\s/.test(value) || hasControlCharacter(value))
    throw new InvalidArgumentError('expected a host name or address, such as 127.0.0.1 or localhost');
  return value;
}

/** `--max-wait`, `--window`, `--max-age`: a duration (time.ts), in milliseconds. */
export function parseDuration(value: string): number {
  try {
    return readDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** A gate's threshold (`--fail-under 60`, `--fail-on-drop 5`): 0 or more, on the server's own scale. */
export function scoreThreshold(value: string): number {
  const number = /^(?:\d+\.?\d*|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(number)) throw new InvalidArgumentError('expected a number such as 60 or 4.5 (0 or more)');
  return number;
}
