// An answer cache entry's format, apart from the cache that keeps them (answer-cache.ts): a line of
// JSON facts (base URL, endpoint, exact query, key fingerprint, status, times, the body's checksum) and
// then the body exactly as the server sent it; its file name, a hash of the four that name the question;
// and the reading back of one, which takes only an entry whole, of this format and for that question.
import { checksum, sha256Hex } from './ids.js';
import type { StoredAnswer } from '../store/port.js';
import { parseJson } from '../text.js';

/** The client's body cap (8 MB) and room for an entry's first line: anything bigger is no entry of ours. */
export const MAX_ENTRY_BYTES = 8 * 1024 * 1024 + 64 * 1024;
/** The entry format: 2 checks the body with a checksum (1 had a SHA-256); an entry of another is a miss. */
const FORMAT = 2;
/** The facts on an entry's first line. */
export interface EntryFacts {
  v: number;
  baseUrl: string;
  endpoint: string;
  query: string;
  key: string;
  status: number;
  contentType?: string;
  storedAt: number;
  freshUntil?: number;
  /** The body's checksum (ids.ts), to find an entry that was cut off or damaged. */
  checksum: string;
}

/** The identity of a question: what an entry must match to answer it. */
export type Identity = Pick<EntryFacts, 'baseUrl' | 'endpoint' | 'query' | 'key'>;

/** How an entry file's name ends (answer-cache-dir.ts knows its files by it). */
export const ENTRY_EXTENSION = '.answer';

/** The entry's file name: a hash of the four that name its question. */
export function fileName(identity: Identity): string {
  const tuple = JSON.stringify([FORMAT, identity.baseUrl, identity.endpoint, identity.query, identity.key]);
  // A single audit asks twice (its lookup, then its put), while its hashes are still made in JavaScript
  // (ids.ts); a batch's many go to node:crypto, quicker than a memo of them all would be.
  if (lastName.tuple !== tuple) lastName = { tuple, name: `${sha256Hex(tuple)}${ENTRY_EXTENSION}` };
  return lastName.name;
}
let lastName = { tuple: '', name: '' };

/** An entry as it is kept: its facts' line (JSON, no line end) and the body, apart (an entry file's text is both, a line end between). */
export interface EntryParts {
  facts: string;
  body: string;
}

/** The entry of an answer: its facts' line and its body. */
export function entryParts(identity: Identity, answer: StoredAnswer): EntryParts {
  // Field by field, in the order the facts have always had (no spread: a batch makes one an answer).
  const facts = {
    v: FORMAT,
    baseUrl: identity.baseUrl,
    endpoint: identity.endpoint,
    query: identity.query,
    key: identity.key,
    status: answer.status,
  } as EntryFacts;
  if (answer.contentType !== undefined) facts.contentType = answer.contentType;
  facts.storedAt = answer.storedAt;
  if (answer.freshUntil !== undefined) facts.freshUntil = answer.freshUntil;
  facts.checksum = checksum(answer.bodyText);
  return { facts: JSON.stringify(facts), body: answer.bodyText };
}

/** An entry file's text: the facts' line, then the body. */
export function entryText(entry: EntryParts): string {
  return `${entry.facts}\n${entry.body}`;
}

/** The parts of an entry file's text, split at its first line end; undefined for a text with none. */
export function partsOf(text: string): EntryParts | undefined {
  const newline = text.indexOf('\n');
  return newline < 0 ? undefined : { facts: text.slice(0, newline), body: text.slice(newline + 1) };
}

/** An entry read back: its facts and its body. */
export type Entry = { facts: EntryFacts; bodyText: string };

/** The stored time on an entry's facts, if it has one and its body is whole (a torn one is no newer answer). */
export function storedAtOf(entry: EntryParts): number | undefined {
  try {
    const facts = parseJson(entry.facts) as Partial<EntryFacts>;
    return Number.isFinite(facts.storedAt) && checksum(entry.body) === facts.checksum ? facts.storedAt : undefined;
  } catch {
    return undefined;
  }
}

/** The entry, if it is whole, of this format, and for exactly this question. */
export function parseEntry(entry: EntryParts, identity: Identity): Entry | undefined {
  let facts: unknown;
  try {
    facts = parseJson(entry.facts);
  } catch {
    return undefined;
  }
  if (!isFacts(facts) || facts.v !== FORMAT) return undefined;
  if (facts.baseUrl !== identity.baseUrl || facts.endpoint !== identity.endpoint || facts.query !== identity.query || facts.key !== identity.key)
    return undefined;
  return checksum(entry.body) === facts.checksum ? { facts, bodyText: entry.body } : undefined;
}

function isFacts(value: unknown): value is EntryFacts {
  if (typeof value !== 'object' || value === null) return false;
  const facts = value as Record<string, unknown>;
  const strings = ['baseUrl', 'endpoint', 'query', 'key', 'checksum'].every((field) => typeof facts[field] === 'string');
  const numbers = ['v', 'status', 'storedAt'].every((field) => Number.isFinite(facts[field]));
  const optional =
    (facts.freshUntil === undefined || Number.isFinite(facts.freshUntil)) && (facts.contentType === undefined || typeof facts.contentType === 'string');
  return strings && numbers && optional;
}
