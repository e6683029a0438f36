// Linked signals: one abort that follows several signals, detached when the request is done. Each source
// signal gets a single listener however many links follow it: a batch with 20 requests in flight
// would otherwise hang 20 listeners on the one Ctrl-C signal (and Node warns past 10). On Node 20,
// AbortSignal.any() also leaves a WeakRef in every source per call, so a long batch grew memory by megabytes.
// A link is no AbortSignal (an EventTarget and a controller a request cost more than the request's own
// JavaScript): Node's client is told through onAbort, and `signal` makes a real one for who needs it.

/** What a link follows: a signal, or another link. */
export type Abortable = AbortSignal | LinkedSignal;

/**
 * The signals a call follows (the client's and the call's own; either may be missing). Each attempt's
 * link follows them directly: a link for the call as well cost every request a second link, and the
 * call an await to dispose of it.
 */
export type Signals = ReadonlyArray<Abortable | undefined>;

/** Whether any of the signals aborted. */
export function anyAborted(signals: Signals): boolean {
  for (const signal of signals) if (signal?.aborted) return true;
  return false;
}

export interface LinkedSignal {
  readonly aborted: boolean;
  /** The reason of the source that aborted it; abort()'s is an AbortError, as AbortController's. */
  readonly reason: unknown;
  /** An AbortSignal that follows this link, made on first use (a sleep, a hook, the proxied client take one). */
  readonly signal: AbortSignal;
  /** Calls `listener` once when the link aborts (at once when it has). */
  onAbort(listener: (reason: unknown) => void): void;
  /** Detaches from the sources and drops its listeners (it tells no one after); call when the request is settled. */
  dispose(): void;
  /** Aborts this link alone (a timeout of its own), not its sources; with no reason, an AbortError. */
  abort(reason?: unknown): void;
}

/** The links following each source signal, aborted together by the source's one listener. */
const followers = new WeakMap<AbortSignal, Set<Link>>();

class Link implements LinkedSignal {
  aborted = false;
  reason: unknown = undefined;
  /** The links that follow this one, made when the first does (an attempt's link has none). */
  #followers: Set<Link> | undefined;
  readonly #followed: Array<Set<Link>> = [];
  #listeners: Array<(reason: unknown) => void> | undefined;
  #controller: AbortController | undefined;

  constructor(sources: ReadonlyArray<Abortable | undefined>) {
    for (const source of sources) {
      if (!source) continue;
      if (source.aborted) {
        this.abortWith(source.reason);
        break;
      }
      const group = source instanceof Link ? source.followedBy() : followersOf(source as AbortSignal);
      group.add(this);
      this.#followed.push(group);
    }
  }

  /** The group of links that follow this one, for a new follower to join. */
  followedBy(): Set<Link> {
    this.#followers ??= new Set();
    return this.#followers;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): void {
    if (this.aborted) listener(this.reason);
    else (this.#listeners ??= []).push(listener);
  }

  dispose(): void {
    for (const group of this.#followed) group.delete(this);
    // A link may outlive its request (a cleared timer's closure still holds the attempt's): without its
    // listeners it keeps no request, socket or promise chain alive. Once a link reached the old
    // generation, those kept every attempt's objects for a full collection: a batch ran ~12% more CPU.
    this.#listeners = undefined;
  }

  abort(reason?: unknown): void {
    this.abortWith(reason);
  }

  abortWith(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    // As AbortController.abort() says it when given no reason.
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.#controller?.abort(this.reason);
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) listener(this.reason);
    const followers = this.#followers;
    this.#followers = undefined;
    for (const follower of followers ?? []) follower.abortWith(this.reason);
  }
}

export function linkSignals(sources: ReadonlyArray<Abortable | undefined>): LinkedSignal {
  return new Link(sources);
}

/** The AbortSignal of a signal or a link (a link's is made on first use). */
export function signalOf(source: Abortable): AbortSignal;
export function signalOf(source: Abortable | undefined): AbortSignal | undefined;
export function signalOf(source: Abortable | undefined): AbortSignal | undefined {
  return source instanceof Link ? source.signal : (source as AbortSignal | undefined);
}

function followersOf(source: AbortSignal): Set<Link> {
  let group = followers.get(source);
  if (!group) {
    const created = new Set<Link>();
    source.addEventListener(
      'abort',
      () => {
        for (const follower of created) follower.abortWith(source.reason);
        created.clear();
      },
      { once: true },
    );
    followers.set(source, (group = created));
  }
  return group;
}
