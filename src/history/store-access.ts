// The history as the store port gives it (range, append, names), for the market series, the chart and
// the report. Until the CLI opens a store for each run (deps.store()), this is the local history file.
import type { Deps } from '../deps.js';
import { nameKey } from '../store/policy.js';
import type { HistoryPoint, HistoryPort } from '../store/port.js';
import { historyFile, openHistory } from '../state/history.js';

export type HistoryAccess = Pick<HistoryPort, 'append' | 'range' | 'names'>;

/** The run's history; every method rejects when it cannot be read or written. */
export function historyAccess(deps: Pick<Deps, 'env' | 'paths' | 'warn'>): HistoryAccess {
  const store = openHistory(historyFile(deps.env, deps.paths().stateDir), { warn: deps.warn });
  let all: HistoryPoint[] | undefined;
  const read = () => (all ??= store.read());
  return {
    async append(points) {
      store.append(points);
      all = undefined;
    },
    async range({ key, baseUrl, since, until }) {
      const wanted = nameKey(key);
      return read().filter((point) => {
        if (baseUrl !== undefined && point.base_url !== baseUrl) return false;
        const at = Date.parse(point.at);
        if ((since !== undefined && at < since) || (until !== undefined && at >= until)) return false;
        return nameKey(point.query) === wanted || (point.name !== undefined && nameKey(point.name) === wanted);
      });
    },
    async names(prefixKey) {
      const spelled = new Map<string, string>();
      for (const point of read())
        for (const text of [point.query, point.name]) if (text !== undefined && nameKey(text).startsWith(prefixKey)) spelled.set(nameKey(text), text);
      return [...spelled.values()].sort((a, b) => a.localeCompare(b));
    },
  };
}
