// The plan before a big batch: when the names that need a request (distinct, not in the answer cache)
// are more than the hour has left, say so once on stderr before anything is sent, then go on as usual.
// Only an input known in full is planned: the names are read ahead up to a bound, and a longer input
// (or a stream still open at the bound) goes unplanned rather than held back. The names read ahead
// wait in a NameSpill (bounded memory), and the distinct ones are looked up in the cache as they are
// read, many at once (one query a chunk on a database, where one a name was a round trip each).
import { baseUrlKey } from '../api/base-url.js';
import { FREE_TIER_LIMIT as FREE_TIER } from '../api/rate-limit.js';
import { maxAgeFrom } from '../config/cache-settings.js';
import type { Deps } from '../deps.js';
import { keyFingerprint } from '../store/policy.js';
import type { LedgerScope, Store } from '../store/port.js';
import { formatClock, HOUR_MS } from '../time.js';
import { getMany } from '../api/cache-lookups.js';
import type { NameChunks } from './input.js';
import { NameSpill } from './name-spill.js';
import { tempFilesWarning } from './temp-files.js';

/** The names, unchanged, and how many there are when the whole input was read ahead. */
export interface PlannedNames extends NameChunks {
  total?: number;
  /** Whether the plan found no cached answer for the name at this place in the input (0 the first). */
  missed(place: number): boolean;
  /** Whether the input may have the name at this place more than once: false only when it was read whole and has it once. */
  repeats(place: number): boolean;
}

/** Distinct names looked up in the cache at once. */
const LOOKUP_CHUNK = 500;

/** Reads up to `ahead` names; when that is the whole input, says the plan if it exceeds the quota. */
export async function planBatch(deps: Deps, names: NameChunks, ahead: number): Promise<PlannedNames> {
  const iterator = names[Symbol.asyncIterator]();
  const spill = new NameSpill(undefined, (error) => deps.warn(tempFilesWarning(error)));
  deps.onExit(() => spill.discard());
  const plan = deps.globals.quiet ? undefined : await planContext(deps);
  let needed = 0;
  let ended = false;
  // The names the plan found missing, a bit each by its place in the input (100,000 names: 12.5 KB):
  // the batch's request for one does not look in the cache again.
  const misses = new PlaceBits();
  // The names the input has more than once, a bit each by place too: the first of each (and, should two
  // names share a hash, each later one), so the batch's dedupe keeps only the answers asked for again.
  const repeated = new PlaceBits();
  const unseen: string[] = [];
  const unseenAt: number[] = [];
  const lookUp = async () => {
    if (!plan || unseen.length === 0) return;
    const places = unseenAt.splice(0);
    const missing = await plan.missing(unseen.splice(0));
    // Indexed, not entries() and destructuring: this runs a name of the input before the first request, in cold code.
    for (let index = 0; index < missing.length; index += 1) {
      if (!missing[index]) continue;
      needed += 1;
      misses.set(places[index] as number);
    }
  };
  // A chunk is kept whole (it is in memory already), so the read-ahead may pass `ahead` by part of one.
  while (spill.size < ahead) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    for (const name of next.value) {
      const place = spill.size;
      if (!spill.push(name)) {
        repeated.set(spill.firstPlace(name) as number);
        repeated.set(place);
        continue;
      }
      if (!plan) continue;
      unseenAt.push(place);
      if (unseen.push(name) >= LOOKUP_CHUNK) await lookUp();
    }
  }
  await lookUp();
  if (ended && spill.size > 0 && plan) {
    const line = await planLine(deps, plan, needed);
    if (line) deps.io.err(`rep: ${line}\n`);
  }
  return {
    ...(ended ? { total: spill.size } : {}),
    missed: (place) => misses.has(place),
    repeats: (place) => !ended || repeated.has(place),
    async *[Symbol.asyncIterator]() {
      yield* spill.replay();
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

interface PlanContext {
  store: Store;
  scope: LedgerScope;
  /** Whether each of these names needs a request: no fresh answer in the cache. */
  missing(queries: readonly string[]): Promise<boolean[]>;
}

/** What the plan looks names up with; undefined when no plan is said (sandbox, no base URL, no store). */
async function planContext(deps: Deps): Promise<PlanContext | undefined> {
  const settings = await deps.settings();
  if (settings.keySource === 'sandbox' || !settings.baseUrl) return undefined;
  const store = deps.store();
  if (!store) return undefined;
  const scope = { keyFingerprint: keyFingerprint(settings.key || undefined), baseUrl: baseUrlKey(settings.baseUrl) };
  const maxAgeMs = deps.globals.cache === false ? 0 : maxAgeFrom(deps.globals.maxAge, deps.env);
  const missing = async (queries: readonly string[]) => {
    if (!(maxAgeMs > 0)) return queries.map(() => true);
    const { keyFingerprint, baseUrl } = scope;
    // Written out in the client's order (api/client.ts answerKey), not spread from `scope`: a spread a
    // name cost the plan, before the first request, several times the rest of building its lookups.
    const keys = queries.map((query) => ({ baseUrl, endpoint: 'audit' as const, query, keyFingerprint }));
    const found = await getMany(store.answers, keys, { maxAgeMs, now: deps.now() });
    return queries.map((_, index) => found[index] === undefined);
  };
  return { store, scope, missing };
}

/** `this batch needs 150 requests; 100 are left this hour (…); with --wait it could finish around 19:40`, or undefined when it fits. */
async function planLine(deps: Deps, { store, scope }: PlanContext, needed: number): Promise<string | undefined> {
  const now = deps.now();
  let lastHour: number;
  let seen: Awaited<ReturnType<typeof store.ledger.lastRateLimit>>;
  try {
    [lastHour, seen] = await Promise.all([store.ledger.count(scope, now - HOUR_MS, now).then((count) => count.requests), store.ledger.lastRateLimit(scope)]);
  } catch {
    return undefined; // no plan without the count: the requests go as usual
  }
  const windowMs = (seen?.windowSeconds ?? 3600) * 1000;
  // The last headers count only while their window lasts; after it, the local count is the better guess.
  const fresh = seen?.remaining !== undefined && (seen.resetAt ?? seen.seenAt + windowMs) > now ? seen : undefined;
  const limit = fresh?.limit ?? FREE_TIER;
  const left = fresh?.remaining ?? Math.max(0, FREE_TIER - lastHour);
  if (needed <= left) return undefined;
  const finish = (fresh?.resetAt ?? now + HOUR_MS) + (Math.ceil((needed - left) / limit) - 1) * windowMs;
  const tier = fresh ? `limit: ${limit} an hour` : `free tier: ${FREE_TIER} an hour`;
  const wait = deps.globals.wait ? 'it could finish' : 'with --wait it could finish';
  return `this batch needs ${needed} requests; ${left} ${left === 1 ? 'is' : 'are'} left this hour (${tier}); ${wait} around ${formatClock(finish)}`;
}

/** One bit a place in the input, grown as places are set. */
class PlaceBits {
  #bytes = new Uint8Array(1024);

  set(place: number): void {
    const at = place >>> 3;
    if (at >= this.#bytes.length) {
      const grown = new Uint8Array(Math.max(at + 1, this.#bytes.length * 2));
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    this.#bytes[at] = (this.#bytes[at] as number) | (1 << (place & 7));
  }

  has(place: number): boolean {
    return place >= 0 && (((this.#bytes[place >>> 3] ?? 0) >> (place & 7)) & 1) === 1;
  }
}
