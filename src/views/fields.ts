// Small, shape-agnostic helpers over parsed JSON: finding fields by any of their likely names,
// reading numbers that may arrive as strings, and flattening whatever is left into key/value rows.
import { isRecord, serializeJson, type JsonRecord } from '../text.js';
import { ENVELOPES } from './aliases.js';

export { isRecord, type JsonRecord };
/** A leftover field: its dotted path and its value, a number kept as a number so a table can format it. */
export type DetailRow = [string, string | number];

const NUMERIC_TEXT = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** A finite number, or a string that is exactly one ("87.4"); anything else is not a number. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value)) return Number(value);
  return undefined;
}

/** A non-empty string, or a number shown as text (an id or name may come as either). */
export function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The first of `names` whose value `read` accepts, with that key so the caller can mark it used
 * (own keys only, so `constructor` is never "found"); names in `skip` (keys already read) are passed over.
 */
export function findValue<T>(
  record: JsonRecord,
  names: readonly string[],
  read: (value: unknown, key: string) => T | undefined,
  skip?: readonly string[],
): { key: string; value: T } | undefined {
  // Indexed loops here and in the views' other walks of every body: a batch builds a view a name, and
  // until V8 optimizes the code, for-of's iterator costs more than the little work it walks over.
  // Stryker disable next-line EqualityOperator: one past the end asks for a key "undefined", which a body has no reason to hold
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!; // index < length
    if (!Object.hasOwn(record, name) || skip?.includes(name)) continue;
    const value = read(record[name], name);
    if (value !== undefined) return { key: name, value };
  }
  return undefined;
}

/** `a.b`, `a[0]`: the parts of a path into a body joined the way detail labels are. */
export function joinPath(...parts: string[]): string {
  let path = '';
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index]!; // index < length
    if (part !== '') path = path === '' || part.startsWith('[') ? path + part : `${path}.${part}`;
  }
  return path;
}

/** `target.push(...items)` without the spread, which overflows the stack past about 100,000 items. */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Beyond this depth a value is shown as compact JSON rather than split into more rows. */
const MAX_FLATTEN_DEPTH = 8;

/** Compact JSON of any depth. */
function compactJson(value: unknown): string {
  return serializeJson(value);
}

function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

function isScalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/**
 * Flattens any JSON value into `[dotted.key, text]` rows, appended to `rows`: objects by key, arrays of
 * records by `key[i]`, arrays of scalars joined with ", ". Iterative, so a deep or huge body cannot overflow the stack.
 */
export function flatten(value: unknown, prefix = '', rows: DetailRow[] = []): DetailRow[] {
  const pending: Array<{ key: string; value: unknown; depth: number }> = [{ key: prefix, value, depth: 0 }];
  while (pending.length > 0) {
    const item = pending.pop()!; // the loop condition guarantees one
    const label = item.key === '' ? 'value' : item.key;
    const scalar = typeof item.value === 'number' ? item.value : scalarText(item.value);
    if (scalar !== undefined) {
      rows.push([label, scalar]);
      continue;
    }
    if (item.depth >= MAX_FLATTEN_DEPTH) {
      rows.push([label, compactJson(item.value)]);
      continue;
    }
    const children = childrenOf(item.key, item.value);
    if (children === undefined) {
      rows.push([label, Array.isArray(item.value) ? item.value.map((entry) => scalarText(entry)).join(', ') : compactJson(item.value)]);
      continue;
    }
    if (children.length === 0) {
      rows.push([label, Array.isArray(item.value) ? '[]' : '{}']);
      continue;
    }
    // Pushed in reverse so rows come out in the body's own order.
    for (let index = children.length - 1; index >= 0; index -= 1) {
      const [key, child] = children[index]!;
      pending.push({ key, value: child, depth: item.depth + 1 });
    }
  }
  return rows;
}

/** The keyed children of an object or array; undefined for a non-empty array of scalars (shown joined). */
function childrenOf(key: string, value: unknown): Array<[string, unknown]> | undefined {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isScalar)) return undefined;
    return value.map((entry, index) => [`${key}[${index}]`, entry]);
  }
  if (isRecord(value)) {
    return Object.entries(value).map(([name, entry]) => [key === '' ? name : `${key}.${name}`, entry]);
  }
  return [];
}

/** Flattens every field of `record` whose key is not in `used` (the few read), each under `prefix`, appended to `rows`. */
export function flattenRest(record: JsonRecord, used: readonly string[], prefix = '', rows: DetailRow[] = []): DetailRow[] {
  const keys = Object.keys(record);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!; // index < length
    if (used.includes(key)) continue;
    const value = record[key];
    const label = prefix === '' ? key : `${prefix}.${key}`;
    // A scalar is its one row, as flatten writes it, without flatten's work list (most fields are scalars).
    const scalar = typeof value === 'number' ? value : scalarText(value);
    if (scalar !== undefined) rows.push([label === '' ? 'value' : label, scalar]);
    else flatten(value, label, rows);
  }
  return rows;
}

/**
 * Descends through envelopes until `recognised` accepts the record (or no envelope is left). Fields
 * beside an envelope (`meta`, `links`, JSON:API `id`/`type`) are returned as details, never dropped.
 */
export function unwrapEnvelopes(
  body: unknown,
  recognised: (record: JsonRecord) => boolean,
  accepts: (inner: unknown) => boolean = isRecord,
): { payload: unknown; details: DetailRow[]; path: string } {
  const details: DetailRow[] = [];
  let payload = body;
  let path = '';
  for (let depth = 0; depth < 6 && isRecord(payload) && !recognised(payload); depth += 1) {
    const current: JsonRecord = payload;
    const key = ENVELOPES.find((name) => Object.hasOwn(current, name) && accepts(current[name]));
    if (key === undefined) break;
    flattenRest(current, [key], path, details);
    path = path === '' ? key : `${path}.${key}`;
    payload = current[key];
  }
  return { payload, details, path };
}
