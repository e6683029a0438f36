// Text from outside rep (server answers, files) is data. It never drives the terminal: scrubText and
// scrubLine remove ANSI escape sequences (CSI, OSC, DCS/APC/PM/SOS, two-byte ESC forms), C0/C1 controls
// and bidi overrides. JSON is read one way: parseJson and isRecord.

const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u009d\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
// C0 and C1 controls, DEL, and the Unicode bidi embedding/override/isolate marks (Trojan Source).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAKS = /[\t\n\r\u2028\u2029]+/g;

/** Removes escape sequences and controls; keeps tabs and newlines. */
export function scrubText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
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
