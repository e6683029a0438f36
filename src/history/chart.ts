// `rep history NAME --chart`: the series as a line chart fitted to the terminal, the market's series
// of the same base URL as a second line where it was recorded. Box drawing only where the locale is
// UTF-8 (and the terminal not dumb), colour only where the IO allows it.
import type { Deps } from '../deps.js';
import { truncateToWidth } from '../output/text-width.js';
import { MARKET_SERIES } from '../store/port.js';
import { scrubLine } from '../text.js';
import { localDate } from './change.js';
import type { HistoryRow } from './render.js';

/** Cyan for the company, grey for the market (a fixed palette: the arrows and glyphs carry the meaning). */
const COLOURS = ['\u001b[36m', '\u001b[90m'];
const RESET = '\u001b[39m';

/** Whether the terminal can show box drawing: a UTF-8 locale (LC_ALL > LC_CTYPE > LANG) and not TERM=dumb. */
export function unicodeTerminal(env: NodeJS.ProcessEnv): boolean {
  if (env.TERM === 'dumb') return false;
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /utf-?8/i.test(locale);
}

/** The chart's text (ending in a newline) for rows of one series at `base`. */
export async function historyChart(deps: Deps, rows: readonly HistoryRow[], base: string): Promise<string> {
  const { renderLineChart } = await import('../chart/line-chart.js');
  const points = rows.map(({ point }) => ({ at: Date.parse(point.at), value: point.score }));
  const newest = rows.at(-1)!.point;
  const isMarket = newest.query === MARKET_SERIES;
  const width = deps.io.columns;
  const label = (text: string) => truncateToWidth(scrubLine(text), Math.max(10, Math.floor(width / 2) - 8));
  const series = [{ label: isMarket ? 'market' : label(newest.name ?? newest.query), points }];
  if (!isMarket) {
    const market = await deps.store().history.range({ key: MARKET_SERIES, baseUrl: base, since: points[0]!.at, until: points.at(-1)!.at + 1 });
    if (market.length > 0) series.push({ label: 'market', points: market.map((point) => ({ at: Date.parse(point.at), value: point.score })) });
  }
  const paint = deps.io.colorOut ? (index: number, text: string) => `${COLOURS[index % COLOURS.length]}${text}${RESET}` : undefined;
  const chart = renderLineChart(series, {
    width,
    unicode: unicodeTerminal(deps.env),
    dateLabel: (at) => localDate(new Date(at).toISOString()),
    ...(paint ? { paint } : {}),
  });
  return `${chart}\n`;
}
