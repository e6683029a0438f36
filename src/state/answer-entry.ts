// An answer cache entry's format, apart from the cache that keeps them (answer-cache.ts): a line of
// JSON facts (base URL, endpoint, exact query, key fingerprint, status, times, the body's checksum) and
// then the body exactly as the server sent it; its file name, a hash of the four that name the question;
// and the reading back of one, which takes only an entry whole, of this format and for that question.
import { checksum, hash53, sha256Hex } from './ids.js';
import { NumberTable } from './number-table.js';
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

/**
 * The SHA-256 of the last KNOWN_MAX questions' texts, as bytes in one buffer, by the text's hash53 in a
 * NumberTable: ~70 bytes a question outside V8's heap, where a Map of texts and file names was ~270 on
 * it (5 MB for a batch's 20,000). Two texts with one hash53 would share a file name: an entry checks
 * its question when read, so that costs a miss, never a wrong answer.
 */
class FileHashes {
  #places = new NumberTable();
  /** The SHA-256s, a page of DIGESTS_A_PAGE at a time (typed-pages.ts: no page is ever freed as one large block). */
  readonly #digests: Buffer[] = [];
  #count = 0;
  /** The first question's text and hash, kept as they are: a single lookup (and its put) asks for one, and needs no table. */
  #first: { text: string; hex: string } | undefined;

  /** The text's SHA-256 in lower-case hex. */
  hex(text: string): string {
    if (this.#first === undefined) {
      this.#first = { text, hex: sha256Hex(text) };
      return this.#first.hex;
    }
    if (text === this.#first.text) return this.#first.hex;
    const key = hash53(text);
    const known = this.#places.get(key);
    if (known !== undefined) {
      const at = (known % DIGESTS_A_PAGE) * DIGEST_BYTES;
      return this.#page(known).toString('hex', at, at + DIGEST_BYTES);
    }
    if (this.#count === KNOWN_MAX) {
      this.#places = new NumberTable();
      this.#count = 0;
    }
    const place = this.#count++;
    if (place / DIGESTS_A_PAGE >= this.#digests.length) this.#digests.push(Buffer.alloc(DIGESTS_A_PAGE * DIGEST_BYTES));
    const hex = sha256Hex(text);
    this.#page(place).write(hex, (place % DIGESTS_A_PAGE) * DIGEST_BYTES, 'hex');
    this.#places.add(key, place);
    return hex; // as made: a fresh batch's put asks for each name once, and needs no read back
  }

  #page(place: number): Buffer {
    return this.#digests[Math.floor(place / DIGESTS_A_PAGE)] as Buffer;
  }
}

const DIGEST_BYTES = 32;
const DIGESTS_A_PAGE = 1024;

/**
 * Names already worked out in this process: a batch asks for each name twice (its plan, then its
 * request), and each SHA-256 in JavaScript has its cost. Bounded, for a long-lived library user.
 */
const known = { fileHashes: new FileHashes() };
const KNOWN_MAX = 20_000;

/** How an entry file's name ends (answer-cache-dir.ts knows its files by it). */
export const ENTRY_EXTENSION = '.answer';

/** The entry's file name: a hash of the four that name its question. */
export function fileName(identity: Identity): string {
  const tuple = JSON.stringify([FORMAT, identity.baseUrl, identity.endpoint, identity.query, identity.key]);
  return `${known.fileHashes.hex(tuple)}${ENTRY_EXTENSION}`;
}

/** An entry as it is kept: its facts' line (JSON, no line end) and the body, apart (an entry file's text is both, a line end between). */
export interface EntryParts {
  facts: string;
  body: string;
}

/** The entry of an answer: its facts' line and its body. */
export function entryParts(identity: Identity, answer: StoredAnswer): EntryParts {
  const facts: EntryFacts = {
    v: FORMAT,
    ...identity,
    status: answer.status,
    ...(answer.contentType === undefined ? {} : { contentType: answer.contentType }),
    storedAt: answer.storedAt,
    ...(answer.freshUntil === undefined ? {} : { freshUntil: answer.freshUntil }),
    checksum: checksum(answer.bodyText),
  };
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
