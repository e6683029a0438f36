// The audit view: a company's name, score, scale, total of reviews and sources, from a body whose
// shape the service does not document. Fields are found by the names in aliases.ts, in the body and
// in the records it holds for the company, the present or an only item (never the past): the
// shallowest place wins, and a tie there is recorded. Every other field is kept as a detail row.
import {
  COMPANY,
  COMPANY_LISTS,
  ENVELOPES,
  IMPLIED_SCALE,
  NAME,
  NAME_INSIDE,
  PAST,
  PRESENT,
  REVIEWS,
  REVIEWS_INSIDE,
  SCALE,
  SCALE_INSIDE,
  SCORE,
  SCORE_INSIDE,
} from './aliases.js';
import {
  appendAll,
  asNumber,
  asText,
  findValue,
  flatten,
  flattenRest,
  isRecord,
  joinPath,
  unwrapEnvelopes,
  type DetailRow,
  type JsonRecord,
} from './fields.js';
import { sourceRows, SOURCE_KEYS, type SourceRow } from './sources.js';

export type { DetailRow } from './fields.js';
export type { SourceRow } from './sources.js';

export interface AuditView {
  name?: string;
  score?: number;
  scoreMax?: number;
  /** The company's total number of reviews, where the body gives one. */
  reviews?: number;
  sources: SourceRow[];
  /** Every field not shown above, flattened with dotted keys. */
  details: DetailRow[];
  /** Where in the body each field above was read: `{ score: 'data.current.score' }`. */
  paths: AuditPaths;
  /** Other places, as deep as the one taken, that held another value for a field (they stay details). */
  alsoFound?: { score?: string[]; reviews?: string[] };
}

export type AuditPaths = Partial<Record<'name' | 'score' | 'scoreMax' | 'reviews' | 'sources', string>>;

/** How many records deep (company, present, envelope, only item) fields are looked for. */
const MAX_PLACE_DEPTH = 4;

/** A record fields are looked for in: the payload, or a company, present, envelope or only item within it. */
interface Place {
  record: JsonRecord;
  /** Its path from the payload ('' for the payload itself): its detail rows are labelled from it. */
  label: string;
  depth: number;
  /** The company's own record: its name wins over a name beside it. */
  company: boolean;
  parent: Place | undefined;
  /** The key it sits under in its parent. */
  key: string | undefined;
  /** Keys read here, or holding a place something was read in: left out of its detail rows (a few at most: a list). */
  used: string[];
  /** Records a field was read from (`score: { trustScore, stars }`): their other keys are detail rows. */
  fields: Place[] | undefined;
  /** Detail rows from the sources read here that were not sources. */
  leftovers: readonly DetailRow[];
}

const NO_ROWS: readonly DetailRow[] = [];

const among = (names: readonly string[], key: string) => names.includes(key);

// Every place is made here, with all its fields, so that all have one shape (what a body asks of each is the same).
function newPlace(record: JsonRecord, label: string, parent?: Place, key?: string, company = false): Place {
  // Stryker disable next-line ArrayDeclaration: a key read is only ever added: one more there, that no body has, changes nothing
  return { record, label, depth: parent ? parent.depth + 1 : 0, company, parent, key, used: [], fields: undefined, leftovers: NO_ROWS };
}

/** The place a key holds, if any: a company, the present, an envelope, or a list's only record. */
function innerPlace(parent: Place, key: string, value: unknown): Place | undefined {
  // Most values are no record and no list of one record: they are no place, and cost no more here.
  const record = isRecord(value);
  // Stryker disable next-line ConditionalExpression: only speed: the checks below refuse the same values
  if (!record && !(Array.isArray(value) && value.length === 1)) return undefined;
  if (among(PAST, key)) return undefined;
  if (record) {
    const label = joinPath(parent.label, key);
    if (among(COMPANY, key)) return newPlace(value, label, parent, key, true);
    if (among(PRESENT, key)) return newPlace(value, label, parent, key);
    if (among(ENVELOPES, key)) return newPlace(value, label, parent, key, parent.company);
  }
  if (Array.isArray(value) && value.length === 1 && isRecord(value[0]) && (among(COMPANY_LISTS, key) || among(COMPANY, key))) {
    return newPlace(value[0], joinPath(parent.label, key, '[0]'), parent, key, true);
  }
  return undefined;
}

/** The payload and the places within it, breadth first (so by depth). */
function placesIn(payload: JsonRecord): Place[] {
  const places = [newPlace(payload, '')];
  for (let index = 0; index < places.length; index += 1) {
    const parent = places[index]!; // index < length
    if (parent.depth >= MAX_PLACE_DEPTH) continue;
    for (const key of Object.keys(parent.record)) {
      const inner = innerPlace(parent, key, parent.record[key]);
      if (inner) places.push(inner);
    }
  }
  return places;
}

/** Marks `key` read in `place`, and each place on the way there as holding something read. */
function markUsed(place: Place, key: string): void {
  place.used.push(key); // a key twice is harmless: `used` is only asked whether it holds one
  for (let inner = place; inner.parent && inner.key !== undefined; inner = inner.parent) inner.parent.used.push(inner.key);
}

/** A number as it was found: plain, or inside a record under `inner` (`score: { trustScore: 4.2 }`). */
interface Reading {
  number: number;
  inner?: string;
  record?: JsonRecord;
}

/** A number, or a record holding one under one of `inside`. */
function readNumber(value: unknown, inside: readonly string[]): Reading | undefined {
  const plain = asNumber(value);
  if (plain !== undefined) return { number: plain };
  if (!isRecord(value)) return undefined;
  const inner = findValue(value, inside, asNumber);
  return inner && { number: inner.value, inner: inner.key, record: value };
}

/** A field found under one of its names; `rank` is the name's place in its alias list. */
interface Candidate {
  place: Place;
  key: string;
  rank: number;
  reading: Reading;
}

const byRank = (a: Candidate, b: Candidate) => a.rank - b.rank;

/** The fields under `names` in the shallowest places that have one: the best name first, then in body order. */
function shallowest(places: readonly Place[], names: readonly string[], inside: readonly string[]): Candidate[] {
  const found: Candidate[] = [];
  for (let index = 0; index < places.length; index += 1) {
    const place = places[index]!; // index < length
    if (found.length > 0 && place.depth > found[0]!.place.depth) break; // places come by depth; found[0] exists
    for (let rank = 0; rank < names.length; rank += 1) {
      const key = names[rank]!; // rank < length
      if (!Object.hasOwn(place.record, key) || place.used.includes(key)) continue;
      const reading = readNumber(place.record[key], inside);
      if (reading) found.push({ place, key, rank, reading });
    }
  }
  return found.sort(byRank);
}

/** Reads the view's fields from the places of one payload, recording the path of each. */
class AuditReader {
  readonly view: AuditView = { sources: [], details: [], paths: {} };

  constructor(
    private readonly places: Place[],
    private readonly root: string,
  ) {}

  private path(place: Place, key: string, inner = ''): string {
    return joinPath(this.root, place.label, key, inner);
  }

  /** Takes the best candidate for `field`, noting others as deep with another value; returns the record it sat in, if any. */
  private take(field: 'score' | 'reviews', candidates: readonly Candidate[]): { best: Candidate; record?: Place } | undefined {
    const best = candidates[0];
    if (!best) return undefined;
    markUsed(best.place, best.key);
    const { inner, record, number } = best.reading;
    this.view[field] = number;
    this.view.paths[field] = this.path(best.place, best.key, inner);
    const differing: string[] = [];
    for (let index = 1; index < candidates.length; index += 1) {
      const other = candidates[index]!; // index < length
      if (other.reading.number !== number) differing.push(this.path(other.place, other.key, other.reading.inner));
    }
    if (differing.length > 0) (this.view.alsoFound ??= {})[field] = differing;
    if (!record || inner === undefined) return { best };
    return { best, record: this.fieldRecord(best.place, best.key, record, inner) };
  }

  /** The record a field was read from, kept with its place so its other keys become detail rows. */
  private fieldRecord(place: Place, key: string, record: JsonRecord, inner: string): Place {
    const field = newPlace(record, joinPath(place.label, key), place, key);
    field.depth = place.depth; // as deep as the field: what else it holds is read as if it sat beside it
    field.used.push(inner);
    (place.fields ??= []).push(field);
    return field;
  }

  /** The score, its scale (inside its record, beside it, or implied by its name) and the places to look for reviews. */
  readScore(): Place[] {
    const taken = this.take('score', shallowest(this.places, SCORE, SCORE_INSIDE));
    if (!taken) return this.places;
    const { best, record } = taken;
    const inside = record && findValue(record.record, SCALE_INSIDE, asNumber);
    const beside = inside ? undefined : findValue(best.place.record, SCALE, asNumber, best.place.used);
    const scale = inside ? { place: record, found: inside } : beside && { place: best.place, found: beside };
    if (scale) {
      markUsed(scale.place, scale.found.key);
      this.view.scoreMax = scale.found.value;
      this.view.paths.scoreMax = this.path(scale.place, scale.found.key);
    } else {
      const name = best.reading.inner ?? best.key;
      if (Object.hasOwn(IMPLIED_SCALE, name)) this.view.scoreMax = IMPLIED_SCALE[name];
    }
    // A score record may hold the total of reviews too (schema.org `aggregateRating.reviewCount`), as deep as the score.
    if (!record) return this.places;
    const index = this.places.indexOf(best.place);
    return [...this.places.slice(0, index + 1), record, ...this.places.slice(index + 1)];
  }

  readReviews(places: readonly Place[]): void {
    this.take('reviews', shallowest(places, REVIEWS, REVIEWS_INSIDE));
  }

  /** The company's own name first (the first company place that has one), else a company given as text, else the payload's. */
  readName(): void {
    for (let index = 0; index < this.places.length; index += 1) {
      const place = this.places[index]!; // index < length
      if (place.company && this.nameIn(place, NAME)) return;
    }
    const payload = this.places[0]!; // placesIn starts with the payload
    if (!this.nameIn(payload, COMPANY)) this.nameIn(payload, NAME);
  }

  /** Takes the name under one of `names` in `place`, if there is one. */
  private nameIn(place: Place, names: readonly string[]): boolean {
    const found = findValue(place.record, names, readName, place.used);
    if (!found) return false;
    const { text, inner, record } = found.value;
    markUsed(place, found.key);
    this.view.name = text;
    this.view.paths.name = this.path(place, found.key, inner);
    if (record && inner !== undefined) this.fieldRecord(place, found.key, record, inner);
    return true;
  }

  /** The sources in the shallowest place that has them. */
  readSources(): void {
    for (let index = 0; index < this.places.length; index += 1) {
      const place = this.places[index]!; // index < length
      const found = findValue(place.record, SOURCE_KEYS, sourceRows, place.used);
      if (!found) continue;
      markUsed(place, found.key);
      this.view.sources = found.value.rows;
      this.view.paths.sources = this.path(place, found.key);
      place.leftovers = found.value.details.map(([key, text]): DetailRow => [joinPath(place.label, found.key, key), text]);
      return;
    }
  }

  /**
   * Every field not read, as detail rows after `rows` (the envelopes'): what was left in the payload's
   * own reads, then each place something was read in (its leftovers, then its other fields), then the
   * rest of the payload.
   */
  detailRows(rows: DetailRow[]): DetailRow[] {
    const payload = this.places[0]!; // placesIn starts with the payload
    addPlaceRows(rows, payload);
    for (let index = 1; index < this.places.length; index += 1) {
      const place = this.places[index]!; // index < length
      if (place.used.length === 0) continue;
      addPlaceRows(rows, place);
      flattenRest(place.record, place.used, place.label, rows);
    }
    flattenRest(payload.record, payload.used, '', rows);
    return rows;
  }
}

/** A place's leftovers, then the other fields of the records read in it. */
function addPlaceRows(rows: DetailRow[], place: Place): void {
  appendAll(rows, place.leftovers);
  if (place.fields) for (const field of place.fields) flattenRest(field.record, field.used, field.label, rows);
}

function readName(value: unknown): { text: string; inner?: string; record?: JsonRecord } | undefined {
  const text = asText(value);
  if (text !== undefined) return { text };
  if (!isRecord(value)) return undefined;
  const inner = findValue(value, NAME_INSIDE, asText);
  return inner && { text: inner.value, inner: inner.key, record: value };
}

/** The keys that make a record an audit's payload. */
const AUDIT_KEYS: readonly string[] = [...SCORE, ...SOURCE_KEYS, ...COMPANY];

function looksLikeAudit(record: JsonRecord): boolean {
  for (const key of AUDIT_KEYS) if (Object.hasOwn(record, key)) return true;
  return false;
}

export function auditView(body: unknown): AuditView {
  // The record an audit body describes: itself, the one element of a one-element array, or inside envelopes.
  const single = Array.isArray(body) && body.length === 1 && isRecord(body[0]);
  const { payload, details, path } = unwrapEnvelopes(single ? body[0] : body, looksLikeAudit);
  if (!isRecord(payload)) return { sources: [], details: flatten(payload, '', details), paths: {} };
  const reader = new AuditReader(placesIn(payload), single ? joinPath('[0]', path) : path);
  reader.readReviews(reader.readScore());
  reader.readName();
  reader.readSources();
  reader.view.details = reader.detailRows(details);
  return reader.view;
}
