// JSON text for stdout: equal in meaning to the server's body, but unable to drive a terminal.

// C1 controls, bidi marks and line/paragraph separators: legal unescaped in JSON strings, yet a
// terminal may act on them, so they are written as \uXXXX escapes (JSON.stringify already escapes C0).
const TERMINAL_ACTIVE = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeTerminalActive(json: string): string {
  return json.replace(TERMINAL_ACTIVE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `JSON.stringify` with the escapes above; `undefined` (no body at all) is written as `null`. */
export function jsonText(value: unknown, indent?: number): string {
  return escapeTerminalActive(JSON.stringify(value, null, indent) ?? 'null');
}
