// What one audit run (one name or a batch) does with the history: read it, lazily (a batch once, whole;
// one name only the lines that may hold it), to find each name's previous point (for the change text
// and --fail-on-drop), and record each fresh answer.
// Neither ever fails the run: a history that cannot be read or written is one warning.
import { systemErrorText } from '../errors.js';
import { FUTURE_SLACK_MS, historyFile, latestPoints, openHistory, pointFromAudit, type AuditAnswer, type HistoryPoint, type HistoryStore } from './history.js';

/** The parts of Deps the history needs. */
export interface HistoryDeps {
  env: NodeJS.ProcessEnv;
  paths(): { stateDir: string };
  now(): number;
  warn(text: string): void;
}

export interface AuditHistory {
  /**
   * The newest point recorded for this query at this base URL before this run (the company name only
   * where the query has none; see latestPoints), never one dated in the future (points this run
   * records are not seen: a name audited twice compares both times with the same point), and, with
   * `before`, recorded before that time: for a cached answer, the time it was fetched.
   */
  previous(query: string, name?: string, before?: number): HistoryPoint | undefined;
  /**
   * Records a FRESHLY FETCHED answer; the caller must not call it for a cache hit or under --sandbox.
   * Returns the point, or undefined when the answer has no score or the point could not be written (warned).
   */
  record(query: string, answer: AuditAnswer): HistoryPoint | undefined;
}

export interface AuditHistoryOptions {
  /**
   * The run audits one name: each `previous` reads only the lines that may hold it (HistoryStore.readFor),
   * not the whole file, which may be megabytes. A batch reads the file once, whole.
   */
  oneName?: boolean;
}

export function openAuditHistory(deps: HistoryDeps, baseUrl: URL | string, { oneName = false }: AuditHistoryOptions = {}): AuditHistory {
  const store: HistoryStore = openHistory(historyFile(deps.env, deps.paths().stateDir), { warn: deps.warn });
  /** The points this run recorded: `previous` never sees them. */
  const own = new Set<string>();
  const lookup = (read: () => HistoryPoint[]) => {
    let points: HistoryPoint[] = [];
    try {
      points = read();
    } catch (error) {
      deps.warn(`cannot read the history file ${store.file} (${systemErrorText(error)}): no previous scores to compare with`);
    }
    return latestPoints(own.size > 0 ? points.filter((point) => !own.has(point.id)) : points, baseUrl);
  };
  let all: ReturnType<typeof latestPoints> | undefined;
  return {
    previous(query, name, before) {
      // A point dated after now (a wrong clock on some machine) would otherwise stay "previous" for ever.
      const until = Math.min(before ?? Number.POSITIVE_INFINITY, deps.now() + FUTURE_SLACK_MS);
      if (oneName) return lookup(() => store.readFor(name === undefined ? [query] : [query, name]))(query, name, until);
      all ??= lookup(() => store.read());
      return all(query, name, until);
    },
    record(query, answer) {
      const point = pointFromAudit(answer, { at: deps.now(), baseUrl, query });
      if (!point) return undefined;
      try {
        store.append([point]);
        own.add(point.id);
        return point;
      } catch (error) {
        deps.warn(`cannot record the score in the history file ${store.file} (${systemErrorText(error)})`);
        return undefined;
      }
    },
  };
}
