// One AbortSignal that follows several, detached when the request is done. Each source signal gets a
// single listener however many signals follow it: a batch with 20 requests in flight would otherwise
// hang 20 listeners on the one Ctrl-C signal (and Node warns past 10). On Node 20, AbortSignal.any()
// also leaves a WeakRef in every source per call, so a long batch grew memory by megabytes; this does not.

export interface LinkedSignal {
  signal: AbortSignal;
  /** Detaches from the sources; call when the request is settled. */
  dispose(): void;
}

/** The controllers following each source signal, aborted together by the source's one listener. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

export function linkSignals(sources: ReadonlyArray<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const followed: Array<Set<AbortController>> = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const group = followersOf(source);
    group.add(controller);
    followed.push(group);
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const group of followed) group.delete(controller);
    },
  };
}

function followersOf(source: AbortSignal): Set<AbortController> {
  let group = followers.get(source);
  if (!group) {
    const created = new Set<AbortController>();
    source.addEventListener('abort', () => {
      for (const follower of created) follower.abort(source.reason);
      created.clear();
    }, { once: true });
    followers.set(source, (group = created));
  }
  return group;
}
