// Inline SVG for the report: a sparkline per row and a chart per company, each drawn from at most a
// fixed number of samples (min and max per column: linear in points, bounded in bytes). The market
// line is one path, defined once and drawn in every chart with a transform to that chart's scale.
import { sampleColumns } from '../chart/line-chart.js';
import type { ReportPoint } from './model.js';

export const CHART = { width: 640, height: 180, left: 44, right: 8, top: 10, bottom: 24, columns: 120 } as const;
const SPARK = { width: 120, height: 24, columns: 40 } as const;
const plotWidth = CHART.width - CHART.left - CHART.right;
const plotHeight = CHART.height - CHART.top - CHART.bottom;

/** Samples along x in [0, width): per column its min and max (in the order the line passes them). */
export function samples(points: readonly ReportPoint[], columns: number, from: number, to: number): Array<[column: number, value: number]> {
  const out: Array<[number, number]> = [];
  let previous: number | undefined;
  for (const { column, min, max, last } of sampleColumns(points, columns, from, to)) {
    // Rising into a column passes its min first; falling, its max.
    const [first, second] = previous === undefined || previous <= last ? [min, max] : [max, min];
    out.push([column, first]);
    if (second !== first) out.push([column, second]);
    if (last !== second) out.push([column, last]);
    previous = last;
  }
  return out;
}

const num = (value: number) => String(Math.round(value * 10) / 10);

/** A path's `d` through the samples, x scaled to `width`, y given by `y`. */
function pathData(points: Array<[number, number]>, columns: number, width: number, x0: number, y: (value: number) => number): string {
  const step = width / Math.max(1, columns - 1);
  // Whole units along x (a column is several wide), tenths up the side.
  return points.map(([column, value], index) => `${index === 0 ? 'M' : 'L'}${Math.round(x0 + column * step)} ${num(y(value))}`).join('');
}

export function sparklineSvg(points: readonly ReportPoint[]): string {
  if (points.length === 0) return '';
  const values = points.map((point) => point.value);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const y = (value: number) => (high === low ? SPARK.height / 2 : 2 + ((high - value) / (high - low)) * (SPARK.height - 4));
  const d = pathData(samples(points, SPARK.columns, points[0]!.at, points.at(-1)!.at), SPARK.columns, SPARK.width - 4, 2, y);
  return `<svg class="spark" viewBox="0 0 ${SPARK.width} ${SPARK.height}" width="${SPARK.width}" height="${SPARK.height}" aria-hidden="true"><path d="${d}"/></svg>`;
}

/** The market's path, once per report, in chart x and raw values for y (each chart scales it). */
export function marketDefs(market: readonly ReportPoint[], from: number, to: number): string {
  if (market.length === 0) return '';
  const d = pathData(samples(market, CHART.columns, from, to), CHART.columns, plotWidth, CHART.left, (value) => value);
  return `<svg class="defs" width="0" height="0" aria-hidden="true"><defs><path id="market" class="market" vector-effect="non-scaling-stroke" d="${d}"/></defs></svg>`;
}

export interface ChartInput {
  points: readonly ReportPoint[];
  market: readonly ReportPoint[];
  from: number;
  to: number;
  /** A date as people read it. */
  dateLabel(at: number): string;
  /** The chart's accessible name (already escaped). */
  title: string;
}

/** A company's chart over the period, the market line where recorded. */
export function chartSvg({ points, market, from, to, dateLabel, title }: ChartInput): string {
  const values = [...points, ...market].map((point) => point.value);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high === low) [low, high] = [low - 1, high + 1];
  const k = plotHeight / (high - low);
  const y = (value: number) => CHART.top + (high - value) * k;
  const d = pathData(samples(points, CHART.columns, from, to), CHART.columns, plotWidth, CHART.left, y);
  const bottom = CHART.top + plotHeight;
  const decimals = high - low < 5 ? 1 : 0;
  const parts = [
    `<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${title}">`,
    `<path class="axis" d="M${CHART.left} ${CHART.top}V${bottom}H${CHART.width - CHART.right}"/>`,
    `<text x="${CHART.left - 4}" y="${CHART.top + 4}" text-anchor="end">${high.toFixed(decimals)}</text>`,
    `<text x="${CHART.left - 4}" y="${bottom}" text-anchor="end">${low.toFixed(decimals)}</text>`,
    `<text x="${CHART.left}" y="${CHART.height - 6}">${dateLabel(from)}</text>`,
    `<text x="${CHART.width - CHART.right}" y="${CHART.height - 6}" text-anchor="end">${dateLabel(to)}</text>`,
    market.length > 0 ? `<use href="#market" transform="matrix(1 0 0 ${(-k).toPrecision(6)} 0 ${(CHART.top + high * k).toPrecision(8)})"/>` : '',
    `<path class="line" d="${d}"/>`,
    '</svg>',
  ];
  return parts.join('');
}
