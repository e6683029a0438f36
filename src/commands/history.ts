// `rep history <name> [--since DURATION|DATE]`: the scores recorded for a name at the base URL in
// use (with none set: the base URL of its newest point), oldest first. Exits 3 when there are none.
// Local only: no request (under --sandbox, the sandbox's own history: no sandbox is started).
import type { Deps } from '../deps.js';
import { StoreError } from '../store/errors.js';
import { nameKey, placeOf } from '../store/policy.js';
import { ExitCode, NotFoundError, RepError, systemErrorText, UsageError } from '../errors.js';
import { localDateTime } from '../history/change.js';
import { historyCsv, historyFieldRecord, historyRecord, historyMarkdown, historyNdjsonLines, historyRows, historyTable } from '../history/render.js';
import { parseSince } from '../history/since.js';
import { jsonDocument } from '../output/json-colour.js';
import { shapeOf } from './shape.js';
import { contextArgs, shellQuote, suggestedCommand } from '../shell-quote.js';
import { scrubLine } from '../text.js';
import { MARKET_SERIES, type HistoryPoint, type Store } from '../store/port.js';

export interface HistoryOptions {
  /** The company name or the query it was audited by (matched case-insensitively, spaces collapsed). */
  name: string;
  /** `--since`: a duration back from now (30d, 12h) or a date (2026-11-01) or an ISO timestamp. */
  since?: string;
  /** `--market`: the recorded market index instead of a company (name is then empty). */
  market?: boolean;
  /** `--chart`: a line chart (with the market where recorded) instead of the table. */
  chart?: boolean;
}

/** The history exists but cannot be read. */
export class HistoryFileError extends RepError {
  override readonly name = 'HistoryFileError';
  readonly exitCode = ExitCode.error;
}

export async function run(opts: HistoryOptions, deps: Deps): Promise<void> {
  const name = opts.market ? MARKET_SERIES : opts.name.trim();
  if (opts.market && opts.name.trim()) throw new UsageError('give a name or --market, not both', { hint: 'rep history --market' });
  if (!name && !opts.market) throw new UsageError('the company name is empty', { hint: 'give a name, e.g. rep history "Blue Bottle Coffee"' });
  const since = opts.since === undefined ? undefined : parseSince(opts.since, deps.now());
  const inUse = await deps.storeBaseUrl();
  const points = await readHistory(deps.store(), name);
  // Points are per base URL: the one in use, else the one the name was last audited at.
  const base = inUse ?? points.at(-1)?.base_url;
  const series = points.filter((point) => point.base_url === base);
  if (series.length === 0) throw noHistory(name, points, contextArgs(deps.globals));
  const rows = historyRows(series, deps.now()).filter((row) => since === undefined || Date.parse(row.point.at) >= since);
  const future = rows.filter((row) => row.future).length;
  if (future > 0) {
    const count = future === 1 ? '1 point' : `${future} points`;
    deps.warn(
      `${count} of ${scrubLine(label(name))} ${future === 1 ? 'is' : 'are'} dated in the future (a wrong clock?): ${future === 1 ? 'it is' : 'they are'} never the previous point`,
    );
  }
  if (rows.length === 0) {
    throw new NotFoundError(`no history for ${label(name)} since ${localDateTime(new Date(since!).toISOString())}`, {
      hint: `its ${series.length === 1 ? 'one point is' : `${series.length} points are`} older: give an earlier --since`,
    });
  }
  if (opts.chart) {
    const { historyChart } = await import('../history/chart.js');
    deps.io.out(await historyChart(deps, rows, base!));
    return;
  }
  const format = deps.format();
  const shape = await shapeOf(deps.globals);
  if (shape) {
    const records = () => rows.map(historyFieldRecord);
    const { writeShapedRecords } = await import('../output/shaped.js');
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
function noHistory(name: string, elsewhere: readonly HistoryPoint[], context: readonly string[]): NotFoundError {
  const other = elsewhere.at(-1)?.base_url;
  if (name === MARKET_SERIES) return new NotFoundError('no market history', { hint: 'each fresh `rep pulse` records a point' });
  const hint = other
    ? `its points are for another base URL: rep history --base-url ${shellQuote(other)} ${quoted(name)}`
    : `run \`${suggestedCommand(context, ['audit', name])}\` to record a point`;
  return new NotFoundError(`no history for ${name}`, { hint });
}

function label(name: string): string {
  return name === MARKET_SERIES ? 'the market' : name;
}

/** The name as one shell word (after `--` when it starts with a dash). */
function quoted(name: string): string {
  return `${name.startsWith('-') ? '-- ' : ''}${shellQuote(name)}`;
}
