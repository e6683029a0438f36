// The pulse view: the market index, found by the names in aliases.ts, a few levels down at most;
// every other field is kept as a detail row.
import { INDEX } from './aliases.js';
import { asNumber, findValue, flatten, flattenRest, isRecord, unwrapEnvelopes, type DetailRow } from './fields.js';

export interface PulseView {
  index?: number;
  details: DetailRow[];
}

function readIndex(value: unknown, depth: number): PulseView | undefined {
  const plain = asNumber(value);
  if (plain !== undefined) return { index: plain, details: [] };
  if (!isRecord(value) || depth > 2) return undefined;
  const found = findValue(value, INDEX, (inner) => readIndex(inner, depth + 1));
  if (!found) return undefined;
  const nestedDetails = found.value.details.map(([key, text]): DetailRow => [`${found.key}.${key}`, text]);
  return { index: found.value.index, details: [...nestedDetails, ...flattenRest(value, new Set([found.key]))] };
}

export function pulseView(body: unknown): PulseView {
  const { payload, details } = unwrapEnvelopes(body, (record) => INDEX.some((key) => Object.hasOwn(record, key)));
  const found = readIndex(payload, 0);
  if (found) return { index: found.index, details: [...details, ...found.details] };
  return { details: [...details, ...flatten(payload)] };
}
