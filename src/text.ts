// Text from outside rep (server answers, files) is data. It never drives the terminal: scrubText and
// scrubLine remove ANSI escape sequences (CSI, OSC, DCS/APC/PM/SOS, two-byte ESC forms), C0/C1 controls,
// bidi overrides, zero-width and tag characters. JSON is read one way (parseJson, isRecord) and written
// one way (serializeJson: without recursion, so a body nested as deep as the size cap allows is written).

/**
 * Whether text holds a C0 control character or DEL (a tab, a line break, an escape). The URL parser
 * drops tabs and line breaks wherever they are, so a URL given with one (two lines of a file read with
 * "$(cat …)") would be a place never typed: such text is refused, not read.
 */
export function hasControlCharacter(text: string): boolean {
  return /[\u0000-\u001f\u007f]/.test(text);
}

/** Bidi marks, embeddings, overrides and isolates: a character class body. */
const BIDI_MARKS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u009d\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
/**
 * Invisible characters that carry no text: bidi marks, embeddings, overrides and isolates (Trojan
 * Source), zero-width space, word joiner, invisible operators, BOM, Mongolian vowel separator, and the
 * tag characters (hidden ASCII). A character class body for a `u` regular expression, shared with the
 * history's checks of what scrubbing changes.
 */
export const INVISIBLE_CHARACTERS = `${BIDI_MARKS}\\u180e\\u200b\\u2060-\\u2064\\ufeff\\u{e0000}-\\u{e007f}`;
// C0 and C1 controls, DEL, the invisibles above; and a zero-width joiner or non-joiner where no text
// uses it (emoji sequences join with ZWJ, Persian and Indic scripts with ZWNJ).
// Built on first use: parsing its Unicode property classes costs a run a fraction of a millisecond,
// and most runs (JSON to a pipe) never scrub.
let control: RegExp | undefined;
const controlPattern = () =>
  new RegExp(
    `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE_CHARACTERS}]|(?<![\\p{Extended_Pictographic}\\u{1f3fb}-\\u{1f3ff}\\ufe0f])\\u200d|\\u200d(?!\\p{Extended_Pictographic})|(?<![\\p{L}\\p{M}])\\u200c|\\u200c(?![\\p{L}\\p{M}])`,
    'gu',
  );
const SEPARATORS = /[\u2028\u2029]/g;
// What of the above JSON leaves unescaped in strings (JSON.stringify escapes C0): C1 controls, bidi marks, line and paragraph separators.
const TERMINAL_ACTIVE = new RegExp(`[\\u0080-\\u009f\\u2028\\u2029${BIDI_MARKS}]`, 'g');
const LINE_BREAKS = /[\t\n\r\u2028\u2029]+/g;

/** Removes escape sequences, controls and invisible characters; keeps tabs and newlines (a line or paragraph separator is one). */
export function scrubText(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCE, '')
    .replace((control ??= controlPattern()), '')
    .replace(SEPARATORS, '\n');
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

/** JSON text with the characters a terminal acts on, which JSON may leave raw, written as \\uXXXX escapes. */
export function escapeTerminalActive(json: string): string {
  return json.replace(TERMINAL_ACTIVE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Levels indented when pretty-printing; deeper values are written compactly on their line. Indenting
 * every level would make n levels take n² spaces: 8 KB of `[[[…]]]` became 32 MB.
 */
export const MAX_INDENTED_DEPTH = 8;

/** An array or object being written: its entries, and how many are written. */
interface Open {
  entries: Array<[key: string | undefined, value: unknown]>;
  next: number;
  close: string;
  depth: number;
}

/**
 * `JSON.stringify(value, null, indent)` for values parsed from JSON, where levels below
 * MAX_INDENTED_DEPTH are indented and deeper ones compact. `undefined` is `null`. The engine's own
 * JSON.stringify (recursive, so limited in depth) writes what it can; the rest is written here.
 */
export function serializeJson(value: unknown, indent = 0): string {
  if (indent > 0 ? !nestsDeeperThan(value, MAX_INDENTED_DEPTH) : true) {
    try {
      return JSON.stringify(value, null, indent) ?? 'null';
    } catch (error) {
      if (!(error instanceof RangeError)) throw error; // too deep for the engine's stack
    }
  }
  return serializeWithStack(value, indent);
}

/** Whether a value holds arrays or objects more than `limit` levels down (walked without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[item: unknown, depth: number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** serializeJson with an explicit stack instead of recursion. */
function serializeWithStack(value: unknown, indent: number): string {
  const parts: string[] = [];
  const stack: Open[] = [];
  const indented = (depth: number) => indent > 0 && depth < MAX_INDENTED_DEPTH;
  const newline = (depth: number) => `\n${' '.repeat(indent * depth)}`;
  const write = (item: unknown, depth: number) => {
    if (item === null || typeof item !== 'object') {
      parts.push(JSON.stringify(item) ?? 'null');
      return;
    }
    const isArray = Array.isArray(item);
    const entries: Open['entries'] = isArray
      ? item.map((entry): [undefined, unknown] => [undefined, entry])
      : Object.entries(item).filter(([, entry]) => entry !== undefined && typeof entry !== 'function' && typeof entry !== 'symbol');
    if (entries.length === 0) {
      parts.push(isArray ? '[]' : '{}');
      return;
    }
    parts.push(isArray ? '[' : '{');
    stack.push({ entries, next: 0, close: isArray ? ']' : '}', depth });
  };

  write(value, 0);
  for (let top = stack.at(-1); top; top = stack.at(-1)) {
    const layout = indented(top.depth);
    if (top.next === top.entries.length) {
      stack.pop();
      parts.push(layout ? `${newline(top.depth)}${top.close}` : top.close);
      continue;
    }
    const [key, entry] = top.entries[top.next]!; // next < length, checked above
    if (top.next > 0) parts.push(',');
    if (layout) parts.push(newline(top.depth + 1));
    if (key !== undefined) parts.push(`${JSON.stringify(key)}:${layout ? ' ' : ''}`);
    top.next += 1;
    write(entry, top.depth + 1);
  }
  return parts.join('');
}
