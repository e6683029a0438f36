// JSON text for stdout: equal in meaning to the server's body, but unable to drive a terminal, and
// written without recursion, so a body nested as deep as the 8 MB cap allows is written like any other.

// C1 controls, bidi marks and line/paragraph separators: legal unescaped in JSON strings, yet a
// terminal may act on them, so they are written as \uXXXX escapes (JSON.stringify already escapes C0).
const TERMINAL_ACTIVE = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/**
 * Levels indented when pretty-printing; deeper values are written compactly on their line. Indenting
 * every level would make n levels take n² spaces: 8 KB of `[[[…]]]` became 32 MB.
 */
export const MAX_INDENTED_DEPTH = 8;

function escapeTerminalActive(json: string): string {
  return json.replace(TERMINAL_ACTIVE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The JSON text of `value` with the escapes above; `undefined` (no body at all) is written as `null`. */
export function jsonText(value: unknown, indent?: number): string {
  return escapeTerminalActive(serializeJson(value, indent ?? 0));
}

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
