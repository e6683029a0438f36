// Runs a batch of audits: up to `concurrency` requests in flight, each distinct name sent once, records
// written in input order as soon as the input-order prefix is complete. Only a bounded window of names
// is held at a time, so memory stays flat however long the input is.
import { signalOf } from '../api/abort-link.js';
import { shapeOf } from '../commands/shape.js';
import type { CallOptions, RepClient } from '../api/client.js';
import type { AuditView } from '../views/audit.js';
import type { Change } from '../history/change.js';
import type { Deps } from '../deps.js';
import type { IO } from '../io.js';
import { describeError, InterruptedError, NotCachedError, RateLimitError, UsageError } from '../errors.js';
import type { BatchRecord } from '../output/batch.js';
import { startBatchProgress, type Progress } from '../progress.js';
import { parseJson, serializeJson } from '../text.js';
import { stretchWriteTurns } from '../state/write-turns.js';
import { Dedupe } from './dedupe.js';
import { tempFilesWarning } from './temp-files.js';
import type { NameChunks } from './input.js';
import type { PlannedNames } from './plan.js';
import { BatchError, BatchTally, NOT_AUDITED, type Outcome } from './outcome.js';

export interface BatchOptions {
  concurrency: number;
  /**
   * Names read ahead of the oldest unwritten one (default: 16 per request in flight, at least 512: a
   * name waits for stretched write turns, state/write-turns.ts, one after another: its cache record,
   * its previous point where the format shows the change, its new point; the window must hold what a
   * fast server answers meanwhile).
   */
  window?: number;
  /** The final error's hint when no name at all was found (instead of the one pointing at the records). */
  allNotFoundHint?: string;
  /** Names read before the first request, to plan against the hour's quota when that is the whole input (0: no plan). */
  planAhead?: number;
  /** false while names are typed at the terminal, where a progress line would draw over them. */
  progress?: boolean;
  /** `--csv-sources`: batch CSV has a row per source instead of one per company. */
  csvSources?: boolean;
  /** Sees each freshly fetched answer (not a duplicate's reuse of it). */
  onAnswer?: (query: string, view: AuditView, fromCache: { fetchedAt: number } | undefined) => Promise<Change | undefined>;
}

interface Slot {
  name: string;
  outcome?: Outcome;
  /**
   * The first answer for a name is kept as the parsed body, so it is not parsed twice; and its audit
   * view, not built twice (where the writer reads them: BatchWriter.readsResult).
   */
  body?: unknown;
  view?: AuditView;
  /** The score's change since its previous recorded point (the table's and CSV's Change). */
  change?: Change;
  /** Its request went out: until its record is written, it counts among the requests ahead of the output. */
  sent?: boolean;
  /** Its call waits in the line for a request slot. */
  inLine?: boolean;
}

export async function runBatch(deps: Deps, input: NameChunks, options: BatchOptions): Promise<void> {
  const { io } = deps;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const window = Math.max(1, options.window ?? Math.max(512, concurrency * 16));
  // Before the plan: its read-ahead of up to 100,000 names makes garbage at a batch's rate too.
  deps.longRun();
  const source = options.planAhead ? await (await import('./plan.js')).planBatch(deps, input, options.planAhead) : input;
  // Known when the input was read ahead in full: the progress line then counts every name from the start.
  const total = 'total' in source && typeof source.total === 'number' ? source.total : undefined;
  const planned = 'missed' in source ? (source as PlannedNames) : undefined;
  const client = await deps.client();
  const [{ createBatchWriter }, { csvBom }] = await Promise.all([import('../output/batch.js'), import('../output/csv.js')]);
  const shape = await shapeOf(deps.globals);
  // The records ready at once (a write turn's answers, state/write-turns.ts) go to stdout in one write:
  // the writer's output is held while writeReady writes them, then written whole.
  let held: string[] | undefined;
  const out: IO = Object.create(io, {
    out: { value: (text: string) => (held ? held.push(text) > 0 && !io.stdoutClosed.aborted : io.out(text)) },
  });
  const writer = shape
    ? (await import('../output/shaped.js')).shapedBatchWriter(out, deps.format(), shape)
    : createBatchWriter(out, deps.format(), { signal: deps.signal, bom: csvBom(deps), csvSources: options.csvSources === true });
  // A second signal exits before this run ends: what was written stays a whole document.
  signalOf(deps.exiting).addEventListener('abort', () => writer.close(), { once: true });
  const tally = new BatchTally();
  const dedupe = new Dedupe<Slot>({ onTrouble: (error) => deps.warn(tempFilesWarning(error)) });
  deps.onExit(() => dedupe.discard()); // also when a call settles after an early end
  const queue: Slot[] = [];
  /** Slots in the queue that have their outcome (written at the next flush that reaches them). */
  let settledInQueue = 0;
  /** Requests out and not answered yet: at most `concurrency` (cache lookups are not counted: they go at once). */
  let inFlight = 0;
  /**
   * Calls waiting for a request slot, and known misses waiting unstarted (send), oldest first: each is
   * handed a freed slot (true), or told to give up (false).
   */
  const slotLine: Array<{ slot: Slot; hand: (handed: boolean) => void }> = [];
  /**
   * Requests sent whose records are not written yet: `concurrency` at first, and a quarter of the
   * records written more, up to MAX_MORE_AHEAD more. A reader that went away (`rep audit --file … |
   * head -1`) is found at the next write, so at most that many more requests go out after it: about
   * as many as are in flight for a short read, a quarter more for a longer one. A long batch's writes
   * still go a group at a time (state/write-turns.ts).
   */
  let ahead = 0;
  let written = 0;
  const maxAhead = () => concurrency + Math.min(MAX_MORE_AHEAD, written >>> 2);
  /**
   * Whether the call of `slot` may send now: a free request slot, and room ahead of the output; or, the
   * oldest name not written yet (whose record all the others wait for), a free slot alone. A name whose
   * cache lookup came after later names took the room (its answer went stale since the plan) would
   * otherwise wait for records that wait for it.
   */
  const canSend = (slot: Slot) => inFlight < concurrency && (ahead < maxAhead() || slot === queue[0]);
  /** A request slot taken, and a request ahead of the output. */
  const occupy = () => {
    inFlight += 1;
    ahead += 1;
  };
  /**
   * Hands free slots to the waiting calls that may send (canSend): the oldest first, or, with no room
   * ahead, the oldest name's alone.
   */
  const admit = () => {
    while (inFlight < concurrency && slotLine.length > 0) {
      // Looked for only when it waits there: with no room ahead, each answer asks again.
      const index = ahead < maxAhead() ? 0 : queue[0]?.inLine ? slotLine.findIndex((waiting) => waiting.slot === queue[0]) : -1;
      if (index < 0) return;
      // shift, not splice, for the oldest: the line holds most of the window, and splice moves it all.
      const waiting = (index === 0 ? slotLine.shift() : slotLine.splice(index, 1)[0])!;
      waiting.slot.inLine = false;
      occupy();
      waiting.hand(true);
    }
  };
  /** A slot frees: the oldest waiting call may take it over. */
  const releaseSlot = () => {
    inFlight -= 1;
    admit();
  };
  /** The batch stopped or met the rate limit: no waiting call sends. */
  const refuseWaiting = () => {
    for (const waiting of slotLine.splice(0)) {
      waiting.slot.inLine = false;
      waiting.hand(false);
    }
  };
  let rateLimit: RateLimitError | undefined;
  let read = 0;
  let allRead = false;
  const progress: Progress = options.progress === false ? { hold() {}, update() {}, stop() {} } : startBatchProgress(deps, 'auditing…');
  const showProgress = () => {
    const done = tally.total + settledInQueue;
    const count = total ?? read;
    const known = total !== undefined || allRead;
    progress.update(`auditing: ${done} of ${count}${known ? '' : '+'} ${count === 1 && known ? 'name' : 'names'} done`);
  };

  // The loop below waits here for a condition (its chunk of names taken, every call settled); every
  // change that might make one true calls `changed`, which wakes only the waiters whose condition holds.
  const waiters = new Set<{ ready: () => boolean; resolve: () => void }>();
  const changed = () => {
    for (const waiter of waiters) {
      if (!waiter.ready()) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  };
  const until = (ready: () => boolean) => new Promise<void>((resolve) => waiters.add({ ready, resolve }));
  const stopped = () => io.stdoutClosed.aborted || deps.signal.aborted;
  // One controller for the batch's calls, aborted when stdout closes: the client links each call to
  // it (linkSignals: a set entry a call, not AbortSignal.any, which on Node 20 kept a WeakRef a call).
  const closed = new AbortController();
  /** Calls not settled yet (answered, stored and their record made). */
  let unsettled = 0;
  const onInterrupt = () => {
    refuseWaiting();
    changed();
  };
  const onClosed = () => {
    closed.abort();
    onInterrupt();
  };
  io.stdoutClosed.addEventListener('abort', onClosed, { once: true });
  signalOf(deps.signal).addEventListener('abort', onInterrupt, { once: true });

  // The answers' history points and cache records are written a group at a time, not a turn of the
  // event loop at a time (state/write-turns.ts), except while the batch can only wait for them: no
  // request is out, and none can go (the window is full of names, or the input has no more). Then each
  // turn's writes go at its end, until a request goes out again.
  let endStretch: (() => void) | undefined = stretchWriteTurns();
  let ended = false;
  const unstretch = () => {
    endStretch?.();
    endStretch = undefined;
  };
  const pace = () => {
    const onlyWrites = inFlight === 0 && (queue.length >= window || allRead || ahead >= maxAhead());
    if (onlyWrites) unstretch();
    else if (!endStretch && !ended) endStretch = stretchWriteTurns();
  };

  /** Writes the records ready at the head of the queue, in input order. */
  const writeReady = () => {
    held = [];
    try {
      while (queue[0]?.outcome && !io.stdoutClosed.aborted) {
        const slot = queue.shift() as Slot & { outcome: Outcome };
        settledInQueue -= 1;
        tally.count(slot.outcome);
        if (slot.sent) ahead -= 1;
        written += 1;
        writer.write(recordOf(slot), slot.change, 'text' in slot.outcome ? slot.outcome.text : undefined, slot.view);
      }
    } finally {
      // Also when a writer throws: what it wrote before goes out, and later writes are not held.
      const text = held.length === 1 ? held[0]! : held.join('');
      held = undefined;
      if (text) io.out(text);
    }
    admit(); // requests wait for no record that is written
  };

  /** The chunk of names being taken into the window, and the place in it of the next one to take. */
  let chunk: readonly string[] = [];
  let next = 0;
  /**
   * Takes names from the chunk while the window has room. The loop below calls it for each chunk and
   * every flush after a record is written, so a name waiting for room costs no promise of its own.
   */
  const take = () => {
    while (next < chunk.length && queue.length < window && !stopped()) {
      const slot: Slot = { name: chunk[next++] as string };
      const place = read;
      queue.push(slot);
      read += 1;
      const known = dedupe.get(slot.name);
      if (known === 'pending') dedupe.wait(slot.name, slot);
      else if (known) {
        slot.outcome = known;
        settledInQueue += 1;
        writeReady(); // a duplicate answered before: its record may be next, and make room
      } else send(slot, place);
    }
    pace();
  };

  /**
   * Calls settled in this turn of the event loop write their records at its end, together: a write
   * turn's answers settle in one (state/write-turns.ts), and their records go to stdout in one write.
   */
  let flushPending = false;
  const flushSoon = () => {
    if (flushPending) return;
    flushPending = true;
    setImmediate(() => {
      flushPending = false;
      if (!ended) flush();
    });
  };

  const flush = () => {
    writeReady();
    take();
    showProgress();
    changed();
  };

  /** Whether the call of `slot` may take a request slot at once: one free, and none waiting before it. */
  const slotFree = (slot: Slot) => canSend(slot) && (slotLine.length === 0 || slot === queue[0]);

  /**
   * Asks for the name in `slot`, the input's name at `place`. A known miss (no cache lookup before its
   * request) that would wait for a request slot waits in the line unstarted, and is asked once handed
   * one (or told to give up), a turn of microtasks later, as a started call's wait would end: started,
   * each held its client call's frames, promises and closures for the whole wait, and most of the
   * window waits.
   */
  const send = (slot: Slot, place: number) => {
    dedupe.start(slot.name);
    unsettled += 1;
    const onlyIfCached = rateLimit !== undefined;
    if (!planned?.missed(place) || stopped() || rateLimit || slotFree(slot)) return ask(slot, place, onlyIfCached);
    slot.inLine = true;
    slotLine.push({ slot, hand: (handed) => queueMicrotask(() => ask(slot, place, onlyIfCached, handed)) });
  };

  /** The call for `slot`; `handed`, for a known miss that waited unstarted: whether it was handed a slot. */
  const ask = (slot: Slot, place: number, onlyIfCached: boolean, handed?: boolean) => {
    const again = planned?.repeats(place) ?? true;
    // A cache miss takes a request slot, in the order the misses came (a freed slot goes to the oldest
    // waiting one, without waking the others); once rate limited, nothing more is sent (only the cache answers).
    // A slot handed before the call started is held from now: a call that fails before beforeSend (a
    // refused query) still frees it.
    let holds = handed === true;
    if (holds) slot.sent = true;
    /**
     * After the wait in the line: the call keeps the slot it was handed, or gives it back and gives up
     * (told to, or handed one by the very answer that met the limit: checked again).
     */
    const afterWait = (granted: boolean): Error | undefined => {
      if (!stopped() && !rateLimit) {
        holds = slot.sent = true;
        return undefined;
      }
      if (granted) {
        holds = slot.sent = false;
        ahead -= 1;
        releaseSlot();
      }
      return stopped() ? new InterruptedError() : new NotCachedError('rate limited');
    };
    // Not an async function: a call that finds a slot free makes no promise and waits for none (it
    // sends at once), and one that waits makes two rather than three.
    const beforeSend = (): Promise<void> | undefined => {
      if (handed !== undefined) {
        const refused = afterWait(handed);
        return refused ? Promise.reject(refused) : undefined;
      }
      if (stopped()) return Promise.reject(new InterruptedError());
      if (rateLimit) return Promise.reject(new NotCachedError('rate limited'));
      if (slotFree(slot)) {
        occupy();
        holds = slot.sent = true;
        return undefined;
      }
      slot.inLine = true;
      return new Promise<boolean>((hand) => slotLine.push({ slot, hand })).then((granted) => {
        const refused = afterWait(granted);
        if (refused) throw refused;
      });
    };
    // The slot frees once the answer is in (or the call failed): the next request goes out while the
    // client stores this answer and its record is made, on the event loop's idle time.
    let answered = false;
    const onAnswered = () => {
      if (answered || !holds) return;
      answered = true;
      releaseSlot();
      pace();
      changed();
    };
    const call = {
      signal: closed.signal,
      onlyIfCached,
      onAnswered,
      beforeSend,
      ...(planned?.missed(place) ? { knownMiss: true } : {}),
    };
    void fetchOutcome(client, slot.name, call, options.onAnswer, writer.readsResult).then((answer) => {
      unsettled -= 1;
      onAnswered();
      if (answer === 'stopped') return changed();
      if (answer.rateLimit && !rateLimit) {
        rateLimit = answer.rateLimit;
        refuseWaiting();
      }
      const waiting = dedupe.settle(slot.name, answer.outcome, { again });
      for (const other of waiting) Object.assign(other, { outcome: answer.outcome, change: answer.change });
      settledInQueue += 1 + waiting.length;
      slot.change = answer.change;
      slot.body = answer.body;
      slot.view = answer.view;
      slot.outcome = answer.outcome;
      flushSoon();
    });
  };

  try {
    for await (const names of source) {
      chunk = names;
      next = 0;
      take();
      showProgress();
      // Most chunks wait here while their names are taken, a few each time a record is written.
      const taken = () => next === chunk.length || stopped();
      if (!taken()) await until(taken);
      if (stopped()) break;
    }
    allRead = true;
    pace();
    const settled = () => unsettled === 0;
    if (!settled()) await until(settled); // every call settled: answered, stored and its record ready
    flush();
  } finally {
    ended = true;
    unstretch();
    dedupe.discard();
    progress.stop();
    io.stdoutClosed.removeEventListener('abort', onClosed);
    signalOf(deps.signal).removeEventListener('abort', onInterrupt);
  }

  if (deps.signal.aborted) {
    await writer.end({ interrupted: true }); // what is written stays, as a whole document (json: `]`)
    throw new InterruptedError();
  }
  if (io.stdoutClosed.aborted) return; // the reader went away: end quietly, as `cat | head` would
  if (tally.total === 0) {
    throw new UsageError('no company names in the input', { hint: 'give one name a line; blank lines and lines starting with # are skipped' });
  }
  await writer.end();
  if (io.stdoutClosed.aborted) return;
  if (!deps.globals.quiet) io.err(`${tally.summaryLine()}\n`);
  const failure = BatchError.from(tally, rateLimit, tally.notFound === tally.total ? options.allNotFoundHint : undefined);
  if (failure) throw failure;
}

/**
 * Requests a batch may have out beyond its records written, past `concurrency` (see `ahead`): room for
 * a write group of ~160 answers (state/write-turns.ts). Against a server of real latency far fewer
 * are ever ahead (those answered in one write turn, 32 ms at most); only a fast one reaches the bound.
 */
const MAX_MORE_AHEAD = 160;

type Answer = { outcome: Outcome; body?: unknown; view?: AuditView; change?: Change | undefined; rateLimit?: RateLimitError } | 'stopped';

/**
 * A name's answer; `keepsResult`: with its parsed body and view, for a writer that reads them
 * (BatchWriter.readsResult). Without, neither outlives the wait for the answer's history point.
 */
async function fetchOutcome(client: RepClient, name: string, call: CallOptions, onAnswer: BatchOptions['onAnswer'], keepsResult: boolean): Promise<Answer> {
  try {
    const response = await client.audit(name, call);
    // Kept as JSON text: a later duplicate of this name reuses it at a fraction of the object's size.
    const outcome: Outcome = { text: serializeJson(response.body), ...(response.fromCache ? { cached: true as const } : {}) };
    const answer: Exclude<Answer, 'stopped'> = keepsResult ? { outcome, body: response.body, view: response.view } : { outcome };
    answer.change = await onAnswer?.(name, response.view, response.fromCache);
    return answer;
  } catch (error) {
    if (error instanceof InterruptedError) return 'stopped';
    if (error instanceof RateLimitError) return { outcome: NOT_AUDITED, rateLimit: error };
    if (error instanceof NotCachedError) return { outcome: NOT_AUDITED };
    const { exitCode, message } = describeError(error);
    return { outcome: { error: { exit: exitCode, message } } };
  }
}

function recordOf(slot: Slot & { outcome: Outcome }): BatchRecord {
  const { name, outcome } = slot;
  if ('error' in outcome) return { query: name, error: { exit: outcome.error.exit, message: outcome.error.message } };
  if (slot.body !== undefined) return { query: name, result: slot.body };
  // A duplicate's answer, or one whose body was not kept: parsed from its text only if a writer reads it.
  const { text } = outcome;
  let parsed: { result: unknown } | undefined;
  return {
    query: name,
    get result() {
      parsed ??= { result: parseJson(text) };
      return parsed.result;
    },
  };
}
