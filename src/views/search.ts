// The pure view model of a search body: results grouped by type, whether the server groups them
// (`{"companies": […], "cities": […]}`) or lists them flat with a type on each (`[{"type": "city", …}]`).
import { SEARCH_GROUPS, SEARCH_LISTS, SEARCH_QUERY, SEARCH_TYPE } from './aliases.js';
import { appendAll, asText, findValue, flatten, isRecord, unwrapEnvelopes, type DetailRow, type JsonRecord } from './fields.js';

export interface SearchGroup {
  /** 'company' | 'city' | 'category', or the server's own word for another type. */
  type: string;
  rows: JsonRecord[];
}

export interface SearchView {
  /** The query as the server echoed it, when it did. */
  query?: string;
  groups: SearchGroup[];
  details: DetailRow[];
}

const TYPE_ORDER = ['company', 'city', 'category'];
const FLAT_KEYS: readonly string[] = SEARCH_LISTS;

/** The canonical name of a result type (`Companies`, `company` → `company`); unknown words pass through. */
export function resultType(word: string): string {
  const trimmed = word.trim();
  return knownGroup(trimmed) ?? trimmed;
}

/** The group a word names, if it is one of ours (own keys only: `constructor` is no group). */
function knownGroup(word: string): string | undefined {
  const lower = word.toLowerCase();
  return Object.hasOwn(SEARCH_GROUPS, lower) ? SEARCH_GROUPS[lower] : undefined;
}

/** Accumulates rows by type, keeping company, city, category first and others in order of arrival. */
class GroupCollector {
  private readonly byType = new Map<string, JsonRecord[]>();

  add(type: string, row: JsonRecord): void {
    const rows = this.byType.get(type) ?? [];
    rows.push(row);
    this.byType.set(type, rows);
  }

  /** Marks a type as present even with no rows, so an empty `companies: []` keeps its place. */
  touch(type: string): void {
    if (!this.byType.has(type)) this.byType.set(type, []);
  }

  groups(): SearchGroup[] {
    const rank = (type: string) => (TYPE_ORDER.includes(type) ? TYPE_ORDER.indexOf(type) : TYPE_ORDER.length);
    return [...this.byType.entries()].map(([type, rows]) => ({ type, rows })).sort((a, b) => rank(a.type) - rank(b.type));
  }
}

/** A result that is not a record (`"Москва"`) becomes a row with just a name. */
function asRow(entry: unknown): JsonRecord {
  if (isRecord(entry)) return entry;
  return asText(entry) !== undefined || typeof entry === 'boolean' || entry === null ? { name: entry } : { value: entry };
}

function addFlat(collector: GroupCollector, entries: unknown[]): void {
  for (const entry of entries) {
    const row = asRow(entry);
    const typed = findValue(row, SEARCH_TYPE, asText);
    if (!typed) {
      collector.add('result', row);
      continue;
    }
    const type = resultType(typed.value);
    const { [typed.key]: _type, ...rest } = row; // the type becomes the group, so it is not repeated in the row
    collector.add(type, groupedRow(type, rest));
  }
}

/** A row's own `type` beside its group's means something else (a company's kind): kept under another name. */
function groupedRow(type: string, entry: unknown): JsonRecord {
  const row = asRow(entry);
  if (!Object.hasOwn(row, 'type')) return row;
  const { type: ownType, ...rest } = row;
  if (typeof ownType === 'string' && resultType(ownType) === type) return rest;
  return { ...rest, item_type: ownType };
}

function isRecordList(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0 && value.every(isRecord);
}

/** Reads a record's groups into the collector and returns the fields that were not results. */
function addGrouped(collector: GroupCollector, record: JsonRecord, prefix: string, depth: number): DetailRow[] {
  const details: DetailRow[] = [];
  for (const [key, value] of Object.entries(record)) {
    const label = prefix === '' ? key : `${prefix}.${key}`;
    const known = knownGroup(key);
    if (known !== undefined && Array.isArray(value)) {
      collector.touch(known);
      for (const entry of value) collector.add(known, groupedRow(known, entry));
    } else if (FLAT_KEYS.includes(key) && Array.isArray(value)) {
      addFlat(collector, value);
    } else if (FLAT_KEYS.includes(key) && isRecord(value) && depth < 3) {
      appendAll(details, addGrouped(collector, value, label, depth + 1));
    } else if (isRecordList(value)) {
      for (const entry of value) collector.add(key, groupedRow(key, entry));
    } else {
      appendAll(details, flatten(value, label));
    }
  }
  return details;
}

function looksLikeSearch(record: JsonRecord): boolean {
  return Object.keys(record).some((key) => knownGroup(key) !== undefined || (FLAT_KEYS.includes(key) && key !== 'data'));
}

export function searchView(body: unknown): SearchView {
  const { payload, details } = unwrapEnvelopes(body, looksLikeSearch, (inner) => isRecord(inner) || Array.isArray(inner));
  const collector = new GroupCollector();
  if (Array.isArray(payload)) {
    addFlat(collector, payload);
    return { groups: collector.groups(), details };
  }
  if (!isRecord(payload)) return { groups: [], details: [...details, ...flatten(payload)] };
  const query = findValue(payload, SEARCH_QUERY, (value) => (typeof value === 'string' ? value : undefined));
  const rest = query ? Object.fromEntries(Object.entries(payload).filter(([key]) => key !== query.key)) : payload;
  const restDetails = addGrouped(collector, rest, '', 0);
  return { query: query?.value, groups: collector.groups(), details: [...details, ...restDetails] };
}
