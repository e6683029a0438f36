// What a report shows, from recorded series alone: one row per company (its newest score, its change
// over the period, its points and sources), the largest drops first, and the market's points. Pure.
import { compareNames, nameKey } from '../store/policy.js';
import type { HistoryPoint } from '../store/port.js';
import { scrubLine } from '../text.js';

export interface ReportPoint {
  /** Epoch ms. */
  at: number;
  value: number;
}

export interface CompanyRow {
  /** The newest point's company name, else its query (scrubbed; escaped by each renderer). */
  name: string;
  score: number;
  scale?: number;
  /** Newest minus oldest score in the period; undefined with one point. */
  change?: number;
  points: ReportPoint[];
  /** The newest point's sources. */
  sources: string[];
}

export interface Report {
  /** When it was made (epoch ms). */
  madeAt: number;
  /** The base URL's host (never userinfo). */
  host: string;
  /** The period's start (epoch ms). */
  since: number;
  companies: CompanyRow[];
  market: ReportPoint[];
}

/** Series of points (each oldest first) grouped by the query they were recorded under. */
export function seriesByQuery(points: Iterable<HistoryPoint>): HistoryPoint[][] {
  const groups = new Map<string, HistoryPoint[]>();
  const keys = new Map<string, string>(); // a series repeats its query on every point: fold each spelling once
  for (const point of points) {
    let key = keys.get(point.query);
    if (key === undefined) keys.set(point.query, (key = nameKey(point.query)));
    const group = groups.get(key);
    if (group) group.push(point);
    else groups.set(key, [point]);
  }
  const inOrder = (group: HistoryPoint[]) => group.every((point, index) => index === 0 || group[index - 1]!.at <= point.at);
  return [...groups.values()].map((group) => (inOrder(group) ? group : group.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))));
}

/** One row per non-empty series; the largest drop first, then the rest by change, unchanged and single points last. */
export function companyRows(series: readonly (readonly HistoryPoint[])[]): CompanyRow[] {
  const rows = series.flatMap((points): CompanyRow[] => {
    const newest = points.at(-1);
    if (!newest) return [];
    const row: CompanyRow = {
      name: scrubLine(newest.name ?? newest.query),
      score: newest.score,
      points: points.map(reportPoint),
      sources: newest.sources.map((source) => scrubLine(source.source)),
    };
    if (newest.scale !== undefined) row.scale = newest.scale;
    if (points.length > 1) row.change = Math.round((newest.score - points[0]!.score) * 1e6) / 1e6;
    return [row];
  });
  const order = (row: CompanyRow) => row.change ?? Number.POSITIVE_INFINITY;
  return rows.sort((a, b) => order(a) - order(b) || compareNames(a.name, b.name));
}

export function reportPoint(point: HistoryPoint): ReportPoint {
  return { at: Date.parse(point.at), value: point.score };
}
