// Text from outside rep (server answers, files) is data. It never drives the terminal: scrubText and
// scrubLine remove ANSI escape sequences (CSI, OSC, DCS/APC/PM/SOS, two-byte ESC forms), C0/C1 controls,
// bidi overrides, zero-width and tag characters. JSON is read one way: parseJson and isRecord.

const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u009d\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
/**
 * Invisible characters that carry no text: bidi marks, embeddings, overrides and isolates (Trojan
 * Source), zero-width space, word joiner, invisible operators, BOM, Mongolian vowel separator, and the
 * tag characters (hidden ASCII). A character class body for a `u` regular expression, shared with the
 * history's checks of what scrubbing changes.
 */
export const INVISIBLE_CHARACTERS = '\\u061c\\u180e\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\u{e0000}-\\u{e007f}';
// C0 and C1 controls, DEL, the invisibles above; and a zero-width joiner or non-joiner where no text
// uses it (emoji sequences join with ZWJ, Persian and Indic scripts with ZWNJ).
const CONTROL = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE_CHARACTERS}]|(?<![\\p{Extended_Pictographic}\\u{1f3fb}-\\u{1f3ff}\\ufe0f])\\u200d|\\u200d(?!\\p{Extended_Pictographic})|(?<![\\p{L}\\p{M}])\\u200c|\\u200c(?![\\p{L}\\p{M}])`,
  'gu',
);
const SEPARATORS = /[\u2028\u2029]/g;
const LINE_BREAKS = /[\t\n\r\u2028\u2029]+/g;

/** Removes escape sequences, controls and invisible characters; keeps tabs and newlines (a line or paragraph separator is one). */
export function scrubText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '').replace(SEPARATORS, '\n');
}

/** As scrubText, and folds tabs and line breaks into single spaces: for table cells and messages. */
export function scrubLine(text: string): string {
  return scrubText(text).replace(LINE_BREAKS, ' ');
}

export type JsonRecord = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses JSON text, a leading byte-order mark ignored (editors on Windows write one). Throws SyntaxError. */
export function parseJson(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
}
