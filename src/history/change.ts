// The change of a score since the previous recorded point, and how it reads: "▼ 7.0 since 2026-11-01".
// The arrow carries the direction, so the text means the same with or without colour.
import { formatDecimal } from '../numbers.js';

export interface ScorePoint {
  /** ISO 8601. */
  at: string;
  score: number;
}

export interface Change {
  /** The previous point's score. */
  previous: number;
  /** This score minus the previous one (rounded past float noise: 80.1 - 75.1 is 5). */
  delta: number;
  /** When the previous point was recorded (ISO 8601). */
  at: string;
  direction: 'up' | 'down' | 'same';
}

/** The change from a previous point to `score`; undefined without a previous point. */
export function changeFrom(previous: ScorePoint | undefined, score: number): Change | undefined {
  if (!previous) return undefined;
  const delta = roundScore(score - previous.score);
  return { previous: previous.score, delta, at: previous.at, direction: delta > 0 ? 'up' : delta < 0 ? 'down' : 'same' };
}

/** The change of the last point of a series (oldest first) since the one before it; undefined with fewer than two. */
export function changeSince(points: readonly ScorePoint[]): Change | undefined {
  const last = points.at(-1);
  return last && changeFrom(points.at(-2), last.score);
}

/** `▼ 7.0`, `▲ 1.5` or `=`; with `since`, followed by ` since 2026-11-01` (the previous point's local date). */
export function changeText(change: Change, options: { since?: boolean } = {}): string {
  const arrow = change.direction === 'up' ? `▲ ${scoreText(change.delta)}` : change.direction === 'down' ? `▼ ${scoreText(-change.delta)}` : '=';
  return options.since ? `${arrow} since ${localDate(change.at)}` : arrow;
}

/** A score as people read it in a sentence: one decimal at least, two at most (`58.0`, `4.25`). */
export function scoreText(score: number): string {
  return formatDecimal(score, { minDecimals: 1 });
}

/** Scores are given with a few decimals at most: anything past six is float noise. */
export function roundScore(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** `2026-11-01`, in the local time zone (the day the user lived through). */
export function localDate(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `2026-11-01 08:05`, in the local time zone. */
export function localDateTime(iso: string): string {
  const date = new Date(iso);
  return `${localDate(iso)} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
