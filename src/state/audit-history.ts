// What one audit run (one name or a batch) does with the history: read it once, lazily, to find each
// name's previous point (for the change text and --fail-on-drop), and record each fresh answer.
// Neither ever fails the run: a history that cannot be read or written is one warning.
import { systemErrorText } from '../errors.js';
import { historyFile, latestPoints, openHistory, pointFromAudit, type AuditAnswer, type HistoryPoint, type HistoryStore } from './history.js';

/** The parts of Deps the history needs. */
export interface HistoryDeps {
  env: NodeJS.ProcessEnv;
  paths(): { stateDir: string };
  now(): number;
  warn(text: string): void;
}

export interface AuditHistory {
  /**
   * The newest point recorded for this query or company name at this base URL before this run
   * (points this run records are not seen: a name audited twice compares both times with the same point),
   * and, with `before`, recorded before that time: for a cached answer, the time it was fetched.
   */
  previous(query: string, name?: string, before?: number): HistoryPoint | undefined;
  /**
   * Records a FRESHLY FETCHED answer; the caller must not call it for a cache hit or under --sandbox.
   * Returns the point, or undefined when the answer has no score or the point could not be written (warned).
   */
  record(query: string, answer: AuditAnswer): HistoryPoint | undefined;
}

export function openAuditHistory(deps: HistoryDeps, baseUrl: URL | string): AuditHistory {
  const store: HistoryStore = openHistory(historyFile(deps.env, deps.paths().stateDir), { warn: deps.warn });
  let latest: ReturnType<typeof latestPoints> | undefined;
  const recorded = () => {
    if (latest) return latest;
    let points: HistoryPoint[] = [];
    try {
      points = store.read();
    } catch (error) {
      deps.warn(`cannot read the history file ${store.file} (${systemErrorText(error)}): no previous scores to compare with`);
    }
    return (latest = latestPoints(points, baseUrl));
  };
  return {
    previous: (query, name, before) => recorded()(query, name, before),
    record(query, answer) {
      const point = pointFromAudit(answer, { at: deps.now(), baseUrl, query });
      if (!point) return undefined;
      recorded(); // read before the first write, so `previous` never sees this run's points
      try {
        store.append([point]);
        return point;
      } catch (error) {
        deps.warn(`cannot record the score in the history file ${store.file} (${systemErrorText(error)})`);
        return undefined;
      }
    },
  };
}
