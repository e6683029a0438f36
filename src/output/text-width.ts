// How many terminal columns text takes, so a line can be cut to fit before it wraps. The work is
// linear: text is segmented a bounded chunk at a time, and cutting stops once the width is exceeded.

// Made on first use: constructing a segmenter loads ICU's break rules (milliseconds), which a table
// of ASCII text never needs (its runs are counted without it).
let segmenter: Intl.Segmenter | undefined;
// East Asian wide and fullwidth blocks, flags and emoji take two columns; marks and joiners none.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f1e6}-\u{1f1ff}\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}/u;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the zero-width characters one by one, the joiner among them, on purpose
const ZERO_WIDTH = /^[\p{Mark}\u200b-\u200d\ufe0f]*$/u;
const SGR = /\u001b\[[0-9;]*m/g;
/** Code units segmented at a time: V8's segmenter slows with the square of the length of the text it is given. */
const CHUNK = 256;
/** Code units a cut reads per column at most: denser text (piles of marks, zero-width characters) is cut there. */
const MAX_UNITS_PER_COLUMN = 16;

function graphemeWidth(grapheme: string): number {
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

/** Printable ASCII: one column a character, and a character after it never joins its grapheme. */
function isPlain(code: number): boolean {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: only speed: without the fast path the segmenter gives the same widths (test/output-edge.test.ts guards the time)
  return code >= 0x20 && code <= 0x7e;
}

/** The first half of a surrogate pair (a character beyond the Basic Multilingual Plane takes two code units). */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Counts graphemes as they are found; `add` returns true once the text is known to be wide enough. */
type Add = (columns: number, start: number) => boolean;

/**
 * Walks the graphemes of text[from, to) until `add` says stop (true when it did). Runs of printable
 * ASCII are counted a character at a time; the rest goes to the segmenter a bounded chunk at a time,
 * each chunk starting again where its last grapheme starts, since that grapheme may go on in the next.
 */
function walk(text: string, from: number, to: number, add: Add): boolean {
  // Stryker disable ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator,BooleanLiteral,MethodExpression,BlockStatement: only speed: without the fast path the segmenter gives the same widths (test/output-edge.test.ts guards the time)
  for (let start = from; start < to; ) {
    // A range ends at the text's end or at a colour code, which no grapheme runs into.
    for (; start < to && isPlain(text.charCodeAt(start)) && (start + 1 === to || isPlain(text.charCodeAt(start + 1))); start += 1) {
      if (add(1, start)) return true;
    }
    if (start === to) break;
    let end = Math.min(to, start + CHUNK);
    for (let next = start + 1; next + 1 < end; next += 1) {
      if (isPlain(text.charCodeAt(next)) && isPlain(text.charCodeAt(next + 1))) {
        end = next + 1; // the chunk ends on the run's first character; the run is counted from there
        break;
      }
    }
    // Stryker restore all
    // A chunk never ends between the halves of a surrogate pair: a lone half would end the grapheme before it.
    if (end < to && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    let last: { segment: string; start: number } | undefined;
    segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
    for (const { segment, index } of segmenter.segment(text.slice(start, end))) {
      // Stryker disable next-line BooleanLiteral: only speed: stopping early or not, the width and the cut come out the same
      if (last && add(graphemeWidth(last.segment), last.start)) return true;
      last = { segment, start: start + index };
    }
    if (!last) break;
    // A grapheme as long as its chunk is taken as it is (only absurd text has one); so is the text's last one.
    if (end === to || last.start === start) {
      // Stryker disable next-line BooleanLiteral: only speed: stopping early or not, the width and the cut come out the same
      if (add(graphemeWidth(last.segment), last.start)) return true;
      start = end;
    } else {
      start = last.start;
    }
  }
  return false;
}

/**
 * Columns of text, measured no further than `stopAbove` columns (or MAX_UNITS_PER_COLUMN code units a
 * column: then the width is taken as infinite); `keep` is the offset where the first `keepWidth` columns end.
 */
function measure(text: string, stopAbove: number, keepWidth: number): { width: number; keep: number } {
  let width = 0;
  let keep = text.length;
  const add: Add = (columns, start) => {
    if (start > (stopAbove + 1) * MAX_UNITS_PER_COLUMN) {
      keep = Math.min(keep, start);
      width = Infinity;
      return true;
    }
    if (keep === text.length && width + columns > keepWidth) keep = start;
    width += columns;
    // Stryker disable next-line ConditionalExpression: only speed: stopping early or not, the width and the cut come out the same
    return width > stopAbove;
  };
  // The colour codes this program adds itself take no columns.
  let from = 0;
  for (const match of text.matchAll(SGR)) {
    if (walk(text, from, match.index, add)) return { width, keep };
    from = match.index + match[0].length;
  }
  walk(text, from, text.length, add);
  return { width, keep };
}

/** Columns taken by `text`, ignoring the colour codes this program adds itself. */
export function displayWidth(text: string): number {
  return measure(text, Infinity, Infinity).width;
}

/** Cuts plain text to at most `width` columns, ending in `…` when anything was cut; reads no further than the cut. */
export function truncateToWidth(text: string, width: number): string {
  const { width: used, keep } = measure(text, width, width - 1);
  if (used <= width) return text;
  if (width <= 0) return '';
  return `${text.slice(0, keep)}…`;
}
