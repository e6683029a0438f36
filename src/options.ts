// Parsers for option values: each turns one argv string into a value or a usage error (exit 2).
import { InvalidArgumentError } from 'commander';

export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
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

/** `90` and `90s` are seconds, `15m` minutes, `1h` hours (also `1h30m`); returns milliseconds. */
export function parseDuration(value: string): number {
  const text = value.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!text || !match) throw new InvalidArgumentError('expected a duration such as 90, 90s, 15m or 1h');
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/** A gate's threshold (`--fail-under 60`, `--fail-on-drop 5`): 0 or more, on the server's own scale. */
export function scoreThreshold(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new InvalidArgumentError('expected a number such as 60 or 4.5 (0 or more)');
  return number;
}
