// Pure view models for audit and pulse bodies, whose shape the service does not document: known
// fields are found by any of their likely names, and every other field is kept as a detail row.
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

export interface PulseView {
  index?: number;
  details: DetailRow[];
}

const SCORE_KEYS = ['reputation_score', 'reputationScore', 'reputation', 'score', 'overall_score', 'overallScore', 'overall', 'rating'];
const SCORE_MAX_KEYS = ['score_scale', 'scoreScale', 'score_max', 'scoreMax', 'max_score', 'maxScore', 'scale', 'out_of', 'outOf', 'max'];
const INNER_SCORE_KEYS = ['value', 'score', 'current', 'overall', 'rating'];
const INNER_MAX_KEYS = ['max', 'scale', 'out_of', 'outOf', 'max_value', 'maxValue', 'best'];
const COMPANY_KEYS = ['company', 'business', 'organization', 'organisation', 'entity'];
const NAME_KEYS = ['name', 'company_name', 'companyName', 'display_name', 'displayName', 'title', 'legal_name'];

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
  const score = findValue(value, INNER_SCORE_KEYS, asNumber);
  if (score === undefined) return undefined;
  const max = findValue(value, INNER_MAX_KEYS, asNumber);
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
  const name = wanted.name ? findValue(record, NAME_KEYS, asText) : undefined;
  if (name) {
    found.name = name.value;
    used.add(name.key);
  }
  const score = wanted.score ? findValue(record, SCORE_KEYS, (value) => readScore(value, '')) : undefined;
  if (score) {
    used.add(score.key);
    found.score = score.value.score;
    found.scoreMax = score.value.scoreMax;
    appendAll(found.details, score.value.details.map(([key, text]): DetailRow => [`${score.key}.${key}`, text]));
  }
  const max = findValue(record, SCORE_MAX_KEYS.filter((key) => !used.has(key)), asNumber);
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
  return [...SCORE_KEYS, ...SOURCE_KEYS, ...COMPANY_KEYS].some((key) => Object.hasOwn(record, key));
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
  const company = findValue(payload, COMPANY_KEYS, (value) => (isRecord(value) || asText(value) !== undefined ? value : undefined));
  const companyRecord = company && isRecord(company.value) ? company.value : undefined;
  const companyName = companyRecord ? findValue(companyRecord, NAME_KEYS, asText)?.value : asText(company?.value);
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

const INDEX_KEYS = ['index', 'market_index', 'marketIndex', 'pulse_index', 'pulseIndex', 'pulse', 'mean', 'mean_score', 'meanScore', 'average', 'average_score', 'averageScore', 'avg', 'value', 'score', 'reputation_index'];

function readIndex(value: unknown, depth: number): PulseView | undefined {
  const plain = asNumber(value);
  if (plain !== undefined) return { index: plain, details: [] };
  if (!isRecord(value) || depth > 2) return undefined;
  const found = findValue(value, INDEX_KEYS, (inner) => readIndex(inner, depth + 1));
  if (!found) return undefined;
  const nestedDetails = found.value.details.map(([key, text]): DetailRow => [`${found.key}.${key}`, text]);
  return { index: found.value.index, details: [...nestedDetails, ...flattenRest(value, new Set([found.key]))] };
}

export function pulseView(body: unknown): PulseView {
  const { payload, details } = unwrapEnvelopes(body, (record) => INDEX_KEYS.some((key) => Object.hasOwn(record, key)));
  const found = readIndex(payload, 0);
  if (found) return { index: found.index, details: [...details, ...found.details] };
  return { details: [...details, ...flatten(payload)] };
}
