// JSON text for stdout: equal in meaning to the server's body, but unable to drive a terminal (what
// JSON leaves unescaped yet a terminal acts on is written as \uXXXX escapes: see text.ts).
import { escapeTerminalActive, serializeJson } from '../text.js';

/** The JSON text of `value` with the escapes above; `undefined` (no body at all) is written as `null`. */
export function jsonText(value: unknown, indent?: number): string {
  return escapeTerminalActive(serializeJson(value, indent ?? 0));
}
