// One AbortSignal that follows several, with listeners removed when the request is done. On Node 20,
// AbortSignal.any() leaves a WeakRef in every source signal per call, so a batch of 100,000 requests
// against the long-lived Ctrl-C signal grew memory by megabytes; this does not.

export interface LinkedSignal {
  signal: AbortSignal;
  /** Detaches from the sources; call when the request is settled. */
  dispose(): void;
}

export function linkSignals(sources: ReadonlyArray<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const present = sources.filter((source): source is AbortSignal => source !== undefined);
  const onAbort = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const source of present) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const source of present) source.removeEventListener('abort', onAbort);
    },
  };
}
