// The per-source summary of an audit, in whichever shape it arrives: an array of records
// (`[{"source": "Google", "rating": 4.6}]`) or a map keyed by source (`{"google": {…}}`, `{"google": 4.5}`).
import { appendAll, asNumber, asText, findValue, flatten, flattenRest, isRecord, type DetailRow, type JsonRecord } from './fields.js';

export interface SourceRow {
  source: string;
  rating?: number;
  reviews?: number;
  /** The source's other fields, flattened with dotted keys. */
  extra: DetailRow[];
}

/** Keys that name the summary plainly; any array or map under them is taken as sources. */
const PLAIN_SOURCE_KEYS = ['sources', 'by_source', 'bySource', 'sources_summary', 'sourcesSummary', 'source_summary', 'platforms', 'reviews_by_source', 'reviewsBySource'];
/** How many source-like keys deep the sources may sit. */
const MAX_SOURCE_NESTING = 4;
/** Keys that might hold sources or something else: taken only when the entries look like sources. */
const LOOSE_SOURCE_KEYS = ['summary', 'breakdown', 'ratings', 'channels', 'sites'];
export const SOURCE_KEYS = [...PLAIN_SOURCE_KEYS, ...LOOSE_SOURCE_KEYS];

const SOURCE_NAME_KEYS = ['source', 'name', 'platform', 'provider', 'site', 'source_name', 'sourceName', 'title', 'channel'];
const RATING_KEYS = ['rating', 'score', 'avg', 'average', 'avg_rating', 'average_rating', 'averageRating', 'stars', 'value'];
const REVIEWS_KEYS = ['reviews', 'review_count', 'reviews_count', 'reviewCount', 'reviewsCount', 'count', 'total', 'total_reviews', 'totalReviews', 'num_reviews'];

function sourceFromRecord(record: JsonRecord, fallbackName?: string): SourceRow {
  const used = new Set<string>();
  const named = fallbackName === undefined ? findValue(record, SOURCE_NAME_KEYS, asText) : undefined;
  if (named) used.add(named.key);
  const rating = findValue(record, RATING_KEYS, asNumber);
  if (rating) used.add(rating.key);
  const reviews = findValue(record, REVIEWS_KEYS, asNumber);
  if (reviews) used.add(reviews.key);
  return { source: fallbackName ?? named?.value ?? '', rating: rating?.value, reviews: reviews?.value, extra: flattenRest(record, used) };
}

function looksLikeSource(record: JsonRecord): boolean {
  return [...SOURCE_NAME_KEYS, ...RATING_KEYS, ...REVIEWS_KEYS].some((key) => Object.hasOwn(record, key));
}

function rowsFromArray(entries: unknown[], plain: boolean): { rows: SourceRow[]; details: DetailRow[] } | undefined {
  if (!plain && !entries.some((entry) => isRecord(entry) && looksLikeSource(entry))) return undefined;
  const rows: SourceRow[] = [];
  const details: DetailRow[] = [];
  entries.forEach((entry, index) => {
    if (isRecord(entry)) rows.push(sourceFromRecord(entry));
    else if (typeof entry === 'string') rows.push({ source: entry, extra: [] });
    else appendAll(details, flatten(entry, `[${index}]`));
  });
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
    else appendAll(details, flatten(value, name));
  }
  return { rows, details };
}

/**
 * Source rows from the value under a source-like key, with anything in it that is not a source
 * as detail rows (keys relative to that value: `[2]`, `total`). Undefined when it is not sources at all.
 */
export function sourceRows(value: unknown, key = 'sources', depth = 0): { rows: SourceRow[]; details: DetailRow[] } | undefined {
  const plain = PLAIN_SOURCE_KEYS.includes(key);
  if (Array.isArray(value)) return rowsFromArray(value, plain);
  if (!isRecord(value)) return undefined;
  // `{"summary": {"by_source": […], "total": 10}}`: the sources sit one level further in (a few at
  // most, so `{"sources": {"sources": …}}` thousands deep cannot overflow the stack).
  const inner = depth < MAX_SOURCE_NESTING ? findValue(value, PLAIN_SOURCE_KEYS, (innerValue) => sourceRows(innerValue, 'sources', depth + 1)) : undefined;
  if (inner) {
    const innerDetails = inner.value.details.map(([detailKey, text]): DetailRow => [`${inner.key}${detailKey.startsWith('[') ? '' : '.'}${detailKey}`, text]);
    return { rows: inner.value.rows, details: [...innerDetails, ...flattenRest(value, new Set([inner.key]))] };
  }
  return rowsFromMap(value, plain);
}
