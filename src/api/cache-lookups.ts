// The client's cache lookups: those asked in one turn of the event loop go to the store together, as
// one getMany. A batch's names then cost a database one query for many, where each would be a round
// trip of its own; a single lookup waits one turn (the run's first I/O waits longer).
import type { AnswerKey, AnswerStorePort, CachedAnswer, Freshness } from '../store/port.js';

export type CacheLookup = (key: AnswerKey, freshness: Freshness) => Promise<CachedAnswer | undefined>;

interface Waiting {
  key: AnswerKey;
  freshness: Freshness;
  resolve: (answer: CachedAnswer | undefined) => void;
}

/** The answers to many keys, in their order: one getMany, or key by key from a store without it (one written before it). */
export function getMany(answers: AnswerStorePort, keys: readonly AnswerKey[], freshness: Freshness): Promise<Array<CachedAnswer | undefined>> {
  return typeof answers.getMany === 'function' ? answers.getMany(keys, freshness) : Promise.all(keys.map((key) => answers.get(key, freshness)));
}

export function cacheLookups(answers: AnswerStorePort): CacheLookup {
  const many = (keys: readonly AnswerKey[], freshness: Freshness) => getMany(answers, keys, freshness);
  let waiting: Waiting[] = [];
  const send = async () => {
    const group = waiting;
    waiting = [];
    // The newest `now` of the group: no answer is older than its own lookup allowed.
    const freshness = group.at(-1)!.freshness;
    let found: Array<CachedAnswer | undefined> = [];
    try {
      found = await many(
        group.map((entry) => entry.key),
        freshness,
      );
    } catch {
      // The port's lookups never reject; a store that still did (or threw) misses, as a failed get does.
    }
    for (const [index, entry] of group.entries()) entry.resolve(found[index]);
  };
  return (key, freshness) =>
    new Promise((resolve) => {
      if (waiting.push({ key, freshness, resolve }) === 1) setImmediate(send);
    });
}
