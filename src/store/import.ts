// `rep history import [FILE]`: a local history copied into the configured store. The source is a
// history.jsonl (today's format, or an earlier rep's) or a local store's history folder. Points keep
// their ids, so importing twice, or a point some machine recorded already, adds nothing.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { onePerId, parseText, readSeriesText, SERIES_DIR, seriesFiles } from './local/series-files.js';
import { readAsidePoints, readJournal } from './local/journal.js';
import { readLegacy } from './local/migrate.js';
import type { HistoryPoint, HistoryPort } from './port.js';

export interface ImportOutcome {
  /** Points read from the source. */
  read: number;
  /** Points the store did not have. */
  added: number;
  /** Lines that were no point (skipped). */
  corrupt: number;
}

/** Points appended at once: one statement each for PostgreSQL. */
const IMPORT_CHUNK = 5000;

/** Copies the points at `source` (a file or a history folder) into `history`. Rejects when the source cannot be read or the store written. */
export async function importHistory(source: string, history: HistoryPort): Promise<ImportOutcome> {
  const { points, corrupt } = statSync(source).isDirectory() ? readHistoryFolder(source) : readLegacy(source);
  const before = (await history.stats()).points;
  for (let start = 0; start < points.length; start += IMPORT_CHUNK) await history.append(points.slice(start, start + IMPORT_CHUNK));
  const after = (await history.stats()).points;
  return { read: points.length, added: after - before, corrupt };
}

/** Whether dir is a local store's history folder: it has the series folder. */
export function isHistoryFolder(dir: string): boolean {
  return existsSync(join(dir, SERIES_DIR));
}

/**
 * Every point of a local store's history folder, each once (its journal's shards, then its series files:
 * a fold moves points from the one to the other; then what killed folds and prunes left aside, which the
 * folder's own rep would merge back).
 */
function readHistoryFolder(dir: string): { points: HistoryPoint[]; corrupt: number } {
  const journal = readJournal(dir);
  const points: HistoryPoint[] = journal.points;
  let corrupt = journal.corrupt;
  for (const path of seriesFiles(dir)) {
    const parsed = parseText(readSeriesText(path));
    points.push(...parsed.points);
    corrupt += parsed.corrupt;
  }
  // An aside's corrupt lines are its log's too (it is that log, or was): not counted again.
  points.push(...readAsidePoints(dir));
  return { points: onePerId(points), corrupt };
}
