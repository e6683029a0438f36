// The audit view: a company's name, score and sources from a body whose shape the service does not
// document. Known fields are found by the names in aliases.ts; every other field is kept as a detail row.
import { COMPANY, NAME, SCALE, SCALE_INSIDE, SCORE, SCORE_INSIDE } from './aliases.js';
import { appendAll, asNumber, asText, findValue, flatten, flattenRest, isRecord, unwrapEnvelopes, type DetailRow, type JsonRecord } from './fields.js';
import { sourceRows, SOURCE_KEYS, type SourceRow } from './sources.js';

export type { DetailRow } from './fields.js';
export type { SourceRow } from './sources.js';

export interface AuditView {
  name?: string;
  score?: number;
  scoreMax?: number;
  sources: SourceRow[];
  /** Every field not shown above, flattened with dotted keys. */
  details: DetailRow[];
}

/** Fields read from one record, with the keys they used so the rest can become details. */
interface Found {
  name?: string;
  score?: number;
  scoreMax?: number;
  sources?: SourceRow[];
  details: DetailRow[];
}

/** A score may be a number, a numeric string, or a record such as `{"value": 4.2, "max": 5}`. */
function readScore(value: unknown, key: string): Omit<Found, 'name' | 'sources'> | undefined {
  const plain = asNumber(value);
  if (plain !== undefined) return { score: plain, details: [] };
  if (!isRecord(value)) return undefined;
  const score = findValue(value, SCORE_INSIDE, asNumber);
  if (score === undefined) return undefined;
  const max = findValue(value, SCALE_INSIDE, asNumber);
  const used = new Set([score.key, ...(max ? [max.key] : [])]);
  return { score: score.value, scoreMax: max?.value, details: flattenRest(value, used, key) };
}

/** Which fields to look for: a field already found elsewhere stays a detail here. */
interface Wanted {
  name: boolean;
  score: boolean;
  sources: boolean;
}

/** Reads name, score, scale and sources from one record, marking each key it consumed in `used`. */
function readAuditFields(record: JsonRecord, used: Set<string>, wanted: Wanted): Found {
  const found: Found = { details: [] };
  const name = wanted.name ? findValue(record, NAME, asText) : undefined;
  if (name) {
    found.name = name.value;
    used.add(name.key);
  }
  const score = wanted.score ? findValue(record, SCORE, (value) => readScore(value, '')) : undefined;
  if (score) {
    used.add(score.key);
    found.score = score.value.score;
    found.scoreMax = score.value.scoreMax;
    appendAll(found.details, score.value.details.map(([key, text]): DetailRow => [`${score.key}.${key}`, text]));
  }
  const max = findValue(record, SCALE.filter((key: string) => !used.has(key)), asNumber);
  if (max && found.scoreMax === undefined && found.score !== undefined) {
    found.scoreMax = max.value;
    used.add(max.key);
  }
  const sources = wanted.sources ? findValue(record, SOURCE_KEYS, (value, key) => sourceRows(value, key)) : undefined;
  if (sources) {
    used.add(sources.key);
    found.sources = sources.value.rows;
    appendAll(found.details, sources.value.details.map(([key, text]): DetailRow => [`${sources.key}${key.startsWith('[') ? '' : '.'}${key}`, text]));
  }
  return found;
}

function looksLikeAudit(record: JsonRecord): boolean {
  return [...SCORE, ...SOURCE_KEYS, ...COMPANY].some((key) => Object.hasOwn(record, key));
}

/** The record an audit body describes: itself, the one element of a one-element array, or inside envelopes. */
function auditPayload(body: unknown): { payload: unknown; details: DetailRow[] } {
  const single = Array.isArray(body) && body.length === 1 && isRecord(body[0]) ? body[0] : body;
  return unwrapEnvelopes(single, looksLikeAudit);
}

export function auditView(body: unknown): AuditView {
  const { payload, details: envelopeDetails } = auditPayload(body);
  if (!isRecord(payload)) return { sources: [], details: [...envelopeDetails, ...flatten(payload)] };

  const used = new Set<string>();
  const company = findValue(payload, COMPANY, (value) => (isRecord(value) || asText(value) !== undefined ? value : undefined));
  const companyRecord = company && isRecord(company.value) ? company.value : undefined;
  const companyName = companyRecord ? findValue(companyRecord, NAME, asText)?.value : asText(company?.value);
  // The company's own name wins; a top-level score and sources win over ones inside the company.
  const top = readAuditFields(payload, used, { name: companyName === undefined, score: true, sources: true });
  const details = [...envelopeDetails, ...top.details];
  let nested: Found = { details: [] };
  if (company) used.add(company.key);
  if (company && companyRecord) {
    const companyUsed = new Set<string>();
    nested = readAuditFields(companyRecord, companyUsed, { name: true, score: top.score === undefined, sources: top.sources === undefined });
    appendAll(details, nested.details.map(([key, text]): DetailRow => [`${company.key}.${key}`, text]));
    appendAll(details, flattenRest(companyRecord, companyUsed, company.key));
  }
  const scoreFromCompany = top.score === undefined && nested.score !== undefined;
  return {
    name: companyName ?? top.name,
    score: scoreFromCompany ? nested.score : top.score,
    scoreMax: scoreFromCompany ? nested.scoreMax : top.scoreMax,
    sources: top.sources ?? nested.sources ?? [],
    details: [...details, ...flattenRest(payload, used)],
  };
}
