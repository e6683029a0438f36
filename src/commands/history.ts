// `rep history <name> [--since DURATION|DATE]`: the scores recorded for a name at the base URL in
// use (with none set: the base URL of its newest point), oldest first. Exits 3 when there are none.
// Local only: no request, and under --sandbox (which records nothing) there is never a history.
import type { Deps } from '../deps.js';
import { StoreError } from '../store/errors.js';
import { nameKey, placeOf } from '../store/policy.js';
import { ExitCode, NotFoundError, RepError, systemErrorText, UsageError } from '../errors.js';
import { localDateTime } from '../history/change.js';
import { historyCsv, historyFieldRecord, historyRecord, historyMarkdown, historyNdjsonLines, historyRows, historyTable } from '../history/render.js';
import { parseSince } from '../history/since.js';
import { jsonDocument } from '../output/json-colour.js';
import { writeShapedRecords } from '../output/shaped.js';
import { shapeOf } from './shape.js';
import { shellQuote } from '../shell-quote.js';
import { baseUrlKey } from '../api/base-url.js';
import { scrubLine } from '../text.js';
import type { HistoryPoint, Store } from '../store/port.js';

export interface HistoryOptions {
  /** The company name or the query it was audited by (matched case-insensitively, spaces collapsed). */
  name: string;
  /** `--since`: a duration back from now (30d, 12h) or a date (2026-11-01) or an ISO timestamp. */
  since?: string;
}

/** The history exists but cannot be read. */
export class HistoryFileError extends RepError {
  override readonly name = 'HistoryFileError';
  readonly exitCode = ExitCode.error;
}

export async function run(opts: HistoryOptions, deps: Deps): Promise<void> {
  const name = opts.name.trim();
  if (!name) throw new UsageError('the company name is empty', { hint: 'give a name, e.g. rep history "Blue Bottle Coffee"' });
  const since = opts.since === undefined ? undefined : parseSince(opts.since, deps.now());
  if (deps.globals.sandbox)
    throw new NotFoundError(`no history for ${name}`, { hint: `--sandbox records none: run ${auditCommand(name)} without it to record a point` });
  const { baseUrl } = await deps.settings();
  const points = await readHistory(deps.store()!, name);
  // Points are per base URL: the one in use, else the one the name was last audited at.
  const base = baseUrl ? baseUrlKey(baseUrl) : points.at(-1)?.base_url;
  const series = points.filter((point) => point.base_url === base);
  if (series.length === 0) throw noHistory(name, points);
  const rows = historyRows(series, deps.now()).filter((row) => since === undefined || Date.parse(row.point.at) >= since);
  const future = rows.filter((row) => row.future).length;
  if (future > 0) {
    const count = future === 1 ? '1 point' : `${future} points`;
    deps.warn(
      `${count} of ${scrubLine(name)} ${future === 1 ? 'is' : 'are'} dated in the future (a wrong clock?): ${future === 1 ? 'it is' : 'they are'} never the previous point`,
    );
  }
  if (rows.length === 0) {
    throw new NotFoundError(`no history for ${name} since ${localDateTime(new Date(since!).toISOString())}`, {
      hint: `its ${series.length === 1 ? 'one point is' : `${series.length} points are`} older: give an earlier --since`,
    });
  }
  const format = deps.format();
  const shape = await shapeOf(deps.globals);
  if (shape) {
    const records = () => rows.map(historyFieldRecord);
    await writeShapedRecords(deps.io, format, { records, document: () => rows.map(historyRecord), single: false }, shape);
    return;
  }
  switch (format) {
    case 'json':
      deps.io.out(jsonDocument(deps.io, rows.map(historyRecord)));
      return;
    case 'ndjson':
      for (const line of historyNdjsonLines(rows)) if (!deps.io.out(line)) return;
      return;
    case 'csv':
      deps.io.out(historyCsv(rows));
      return;
    case 'markdown':
      deps.io.out(historyMarkdown(rows));
      return;
    case 'table':
      deps.io.out(await historyTable(deps.io, rows));
      return;
  }
}

/** The name's points at every base URL, oldest first. */
async function readHistory(store: Store, name: string): Promise<HistoryPoint[]> {
  try {
    return await store.history.range({ key: nameKey(name) });
  } catch (error) {
    if (error instanceof StoreError) throw error; // a team store's own words, exit 8
    const where = placeOf(store, 'history');
    throw new HistoryFileError(`cannot read the history in ${where} (${systemErrorText(error)})`, { cause: error });
  }
}

/** Exit 3, saying how to start a history, or where the name's points are when they are for another base URL. */
function noHistory(name: string, elsewhere: readonly HistoryPoint[]): NotFoundError {
  const other = elsewhere.at(-1)?.base_url;
  const hint = other
    ? `its points are for another base URL: rep history --base-url ${shellQuote(other)} ${quoted(name)}`
    : `run ${auditCommand(name)} to record a point`;
  return new NotFoundError(`no history for ${name}`, { hint });
}

function auditCommand(name: string): string {
  return `\`rep audit ${quoted(name)}\``;
}

/** The name as one shell word (after `--` when it starts with a dash). */
function quoted(name: string): string {
  return `${name.startsWith('-') ? '-- ' : ''}${shellQuote(name)}`;
}
