// A line chart for the terminal: values at the side, dates along the bottom, one line per series
// (the first drawn last, on top), a legend. Points are placed by time and reduced to at most one
// (min, max, last) sample per column, so ten years of daily points cost one pass and a width's worth
// of drawing. Pure and self-contained (a leaf of dist/lib/, loaded only for `--chart`).
// Not asciichart: it plots by index (not time), has no gaps (a NaN throws), no x axis and no legend.

export interface ChartPoint {
  /** Epoch ms. */
  at: number;
  value: number;
}

export interface ChartSeries {
  label: string;
  /** Oldest first. */
  points: readonly ChartPoint[];
}

export interface LineChartOptions {
  /** The terminal's width; the chart never takes more (nor less than MIN_WIDTH). */
  width: number;
  /** Rows of the plot (default 10). */
  height?: number;
  /** Box-drawing characters; else plain ASCII. */
  unicode: boolean;
  /** A date as people read it, for the axis. */
  dateLabel(at: number): string;
  /** Colours series `index`'s text (identity without colour). */
  paint?(index: number, text: string): string;
}

/** One column's samples of a series: the value it enters with, its extremes and where it ends. */
export interface ColumnSample {
  column: number;
  min: number;
  max: number;
  last: number;
}

export const MIN_WIDTH = 40;
const GLYPHS = {
  unicode: { flat: '─', up: ['╯', '╭'], down: ['╮', '╰'], vertical: '│', dot: '·', axis: '┤', corner: '└', rule: '─' },
  ascii: { flat: '-', up: ['+', '+'], down: ['+', '+'], vertical: '|', dot: '.', axis: '|', corner: '+', rule: '-' },
} as const;

/**
 * A series reduced to the columns [0, columns) of the span [from, to]: one sample per column it has
 * points in, and, between two such columns, the values on the straight line joining them. Linear in points.
 */
export function sampleColumns(points: readonly ChartPoint[], columns: number, from: number, to: number): ColumnSample[] {
  const samples: ColumnSample[] = [];
  const span = to - from;
  for (const { at, value } of points) {
    if (!Number.isFinite(value) || !Number.isFinite(at)) continue;
    const column = span > 0 ? Math.min(columns - 1, Math.max(0, Math.floor(((at - from) / span) * columns))) : 0;
    const current = samples.at(-1);
    if (current?.column === column) {
      current.min = Math.min(current.min, value);
      current.max = Math.max(current.max, value);
      current.last = value;
      continue;
    }
    if (current) {
      for (let between = current.column + 1; between < column; between++) {
        const filled = current.last + ((value - current.last) * (between - current.column)) / (column - current.column);
        samples.push({ column: between, min: filled, max: filled, last: filled });
      }
    }
    samples.push({ column, min: value, max: value, last: value });
  }
  return samples;
}

/** The chart's lines (no trailing newline); '' when no series has a point. */
export function renderLineChart(series: readonly ChartSeries[], options: LineChartOptions): string {
  const glyphs = options.unicode ? GLYPHS.unicode : GLYPHS.ascii;
  const paint = options.paint ?? ((_index: number, text: string) => text);
  const height = Math.max(2, options.height ?? 10);
  const width = Math.max(MIN_WIDTH, Math.floor(options.width));
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const { points } of series) {
    for (const { at, value } of points) {
      if (!Number.isFinite(value) || !Number.isFinite(at)) continue;
      from = Math.min(from, at);
      to = Math.max(to, at);
      low = Math.min(low, value);
      high = Math.max(high, value);
    }
  }
  if (!Number.isFinite(from)) return '';
  if (high === low) {
    high += 1;
    low -= 1;
  }
  const decimals = high - low < 5 ? 1 : 0;
  const labels = Array.from({ length: height }, (_, row) => (high - ((high - low) * row) / (height - 1)).toFixed(decimals));
  const labelWidth = Math.max(...labels.map((label) => label.length));
  const columns = width - labelWidth - 2;
  const grid = Array.from({ length: height }, () => Array.from({ length: columns }, () => ' '));
  const rowOf = (value: number) => Math.round(((high - value) / (high - low)) * (height - 1));
  // The first series (the company) is drawn last, over the others.
  for (let index = series.length - 1; index >= 0; index--) {
    const samples = sampleColumns(series[index]!.points, columns, from, to);
    let enter: number | undefined;
    for (const sample of samples) {
      const start = rowOf(enter ?? sample.last);
      const end = rowOf(sample.last);
      const top = Math.min(start, end, rowOf(sample.max));
      const bottom = Math.max(start, end, rowOf(sample.min));
      const put = (row: number, text: string) => (grid[row]![sample.column] = paint(index, text));
      for (let row = top; row <= bottom; row++) put(row, index === 0 ? glyphs.vertical : glyphs.dot);
      if (index === 0) {
        if (start === end) put(end, glyphs.flat);
        else {
          const [leave, arrive] = end < start ? glyphs.up : glyphs.down;
          put(start, leave);
          put(end, arrive);
        }
      }
      enter = sample.last;
    }
  }
  const lines = grid.map((cells, row) => `${labels[row]!.padStart(labelWidth)} ${glyphs.axis}${cells.join('')}`);
  lines.push(`${' '.repeat(labelWidth + 1)}${glyphs.corner}${glyphs.rule.repeat(columns)}`);
  lines.push(`${' '.repeat(labelWidth + 2)}${dateAxis(from, to, columns, options.dateLabel)}`);
  const legend = series.map(({ label }, index) => paint(index, `${index === 0 ? glyphs.flat.repeat(2) : glyphs.dot.repeat(2)} ${label}`)).join('   ');
  lines.push(`${' '.repeat(labelWidth + 2)}${legend}`);
  return lines.join('\n');
}

/** The first and last dates at the ends, and one in the middle where there is room. */
function dateAxis(from: number, to: number, columns: number, dateLabel: (at: number) => string): string {
  const first = dateLabel(from);
  const last = dateLabel(to);
  if (first === last || first.length + last.length + 1 > columns) return first;
  const middle = dateLabel(from + (to - from) / 2);
  const gap = columns - first.length - last.length;
  if (middle !== first && middle !== last && gap >= middle.length + 4) {
    const left = Math.floor((gap - middle.length) / 2);
    return `${first}${' '.repeat(left)}${middle}${' '.repeat(gap - middle.length - left)}${last}`;
  }
  return `${first}${' '.repeat(gap)}${last}`;
}
