// The pulse view: the market index, found by the names in aliases.ts, a few levels down at most;
// every other field is kept as a detail row.
import { INDEX } from './aliases.js';
import { asNumber, findValue, flatten, flattenRest, isRecord, joinPath, unwrapEnvelopes, type DetailRow } from './fields.js';

export interface PulseView {
  index?: number;
  details: DetailRow[];
  /** Where in the body the index was read (none for a body that is the number itself). */
  paths: { index?: string };
}

/** The index in a value, with the keys that led to it. */
interface Found {
  index: number;
  details: DetailRow[];
  keys: string[];
}

function readIndex(value: unknown, depth: number): Found | undefined {
  const plain = asNumber(value);
  if (plain !== undefined) return { index: plain, details: [], keys: [] };
  if (!isRecord(value) || depth > 2) return undefined;
  const found = findValue(value, INDEX, (inner) => readIndex(inner, depth + 1));
  if (!found) return undefined;
  const nestedDetails = found.value.details.map(([key, text]): DetailRow => [`${found.key}.${key}`, text]);
  return { index: found.value.index, details: [...nestedDetails, ...flattenRest(value, [found.key])], keys: [found.key, ...found.value.keys] };
}

export function pulseView(body: unknown): PulseView {
  const { payload, details, path } = unwrapEnvelopes(body, (record) => INDEX.some((key) => Object.hasOwn(record, key)));
  const found = readIndex(payload, 0);
  if (!found) return { details: [...details, ...flatten(payload)], paths: {} };
  const index = joinPath(path, ...found.keys);
  return { index: found.index, details: [...details, ...found.details], paths: index === '' ? {} : { index } };
}
