// How many terminal columns text takes, so a line can be cut to fit before it wraps.

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
// East Asian wide and fullwidth blocks, and emoji, take two columns; marks and joiners none.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}/u;
const ZERO_WIDTH = /^[\p{Mark}\u200b-\u200d\ufe0f]*$/u;
const SGR = /\u001b\[[0-9;]*m/g;

function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

/** Columns taken by `text`, ignoring the colour codes this program adds itself. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text.replace(SGR, ''))) width += graphemeWidth(segment);
  return width;
}

/** Cuts plain text to at most `width` columns, ending in `…` when anything was cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let kept = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const next = graphemeWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}
