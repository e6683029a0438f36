// The store port: everything rep remembers (answers, the request ledger, the score history), as one
// typed interface that each implementation (local files, PostgreSQL) fills in. Types only.
// Policy stays above the port, shared by every implementation (src/store/policy.ts): what may be
// cached and for how long, how names match (nameKey), how a point is cleaned, what retention is.
// The port takes what policy made: normalised base URLs, key fingerprints (never a key), name keys.
// Every method is async (a database is) and takes many items at once where a batch needs it.

/** The endpoints whose answers are kept. */
export type AnswerEndpoint = 'audit' | 'search' | 'pulse';

/** Which question an answer is to. */
export interface AnswerKey {
  /** The base URL as baseUrlKey writes it (no userinfo, query, fragment or trailing slash). */
  baseUrl: string;
  endpoint: AnswerEndpoint;
  /** The exact `q` sent (case and spacing count); '' for pulse. */
  query: string;
  /** keyFingerprint of the key sent, or 'none' when none was: the key itself never reaches a store. */
  keyFingerprint: string;
}

/** An answer as a store keeps it: policy has decided that it may be kept, and until when. */
export interface StoredAnswer {
  status: number;
  /** The body exactly as the server sent it. */
  bodyText: string;
  contentType?: string;
  /** When it arrived (epoch ms). */
  storedAt: number;
  /** The server's own limit (epoch ms), when it set one. */
  freshUntil?: number;
}

/** An answer from the cache: the body exactly as the server sent it, and how old it is. */
export interface CachedAnswer {
  bodyText: string;
  status: number;
  /** content-type only, when the server sent one: nothing else is worth keeping. */
  headers: Record<string, string>;
  storedAt: number;
  ageMs: number;
}

/** What a put did: stored it, refused it (reason, for --debug), or failed to write (error, to warn about). */
export type PutOutcome = { stored: true } | { stored: false; reason: string } | { stored: false; error: Error };

export interface AnswerStats {
  /** Where they are, for people (a directory; `postgres host/db`). */
  where: string;
  entries: number;
  bytes: number;
  /** The bound eviction keeps them within, when the store has one (bytes). */
  maxBytes?: number;
}

/** The freshness inputs of a lookup: younger than maxAgeMs (0: never) and within the server's own limit, at `now`. */
export interface Freshness {
  maxAgeMs: number;
  now: number;
}

export interface AnswerStorePort {
  /** The answer if one is fresh (see isFresh in policy.ts). Never rejects: a store that cannot answer is a miss. */
  get(key: AnswerKey, freshness: Freshness): Promise<CachedAnswer | undefined>;
  /** get for many keys at once, the answers in their order (a batch's lookups go to a database as one query). Never rejects. */
  getMany(keys: readonly AnswerKey[], freshness: Freshness): Promise<Array<CachedAnswer | undefined>>;
  /** Keeps the answer (replacing any to the same question). Never rejects: a failure is an outcome. */
  put(key: AnswerKey, answer: StoredAnswer): Promise<PutOutcome>;
  /** Forgets the answer to this question (the server no longer lets it be kept). Never rejects. */
  forget(key: AnswerKey): Promise<void>;
  /** Rejects when the store cannot be read. */
  stats(): Promise<AnswerStats>;
  /** Removes every answer; resolves to how many. Rejects when it cannot. */
  clear(): Promise<number>;
}

/** Whose quota a request spent: one key (by fingerprint) at one base URL. */
export interface LedgerScope {
  keyFingerprint: string;
  /** As baseUrlKey writes it. */
  baseUrl: string;
}

/** The last rate-limit facts a server sent. */
export interface RateLimitFacts {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  windowSeconds?: number;
  /** When the response carrying them arrived (epoch ms). */
  seenAt: number;
}

export interface LedgerCount {
  /** Requests sent in [since, now]. */
  requests: number;
  /** The start of the minute of the oldest of them (never before since). */
  oldestAt?: number;
  /** How many runs (processes, or machines for a shared store) sent them, where the store knows. */
  contributors?: number;
}

export interface LedgerPort {
  /** One request was sent at `at`: counted at once (a run killed afterwards keeps it). Never rejects; a failure is told by settle(). */
  record(scope: LedgerScope, at: number): Promise<void>;
  /**
   * One request is about to go at `at`, and its bytes wait for this to settle: counted with the other
   * requests of this turn of the event loop in one write, settling once it is. A store without it is
   * asked record() (which does not hold the request). Never rejects; a failure is told by settle().
   */
  recordInTurn?(scope: LedgerScope, at: number): Promise<void>;
  /** The rate-limit facts a response carried. Never rejects. */
  noteRateLimit(scope: LedgerScope, facts: RateLimitFacts): Promise<void>;
  /** Requests of this scope (every run's, this one's included) sent at or after `since`. Rejects when unreadable. */
  count(scope: LedgerScope, since: number, now: number): Promise<LedgerCount>;
  /** The newest rate-limit facts of this scope from the last day. Rejects when unreadable. */
  lastRateLimit(scope: LedgerScope): Promise<RateLimitFacts | undefined>;
  /** Waits for what this run recorded to be saved; why saving failed, if it did. Never rejects. */
  settle(): Promise<Error | undefined>;
}

export interface PointSource {
  source: string;
  rating?: number;
  reviews?: number;
}

/** The query of the market index's series (issue 34): every fresh pulse is a point of it. No audit asks for an empty name. */
export const MARKET_SERIES = '';

/** One recorded answer (the local store writes each as one JSON line with these keys). */
export interface HistoryPoint {
  /** Unique per point: appending a point twice keeps it once. */
  id: string;
  /** When it was fetched, ISO 8601 in UTC. */
  at: string;
  /** The base URL it came from, as baseUrlKey writes it. */
  base_url: string;
  /** The name as the user asked for it (MARKET_SERIES for the market). */
  query: string;
  /** The company's name in the answer, when it had one. */
  name?: string;
  score: number;
  /** The top of the score's scale, when the answer said. */
  scale?: number;
  sources: PointSource[];
}

/**
 * One "previous point" question: the newest point at `baseUrl` before `before` (epoch ms, exclusive)
 * whose query key is `queryKey`; only when there is none, the newest whose query or company name key
 * is `queryKey` or `nameKey` (a chain's branches share a name: their series must not mix). Keys are
 * nameKey's. Points with an id in `excludeIds` are not seen (those the asking run recorded).
 */
export interface PreviousQuestion {
  baseUrl: string;
  queryKey: string;
  nameKey?: string;
  before: number;
  excludeIds?: readonly string[];
}

/** The points of one series: those whose query or company name key is `key`, at `baseUrl` when given. */
export interface RangeQuestion {
  key: string;
  baseUrl?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

export interface HistoryStats {
  points: number;
  /** Bytes on disk or in the database, when the store knows. */
  bytes?: number;
  /** The oldest point's time (ISO), when there is one. */
  oldest?: string;
  /** Where it is, for people. */
  where: string;
}

export interface HistoryPort {
  /** Appends points (any series, many at once); a point whose id is there already is not added again. Rejects when it cannot write. */
  append(points: readonly HistoryPoint[]): Promise<void>;
  /** The answer to each question, in order (many at once: a batch asks once). Rejects when unreadable. */
  previous(questions: readonly PreviousQuestion[]): Promise<Array<HistoryPoint | undefined>>;
  /** The points of one series, oldest first, each id once. Rejects when unreadable. */
  range(question: RangeQuestion): Promise<HistoryPoint[]>;
  /** Recorded queries and company names (any base URL, newest spelling of each) whose key starts with `prefixKey`, sorted. */
  names(prefixKey: string): Promise<string[]>;
  /** Removes every point dated before `before` (epoch ms); resolves to how many went. The only way a point goes. */
  prune(before: number): Promise<number>;
  stats(): Promise<HistoryStats>;
}

/** Identical questions asked at once (by this process, or others sharing the store) send one request. */
export interface SingleFlightPort {
  /** Runs `work` unless another holder of `key` runs it now; then waits for that one (bounded by `signal`) and runs `work` after it. */
  run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** What `rep status` says of the store: never a password. */
export interface StoreDescription {
  kind: 'local' | 'postgres';
  /** Lines of `label: value` (local: the paths; postgres: host, database, user). */
  details: ReadonlyArray<{ label: string; value: string }>;
}

export interface Store {
  readonly answers: AnswerStorePort;
  readonly ledger: LedgerPort;
  readonly history: HistoryPort;
  readonly singleFlight?: SingleFlightPort;
  describe(): StoreDescription;
  /** Settles what is pending and releases files or connections. Never rejects. */
  close(): Promise<void>;
}
