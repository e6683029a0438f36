// JSON documents as gh and httpie print them on a terminal: indented, keys, strings and literals in
// colour; plain when piped or colour is off. The text is jsonText's, so server text stays escaped.
import type { IO } from '../io.js';
import { jsonText } from './json-text.js';

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\btrue\b|\bfalse\b|\bnull\b/g;
const KEY = '\u001b[1;34m';
const STRING = '\u001b[32m';
const LITERAL = '\u001b[33m';
const NULL = '\u001b[2m';
const RESET = '\u001b[0m';

/** Colours JSON text token by token (keys, strings, numbers and booleans, null). */
export function colourJson(text: string): string {
  return text.replace(TOKEN, (token: string, string: string | undefined, colon: string | undefined) => {
    if (string !== undefined) return colon === undefined ? `${STRING}${string}${RESET}` : `${KEY}${string}${RESET}${colon}`;
    return `${token === 'null' ? NULL : LITERAL}${token}${RESET}`;
  });
}

/** `value` as an indented JSON document and a newline, coloured where stdout shows colour. */
export function jsonDocument(io: Pick<IO, 'colorOut'>, value: unknown): string {
  const text = jsonText(value, 2);
  return `${io.colorOut ? colourJson(text) : text}\n`;
}
