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

export function cacheLookups(answers: AnswerStorePort): CacheLookup {
  // A store written against the port before getMany (a library user's own) is asked key by key.
  const many: AnswerStorePort['getMany'] =
    typeof answers.getMany === 'function'
      ? (keys, freshness) => answers.getMany(keys, freshness)
      : (keys, freshness) => Promise.all(keys.map((key) => answers.get(key, freshness)));
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
