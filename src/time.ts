// Durations and clock times, once: how rep reads a duration (`90s`, `15m`, `1h30m`) and how it writes
// one: in a sentence (`14 min`), as a countdown (`4m 12s`), or as a local clock time (`18:42`).

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** The longest delay Node's timers hold (2^31 - 1 ms): a longer one fires at once. */
export const MAX_DELAY_MS = 2 ** 31 - 1;
export const MAX_DELAY_SECONDS = Math.floor(MAX_DELAY_MS / 1000);

/**
 * `90` and `90s` are seconds, `15m` minutes, `1h` hours (also `1h30m`), up to what a timer holds
 * (`untimed`: a look back in time, `--since 600h`, has no timer: up to what is exact in a double);
 * returns milliseconds. Every duration rep reads (options, REP_MAX_AGE, `--since`) is read here;
 * throws RangeError saying what was expected.
 */
export function readDuration(value: string, { untimed = false }: { untimed?: boolean } = {}): number {
  const text = value.trim().toLowerCase();
  const ms = durationMs(text);
  if (ms === undefined || (untimed && !Number.isSafeInteger(ms))) throw new RangeError('expected a duration such as 90, 90s, 15m or 1h');
  if (!untimed && ms > MAX_DELAY_MS)
    throw new RangeError(`expected a duration such as 90, 90s, 15m or 1h, at most ${formatDuration(MAX_DELAY_SECONDS)} (about 24 days)`);
  return ms;
}

function durationMs(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!text || !match) return undefined;
  // Stryker disable next-line StringLiteral: Number('') is 0 as well
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/** `596h31m23s`, in the form readDuration reads. */
function formatDuration(seconds: number): string {
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m${seconds % 60}s`;
}

/**
 * A duration as a person reads it in a sentence: `5 s`, `20 s`, `14 min`, `1 h`, `2 h 5 min`. Rounded
 * to the nearest step (seconds, then 5 s from 10 s on, then minutes), not up: reset headers in whole
 * seconds already overshoot by up to a second, --wait sleeps a margin past the reset anyway, and
 * the clock time shown beside it is exact.
 */
export function formatRelative(ms: number): string {
  const seconds = ms / 1000;
  // Stryker disable next-line EqualityOperator: at exactly 9.5 s both branches say "10 s"
  if (seconds < 9.5) return `${Math.max(1, Math.round(seconds))} s`;
  const fives = Math.round(seconds / 5) * 5;
  if (fives < 60) return `${fives} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A duration for a countdown: `4m 12s`, `1h 02m`, `9s`. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * Local clock time in the locale's one form (`18:42`, `6:42 PM`), with seconds when `nowMs` is given and
 * the time is less than two minutes ahead. Every clock time rep prints goes through here.
 */
export function formatClock(atMs: number, nowMs?: number): string {
  const seconds = nowMs !== undefined && atMs - nowMs < 120_000;
  return new Date(atMs).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}) });
}
