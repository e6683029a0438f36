// The per-source summary of an audit, in whichever shape it arrives: an array of records
// (`[{"source": "Google", "rating": 4.6}]`) or a map keyed by source (`{"google": {…}}`, `{"google": 4.5}`).
import { SOURCE_NAME, SOURCE_RATING, SOURCE_REVIEWS, SOURCES, SOURCES_LOOSE } from './aliases.js';
import { asNumber, asText, findValue, flatten, flattenRest, isRecord, type DetailRow, type JsonRecord } from './fields.js';

export interface SourceRow {
  source: string;
  rating?: number;
  reviews?: number;
  /** The source's other fields, flattened with dotted keys. */
  extra: DetailRow[];
}

/** How many source-like keys deep the sources may sit. */
const MAX_SOURCE_NESTING = 4;
/** Every key that may hold the sources: the plain ones first. */
export const SOURCE_KEYS: readonly string[] = [...SOURCES, ...SOURCES_LOOSE];
const PLAIN: readonly string[] = SOURCES;

function sourceFromRecord(record: JsonRecord, fallbackName?: string): SourceRow {
  // Stryker disable next-line ArrayDeclaration: a key read is only ever added: one more there, that no body has, changes nothing
  const used: string[] = [];
  const named = fallbackName === undefined ? findValue(record, SOURCE_NAME, asText) : undefined;
  if (named) used.push(named.key);
  const rating = findValue(record, SOURCE_RATING, asNumber);
  if (rating) used.push(rating.key);
  const reviews = findValue(record, SOURCE_REVIEWS, asNumber);
  if (reviews) used.push(reviews.key);
  return { source: fallbackName ?? named?.value ?? '', rating: rating?.value, reviews: reviews?.value, extra: flattenRest(record, used) };
}

/** The keys a source record has one of. */
const SOURCE_FIELDS: readonly string[] = [...SOURCE_NAME, ...SOURCE_RATING, ...SOURCE_REVIEWS];

function looksLikeSource(record: JsonRecord): boolean {
  return SOURCE_FIELDS.some((key) => Object.hasOwn(record, key));
}

function rowsFromArray(entries: unknown[], plain: boolean): { rows: SourceRow[]; details: DetailRow[] } | undefined {
  if (!plain && !entries.some((entry) => isRecord(entry) && looksLikeSource(entry))) return undefined;
  const rows: SourceRow[] = [];
  const details: DetailRow[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    if (isRecord(entry)) rows.push(sourceFromRecord(entry));
    else if (typeof entry === 'string') rows.push({ source: entry, extra: [] });
    else flatten(entry, `[${index}]`, details);
  }
  return { rows, details };
}

function rowsFromMap(map: JsonRecord, plain: boolean): { rows: SourceRow[]; details: DetailRow[] } | undefined {
  const entries = Object.entries(map);
  // A loose key such as `summary` may hold `{"positive": 10}`: only records that look like sources count there.
  const isSourceEntry = (value: unknown) => (isRecord(value) && (plain || looksLikeSource(value))) || (plain && asNumber(value) !== undefined);
  if (entries.length === 0 || !entries.some(([, value]) => isSourceEntry(value))) return undefined;
  const rows: SourceRow[] = [];
  const details: DetailRow[] = [];
  for (const [name, value] of entries) {
    if (isRecord(value) && isSourceEntry(value)) rows.push(sourceFromRecord(value, name));
    else if (isSourceEntry(value)) rows.push({ source: name, rating: asNumber(value), extra: [] });
    else flatten(value, name, details);
  }
  return { rows, details };
}

/**
 * Source rows from the value under a source-like key, with anything in it that is not a source
 * as detail rows (keys relative to that value: `[2]`, `total`). Undefined when it is not sources at all.
 */
export function sourceRows(value: unknown, key = 'sources', depth = 0): { rows: SourceRow[]; details: DetailRow[] } | undefined {
  const plain = PLAIN.includes(key);
  if (Array.isArray(value)) return rowsFromArray(value, plain);
  if (!isRecord(value)) return undefined;
  // `{"summary": {"by_source": […], "total": 10}}`: the sources sit one level further in (a few at
  // most, so `{"sources": {"sources": …}}` thousands deep cannot overflow the stack).
  const inner = depth < MAX_SOURCE_NESTING ? findValue(value, SOURCES, (innerValue) => sourceRows(innerValue, 'sources', depth + 1)) : undefined;
  if (inner) {
    const innerDetails = inner.value.details.map(([detailKey, text]): DetailRow => [`${inner.key}${detailKey.startsWith('[') ? '' : '.'}${detailKey}`, text]);
    return { rows: inner.value.rows, details: flattenRest(value, [inner.key], '', innerDetails) };
  }
  return rowsFromMap(value, plain);
}
