// The plan before a big batch: when the names that need a request (distinct, not in the answer cache)
// are more than the hour has left, say so once on stderr before anything is sent, then go on as usual.
// Only an input known in full is planned: the names are read ahead up to a bound, and a longer input
// (or a stream still open at the bound) goes unplanned rather than held back.
import { baseUrlKey } from '../api/base-url.js';
import { FREE_TIER_LIMIT as FREE_TIER } from '../api/rate-limit.js';
import { maxAgeFrom } from '../config/cache-settings.js';
import type { Deps } from '../deps.js';
import { keyFingerprint } from '../store/policy.js';
import { formatClock, HOUR_MS } from '../time.js';

/** The names, unchanged, and how many there are when the whole input was read ahead. */
export interface PlannedNames extends AsyncIterable<string> {
  total?: number;
}

/** Reads up to `ahead` names; when that is the whole input, says the plan if it exceeds the quota. */
export async function planBatch(deps: Deps, names: AsyncIterable<string>, ahead: number): Promise<PlannedNames> {
  const iterator = names[Symbol.asyncIterator]();
  const buffered: string[] = [];
  let ended = false;
  while (buffered.length < ahead) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    buffered.push(next.value);
  }
  if (ended && buffered.length > 0 && !deps.globals.quiet) {
    const line = await planLine(deps, buffered);
    if (line) deps.io.err(`rep: ${line}\n`);
  }
  return {
    ...(ended ? { total: buffered.length } : {}),
    async *[Symbol.asyncIterator]() {
      yield* buffered;
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

/** `this batch needs 150 requests; 100 are left this hour (…); with --wait it could finish around 19:40`, or undefined when it fits. */
async function planLine(deps: Deps, names: readonly string[]): Promise<string | undefined> {
  const settings = await deps.settings();
  if (settings.keySource === 'sandbox' || !settings.baseUrl) return undefined;
  const now = deps.now();
  const store = deps.store();
  if (!store) return undefined;
  const scope = { keyFingerprint: keyFingerprint(settings.key || undefined), baseUrl: baseUrlKey(settings.baseUrl) };
  const maxAgeMs = deps.globals.cache === false ? 0 : maxAgeFrom(deps.globals.maxAge, deps.env);
  let needed = 0;
  for (const query of new Set(names)) {
    const key = { ...scope, endpoint: 'audit' as const, query };
    if (!(maxAgeMs > 0) || !(await store.answers.get(key, { maxAgeMs, now }))) needed += 1;
  }
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
