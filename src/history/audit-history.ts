// What one audit run (one name or a batch) does with the history, through the store's history port:
// find each name's previous point (for the change text and --fail-on-drop) and record each fresh
// answer. Lookups and appends asked in the same turn of writes (state/write-turns.ts: a turn of the
// event loop, stretched in a batch) go to the store as one call, so a batch asks for many names at
// once. Neither ever fails the run: a history that cannot be read or written is one warning a run.
import { baseUrlKey } from '../api/base-url.js';
import { alreadyTold } from '../store/errors.js';
import { systemErrorText } from '../errors.js';
import { pointFromAudit, type AuditAnswer } from '../state/history.js';
import { stageWrite } from '../state/write-turns.js';
import { FUTURE_SLACK_MS, nameKey, pointKeys } from '../store/policy.js';
import type { HistoryPoint, HistoryPort, PreviousQuestion } from '../store/port.js';

/** The parts of Deps the history needs. */
export interface HistoryDeps {
  now(): number;
  warn(text: string): void;
}

export interface AuditHistory {
  /**
   * The newest point recorded for this query at this base URL before this run (the company name only
   * where the query has none), never one dated in the future (points this run records are not seen: a
   * name audited twice compares both times with the same point), and, with `before`, recorded before
   * that time: for a cached answer, the time it was fetched.
   */
  previous(query: string, name?: string, before?: number): Promise<HistoryPoint | undefined>;
  /**
   * Records a FRESHLY FETCHED answer (never a cache hit; nothing for one with no score), settling once
   * its point is written (or its failure noted for settle()): what is shown after it is in the history.
   */
  record(query: string, answer: AuditAnswer): Promise<undefined>;
  /** Waits for every record to be written (a failure was warned). */
  settle(): Promise<void>;
  /** Why a lookup could not read the history (each such lookup answered "no previous point"), if one could not. */
  readFailure(): unknown;
}

export interface AuditHistoryOptions {
  /** false: this run never asks `previous` (it only records), so it keeps no ids of its points. */
  reads?: boolean;
}

/** `where` names the history for warnings (a folder; a database). */
export function openAuditHistory(
  deps: HistoryDeps,
  history: HistoryPort,
  where: string,
  baseUrl: URL | string,
  { reads = true }: AuditHistoryOptions = {},
): AuditHistory {
  const base = baseUrlKey(baseUrl);
  /**
   * The ids of the points this run recorded, by each key they answer to: `previous` never sees them,
   * and a lookup is given only those that could answer it (all of them, to every lookup of a batch, was
   * quadratic).
   */
  const own = new Map<string, string[]>();
  const ownFor = (keys: string[]) => keys.flatMap((key) => own.get(key) ?? []);
  // One warning a run: a history that cannot be used fails its reads and writes alike, for one reason.
  let warned = false;
  const warnOnce = (text: string, error: unknown) => {
    // A team store tells its own failure once; this run need not tell it again.
    if (!warned && !alreadyTold(error)) deps.warn(text);
    warned = true;
  };
  let unread: unknown;
  const lookups = batched<PreviousQuestion, HistoryPoint | undefined>(async (questions) => {
    try {
      return await history.previous(
        questions.map((question) => ({
          ...question,
          excludeIds: ownFor(question.nameKey === undefined ? [question.queryKey] : [question.queryKey, question.nameKey]),
        })),
      );
    } catch (error) {
      unread ??= error;
      warnOnce(`cannot read the history in ${where} (${systemErrorText(error)}): no previous scores to compare with`, error);
      return questions.map(() => undefined);
    }
  });
  // Points that could not be recorded: settle() names them, so no printed score is lost unsaid.
  const unrecorded: string[] = [];
  let appendFailure: unknown;
  const appends = batched<HistoryPoint, undefined>(async (points) => {
    try {
      await history.append(points);
    } catch (error) {
      unrecorded.push(...points.map((point) => point.name ?? point.query));
      appendFailure ??= error;
    }
    return points.map(() => undefined);
  });
  return {
    previous(query, name, before) {
      // A point dated after now (a wrong clock on some machine) would otherwise stay "previous" for ever.
      const until = Math.min(before ?? Number.POSITIVE_INFINITY, deps.now() + FUTURE_SLACK_MS);
      const nameText = name === undefined ? undefined : nameKey(name);
      return lookups({ baseUrl: base, queryKey: nameKey(query), ...(nameText ? { nameKey: nameText } : {}), before: until });
    },
    record(query, answer) {
      const point = pointFromAudit(answer, { at: deps.now(), baseUrl: base, query });
      if (!point) return NOTHING;
      if (reads) {
        for (const key of pointKeys(point)) {
          const ids = own.get(key);
          if (ids) ids.push(point.id);
          else own.set(key, [point.id]);
        }
      }
      return appends(point);
    },
    async settle() {
      await appends.idle();
      if (unrecorded.length === 0) return;
      const told = alreadyTold(appendFailure);
      // A history already said to be unusable (a local file refused) needs no second line; a team store's failure does: the names.
      if (!warned || told) {
        const names = listNames(unrecorded.splice(0));
        deps.warn(
          `cannot record the score${names.many ? 's' : ''} of ${names.text} in the history in ${where}${told ? '' : ` (${systemErrorText(appendFailure)})`}`,
        );
      }
      unrecorded.length = 0;
      warned = true;
    },
    readFailure: () => unread,
  };
}

/** What a call with nothing to wait for settles with. */
const NOTHING: Promise<undefined> = Promise.resolve(undefined);

/** `a, b and c` (at most 20 names, then `and N more`). */
function listNames(names: string[]): { text: string; many: boolean } {
  const shown = names.length > 20 ? [...names.slice(0, 20), `${names.length - 20} more`] : names;
  const text = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
  return { text, many: names.length > 1 };
}

/**
 * Calls made in one turn of writes (state/write-turns.ts) go to `many` as one call, each caller getting
 * its own answer; `idle()` settles once no call is waiting or under way (`many` never rejects).
 */
function batched<Q, A>(many: (items: Q[]) => Promise<A[]>): ((item: Q) => Promise<A>) & { idle(): Promise<void> } {
  let queue: Array<{ item: Q; resolve: (answer: A) => void }> = [];
  /** Groups staged or under way, and who waits for there to be none. */
  let groups = 0;
  let idlers: Array<() => void> = [];
  const send = async () => {
    const taken = queue;
    queue = [];
    const answers = await many(taken.map((entry) => entry.item));
    for (const [index, entry] of taken.entries()) entry.resolve(answers[index] as A);
    if (--groups > 0) return;
    const woken = idlers;
    idlers = [];
    for (const wake of woken) wake();
  };
  const call = (item: Q) =>
    new Promise<A>((resolve) => {
      const first = queue.push({ item, resolve }) === 1;
      if (first) groups += 1;
      stageWrite(first ? send : undefined);
    });
  return Object.assign(call, { idle: () => (groups === 0 ? Promise.resolve() : new Promise<void>((wake) => idlers.push(wake))) });
}
