// The report as GitHub-flavoured Markdown, for a job summary: the same table as the HTML report, a
// text sparkline per company, the market's line under it. Cells escaped and scrubbed (markdownTable).
import { scoreText } from '../history/change.js';
import { sparkline } from '../history/sparkline.js';
import { markdownTable } from '../output/markdown.js';
import type { Report, ReportPoint } from './model.js';
import { sampleColumns } from '../chart/line-chart.js';

/** Text sparklines hold at most this many bars, whatever the number of points. */
const BARS = 30;

export function reportMarkdown(report: Report, { dateLabel, timeLabel }: { dateLabel(at: number): string; timeLabel(at: number): string }): string {
  const count = report.companies.length;
  const table = markdownTable(
    ['Company', 'Score', 'Change', 'Trend', 'Sources'],
    report.companies.map((row) => [
      row.name,
      row.scale === undefined ? scoreText(row.score) : `${scoreText(row.score)} / ${scoreText(row.scale)}`,
      row.change === undefined ? '—' : row.change === 0 ? '=' : `${row.change < 0 ? '▼' : '▲'} ${scoreText(Math.abs(row.change))}`,
      trend(row.points),
      row.sources.join(', '),
    ]),
    ['left', 'right', 'right', 'left', 'left'],
  );
  const market = report.market.length > 0 ? `\nMarket: ${trend(report.market)} ${scoreText(report.market.at(-1)!.value)}\n` : '';
  const lines = [
    '## Reputation report',
    '',
    `${count === 1 ? '1 company' : `${count} companies`} at ${report.host}, ${dateLabel(report.since)} to ${dateLabel(report.madeAt)} · made ${timeLabel(report.madeAt)} by rep`,
    '',
    table.trimEnd(),
  ];
  return `${lines.join('\n')}\n${market}`;
}

function trend(points: readonly ReportPoint[]): string {
  if (points.length === 0) return '';
  return sparkline(sampleColumns(points, BARS, points[0]!.at, points.at(-1)!.at).map((sample) => sample.last));
}
