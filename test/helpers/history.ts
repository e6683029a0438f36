// Records points in a local history the way an audit run does (pointFromAudit, the store's history
// port), at rep's place for an environment: REP_HISTORY_FILE, else `history` in the state dir.
import { historyPlace } from '../../src/config/paths.js';
import { pointFromAudit, type AuditAnswer } from '../../src/state/history.js';
import { openLocalHistory } from '../../src/store/local/history.js';
import { prepareHistoryDir } from '../../src/store/local/migrate.js';
import type { HistoryPort } from '../../src/store/port.js';

/** The local history rep would use with this environment and state dir. */
export function localHistory(env: NodeJS.ProcessEnv, stateDir: string, warn?: (text: string) => void): HistoryPort {
  const { historyDir, legacyHistoryFile } = historyPlace(env, stateDir);
  return openLocalHistory(historyDir, { ...(warn ? { warn } : {}), prepare: () => prepareHistoryDir(historyDir, legacyHistoryFile, warn) });
}

/** Appends one point per answer, each at its own time. */
export async function recordAnswers(
  history: HistoryPort,
  baseUrl: string,
  answers: ReadonlyArray<{ query: string; at: number; answer: AuditAnswer }>,
): Promise<void> {
  const points = answers.flatMap(({ query, at, answer }) => pointFromAudit(answer, { at, baseUrl, query }) ?? []);
  await history.append(points);
}
