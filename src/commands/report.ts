// `rep report [NAMES...] [--file F] [--since 90d]`: one self-contained HTML document (or Markdown with
// --format markdown) from the history alone: no request. With no names, every series recorded at the
// base URL in use. Exits 3 when there is nothing to report.
import { signalOf } from '../api/abort-link.js';
import type { Deps } from '../deps.js';
import { ExitCode, NotFoundError, RepError, systemErrorText, UsageError } from '../errors.js';
import { localDate, localDateTime } from '../history/change.js';
import { parseSince } from '../history/since.js';
import { companyRows, reportPoint, seriesByQuery, type Report } from '../report/model.js';
import { nameKey, placeOf } from '../store/policy.js';
import { MARKET_SERIES, type HistoryPoint } from '../store/port.js';

export interface ReportOptions {
  names: string[];
  /** `--file PATH` or `-`: names one a line. */
  file?: string;
  /** `--since`: the period's start, a duration back or a date (default 90d). */
  since: string;
}

/** The history cannot be read. */
export class ReportHistoryError extends RepError {
  override readonly name = 'ReportHistoryError';
  readonly exitCode = ExitCode.error;
}

export async function run(opts: ReportOptions, deps: Deps): Promise<void> {
  const format = deps.globals.json ? 'json' : deps.globals.format;
  if (format !== undefined && format !== 'markdown')
    throw new UsageError(`rep report writes HTML, or Markdown with --format markdown: not ${format}`, { hint: 'drop --format, or use --format markdown' });
  const now = deps.now();
  const since = parseSince(opts.since, now);
  const names = await namesOf(opts, deps);
  let base = await deps.storeBaseUrl();
  const store = deps.store();
  const { history } = store;
  let found: HistoryPoint[][];
  let market: HistoryPoint[] = [];
  try {
    const ranges = await Promise.all(
      (names.length > 0 ? names : await history.names(''))
        .map(nameKey)
        .filter((key) => key !== MARKET_SERIES)
        .map((key) => history.range({ key, ...(base ? { baseUrl: base } : {}), since })),
    );
    // Without a base URL: the one of the newest point recorded.
    base ??= ranges.flat().reduce<HistoryPoint | undefined>((newest, point) => (!newest || point.at > newest.at ? point : newest), undefined)?.base_url;
    const atBase = ranges.map((points) => points.filter((point) => point.base_url === base));
    found = names.length > 0 ? atBase.map(unique) : seriesByQuery(new Map(atBase.flat().map((point) => [point.id, point])).values());
    if (base) market = await history.range({ key: MARKET_SERIES, baseUrl: base, since });
  } catch (error) {
    throw new ReportHistoryError(`cannot read the history in ${placeOf(store, 'history')} (${systemErrorText(error)})`, { cause: error });
  }
  const companies = companyRows(found);
  if (companies.length === 0 || !base)
    throw new NotFoundError(
      `nothing to report${names.length > 0 ? ` for ${names.length === 1 ? names[0] : `these ${names.length} names`}` : ''} since ${localDate(new Date(since).toISOString())}`,
      {
        hint: 'each fresh `rep audit NAME` records a point; give an earlier --since for older ones',
      },
    );
  const report: Report = { madeAt: now, host: new URL(base).host, since, companies, market: market.map(reportPoint) };
  const labels = { dateLabel: (at: number) => localDate(new Date(at).toISOString()), timeLabel: (at: number) => localDateTime(new Date(at).toISOString()) };
  if (format === 'markdown') deps.io.out((await import('../report/markdown.js')).reportMarkdown(report, labels));
  else deps.io.out((await import('../report/html.js')).reportHtml(report, labels));
}

async function namesOf(opts: ReportOptions, deps: Deps): Promise<string[]> {
  if (opts.file === undefined) return opts.names.map((name) => name.trim()).filter(Boolean);
  const { openNames } = await import('../batch/input.js');
  const names: string[] = [];
  for await (const chunk of await openNames({
    args: opts.names,
    file: opts.file,
    stdin: deps.io.stdin,
    stdinIsTTY: deps.io.stdinIsTTY,
    stop: signalOf(deps.signal),
  }))
    names.push(...chunk);
  return names;
}

/** Each point once (a name may reach a point by its query and its company name). */
function unique(points: HistoryPoint[]): HistoryPoint[] {
  return [...new Map(points.map((point) => [point.id, point])).values()];
}
