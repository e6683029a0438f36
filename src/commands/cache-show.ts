// `rep cache`: what the answer cache holds (its place, answers and size), as `rep status` shows it;
// JSON when piped or asked for, one line on a terminal.
import type { Deps } from '../deps.js';
import { csvRow } from '../output/csv.js';
import { jsonDocument } from '../output/json-colour.js';
import { jsonText } from '../output/json-text.js';
import { markdownTable } from '../output/markdown.js';
import { scrubLine } from '../text.js';
import { describeCacheStats } from '../output/cache.js';
import { cacheStatus } from './cache.js';

export type CacheShowOptions = Record<string, never>;

export async function run(_opts: CacheShowOptions, deps: Deps): Promise<void> {
  if (deps.globals.sandbox) {
    deps.io.out(deps.format() === 'table' ? 'No answer cache under --sandbox: it neither reads nor writes one\n' : jsonDocument(deps.io, null));
    return;
  }
  const stats = await cacheStatus(deps);
  if (!stats) return; // cacheStatus warned
  const record = { dir: stats.dir, entries: stats.entries, bytes: stats.bytes };
  if (deps.globals.query !== undefined) {
    const { compileQuery, writeQueryResult } = await import('../output/query.js');
    writeQueryResult(deps.io, (await compileQuery(deps.globals.query))(record), deps.format());
    return;
  }
  const format = deps.format();
  const cells = [stats.dir, stats.entries, stats.bytes];
  if (format === 'table') deps.io.out(`Answer cache: ${scrubLine(describeCacheStats(stats))}\n`);
  else if (format === 'ndjson') deps.io.out(`${jsonText(record)}\n`);
  else if (format === 'csv') deps.io.out(csvRow(Object.keys(record)) + csvRow(cells));
  else if (format === 'markdown') deps.io.out(markdownTable(Object.keys(record), [cells.map(String)]));
  else deps.io.out(jsonDocument(deps.io, record));
}
