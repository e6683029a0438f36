// The plan before a big batch: when the names that need a request (distinct, not in the answer cache)
// are more than the hour has left, say so once on stderr before anything is sent, then go on as usual.
// Only an input known in full is planned: the names are read ahead up to a bound, and a longer input
// (or a stream still open at the bound) goes unplanned rather than held back. The names read ahead
// wait in a NameSpill (bounded memory), and each distinct one is looked up in the cache as it is read.
import { formatClock } from '../api/rate-limit.js';
import { answerCacheFor } from '../context.js';
import type { Deps } from '../deps.js';
import { NameSpill } from './name-spill.js';

const HOUR_MS = 3_600_000;
const FREE_TIER = 100;

/** Reads up to `ahead` names; when that is the whole input, says the plan if it exceeds the quota. The names come back unchanged. */
export async function planBatch(deps: Deps, names: AsyncIterable<string>, ahead: number): Promise<AsyncIterable<string>> {
  const iterator = names[Symbol.asyncIterator]();
  const spill = new NameSpill();
  deps.onExit(() => spill.discard());
  const needsRequest = deps.globals.quiet ? undefined : await requestNeed(deps);
  let needed = 0;
  let ended = false;
  while (spill.size < ahead) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    if (spill.push(next.value) && needsRequest?.(next.value)) needed++;
  }
  if (ended && spill.size > 0 && needsRequest) {
    const line = await planLine(deps, needed);
    if (line) deps.io.err(`rep: ${line}\n`);
  }
  return {
    async *[Symbol.asyncIterator]() {
      yield* spill.replay();
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

/** Whether a name needs a request (no fresh answer in the cache); undefined when no plan is said (sandbox, no base URL). */
async function requestNeed(deps: Deps): Promise<((query: string) => boolean) | undefined> {
  const settings = await deps.settings();
  if (settings.keySource === 'sandbox' || !settings.baseUrl) return undefined;
  const { cache } = await answerCacheFor(deps, settings);
  const apiKey = settings.key || undefined;
  const baseUrl = settings.baseUrl;
  return (query) => !cache?.store.get({ baseUrl, endpoint: 'audit', query, apiKey }, { maxAgeMs: cache.maxAge * 1000, now: deps.now() });
}

/** `this batch needs 150 requests; 100 are left this hour (…); with --wait it could finish around 19:40`, or undefined when it fits. */
async function planLine(deps: Deps, needed: number): Promise<string | undefined> {
  const settings = await deps.settings();
  const now = deps.now();
  const { keyId, readRequestStatus } = await import('../state/requests.js');
  const status = readRequestStatus(deps.paths().stateDir, keyId(settings.key ?? ''), now);
  const seen = status.rateLimit;
  const windowMs = (seen?.windowSeconds ?? 3600) * 1000;
  // The last headers count only while their window lasts; after it, the local count is the better guess.
  const fresh = seen?.remaining !== undefined && (seen.resetAt ?? seen.seenAt + windowMs) > now ? seen : undefined;
  const limit = fresh?.limit ?? FREE_TIER;
  const left = fresh?.remaining ?? Math.max(0, FREE_TIER - status.lastHour);
  if (needed <= left) return undefined;
  const finish = (fresh?.resetAt ?? now + HOUR_MS) + (Math.ceil((needed - left) / limit) - 1) * windowMs;
  const tier = fresh ? `limit: ${limit} an hour` : `free tier: ${FREE_TIER} an hour`;
  const wait = deps.globals.wait ? 'it could finish' : 'with --wait it could finish';
  return `this batch needs ${needed} requests; ${left} ${left === 1 ? 'is' : 'are'} left this hour (${tier}); ${wait} around ${formatClock(finish)}`;
}
