// What `rep audit` does with each freshly fetched answer besides showing it: records it in the history
// (the run's store: under --sandbox the sandbox's own) and judges it by the gates. At the end every name
// that failed a gate gets one stderr line, and the run exits 7 unless an error (1–6) already decides it.
import type { Deps } from '../deps.js';
import { placeOf } from '../store/policy.js';
import { ExitCode, RepError } from '../errors.js';
import { StoreError } from '../store/errors.js';
import { openAuditHistory, type AuditHistory } from './audit-history.js';
import type { AuditView } from '../views/audit.js';
import { changeFrom, type Change } from './change.js';
import { evaluateGates, type GateLimits } from './gates.js';

/** Some name failed `--fail-under` or `--fail-on-drop`; the names are already on stderr. */
export class GateError extends RepError {
  override readonly name = 'GateError';
  readonly exitCode = ExitCode.gate;
}

export interface AuditWatch {
  /**
   * Records a fresh answer (a cached one is no new point), settling once its point is written, and judges
   * it; returns its change since the previous point (read before this run; for a cached answer, the one before the answer was fetched).
   */
  see(query: string, view: AuditView, fromCache?: { fetchedAt: number }): Promise<Change | undefined>;
  /** Awaits the run, lists the gate failures, and throws the run's error, else a GateError when a gate failed. */
  finish(run: Promise<void>): Promise<void>;
}

/** `showsChange`: the output shows each change; when it does not and no --fail-on-drop asks for one, the history is not read (only written). */
export async function startWatch(deps: Deps, limits: GateLimits, { showsChange = true } = {}): Promise<AuditWatch> {
  const baseUrl = await deps.storeBaseUrl();
  const store = deps.store();
  const readsPrevious = showsChange || limits.failOnDrop !== undefined;
  const gated = limits.failUnder !== undefined || limits.failOnDrop !== undefined;
  const history: AuditHistory | undefined = baseUrl
    ? openAuditHistory(deps, store.history, placeOf(store, 'history'), baseUrl, { reads: readsPrevious })
    : undefined;
  const failures: string[] = [];
  const judge = async (query: string, view: AuditView, fromCache: { fetchedAt: number } | undefined) => {
    const previous = readsPrevious ? await history?.previous(query, view.name, fromCache?.fetchedAt) : undefined;
    // Written before the answer is shown: a run killed once its line is printed has the point.
    if (!fromCache) await history?.record(query, view);
    if (gated)
      for (const failure of evaluateGates({ name: view.name ?? query, score: view.score, previousScore: previous?.score }, limits))
        failures.push(failure.reason);
    return view.score === undefined ? undefined : changeFrom(previous, view.score);
  };
  return {
    see(query, view, fromCache) {
      // No change shown and no gate (most machine-read batches): only the point is written, and waited for.
      if (!readsPrevious && !gated) return fromCache || !history ? NO_CHANGE : history.record(query, view);
      return judge(query, view, fromCache);
    },
    async finish(run) {
      let error: unknown;
      try {
        await run;
      } catch (caught) {
        error = caught;
      }
      await history?.settle();
      // Listed even when an error wins the exit code: the gate still failed for these names.
      for (const reason of failures) deps.io.err(`rep: gate failed: ${reason}\n`);
      if (error !== undefined) throw error;
      // A team store that could not be read: --fail-on-drop would pass blind (a local history that cannot be read is a warning).
      const unread = history?.readFailure();
      if (limits.failOnDrop !== undefined && unread instanceof StoreError)
        throw new StoreError(`--fail-on-drop ${limits.failOnDrop} needs the history: ${unread.message}`, unread.failure, {
          cause: unread,
          ...(unread.hint === undefined ? {} : { hint: unread.hint }),
        });
      if (failures.length > 0) {
        throw new GateError(`${failures.length === 1 ? 'a name' : `${failures.length} names`} failed ${gateNames(limits)}`);
      }
    },
  };
}

const NO_CHANGE: Promise<undefined> = Promise.resolve(undefined);

function gateNames(limits: GateLimits): string {
  return [
    limits.failUnder === undefined ? '' : `--fail-under ${limits.failUnder}`,
    limits.failOnDrop === undefined ? '' : `--fail-on-drop ${limits.failOnDrop}`,
  ]
    .filter(Boolean)
    .join(' or ');
}
