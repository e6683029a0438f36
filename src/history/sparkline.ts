// A one-line chart of a series of scores, for the history table: ▁ the lowest, █ the highest.
const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/** A constant series (or a single point) sits mid-height: no rise, no fall. */
const LEVEL_BAR = '▄';

/** One bar per score, scaled from the series' minimum to its maximum; '' for none. */
export function sparkline(scores: readonly number[]): string {
  const finite = scores.filter((score) => Number.isFinite(score));
  if (finite.length === 0) return '';
  let min = finite[0]!;
  let max = finite[0]!;
  for (const score of finite) {
    min = Math.min(min, score);
    max = Math.max(max, score);
  }
  if (max === min) return LEVEL_BAR.repeat(finite.length);
  return finite.map((score) => BARS[Math.round(((score - min) / (max - min)) * (BARS.length - 1))]).join('');
}
