// The report as one HTML document: inline CSS and SVG, no script, nothing fetched (a strict
// Content-Security-Policy says so to the browser), readable offline, as a CI artifact and on paper.
// Every text that came from a server or a file is escaped here, and only here.
import { scoreText as fixed } from '../history/change.js';
import type { CompanyRow, Report } from './model.js';
import { chartSvg, marketDefs, sparklineSvg } from './svg.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;margin:2rem auto;max-width:60rem;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:0 0 .25rem}
.meta{color:#5a6270;margin:0 0 1.5rem}
table{border-collapse:collapse;width:100%;margin:0 0 2rem}
th,td{padding:.35rem .6rem;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:middle}
th{font-weight:600;border-bottom:2px solid #c9ced6}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.down{color:#b42318}.up{color:#067647}.same{color:#5a6270}
.spark path{fill:none;stroke:#2563eb;stroke-width:1.5}
.chart{width:100%;height:auto;display:block}
.chart text{font-size:11px;fill:#5a6270}
.chart .axis{fill:none;stroke:#c9ced6}
.chart .line{fill:none;stroke:#2563eb;stroke-width:2}
.market{fill:none;stroke:#9aa3b2;stroke-width:1.5;stroke-dasharray:4 3}
.defs{position:absolute}
section{break-inside:avoid;page-break-inside:avoid;margin:0 0 1.5rem}
.legend{color:#5a6270;font-size:.85rem;margin:0 0 .25rem}
.key{display:inline-block;width:1.5rem;border-top:2px solid #2563eb;vertical-align:middle;margin-right:.3rem}
.key.market-key{border-top:2px dashed #9aa3b2;margin-left:1rem}
@media print{body{margin:0;max-width:none;font-size:11pt}.chart{max-height:6.5cm}a{color:inherit}}
`;

/** Text as HTML: nothing in it can open a tag, an attribute or an entity. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface HtmlOptions {
  /** A date as people read it (the local date). */
  dateLabel(at: number): string;
  /** A time as people read it (the local date and time). */
  timeLabel(at: number): string;
}

export function reportHtml(report: Report, { dateLabel, timeLabel }: HtmlOptions): string {
  const from = report.since;
  const to = report.madeAt;
  const host = escapeHtml(report.host);
  const count = report.companies.length;
  const head = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>Reputation report: ${host}</title>`,
    `<style>${STYLE}</style></head><body>`,
    '<h1>Reputation report</h1>',
    `<p class="meta">${count === 1 ? '1 company' : `${count} companies`} at ${host}, ${escapeHtml(dateLabel(from))} to ${escapeHtml(dateLabel(to))} · made ${escapeHtml(timeLabel(report.madeAt))} by rep</p>`,
    marketDefs(report.market, from, to),
  ];
  const table = [
    '<table><thead><tr><th>Company</th><th>Score</th><th>Change</th><th>Trend</th><th>Sources</th></tr></thead><tbody>',
    ...report.companies.map(tableRow),
    '</tbody></table>',
  ];
  const charts = report.companies.map((row) => {
    const name = escapeHtml(row.name);
    return [
      `<section><h2>${name}</h2>`,
      `<p class="legend"><span class="key"></span>score${report.market.length > 0 ? '<span class="key market-key"></span>market' : ''}</p>`,
      chartSvg({ points: row.points, market: report.market, from, to, dateLabel: (at) => escapeHtml(dateLabel(at)), title: `${name}: score over time` }),
      '</section>',
    ].join('');
  });
  return `${[...head, ...table, ...charts, '</body></html>'].join('\n')}\n`;
}

function tableRow(row: CompanyRow): string {
  const direction = row.change === undefined ? 'same' : row.change < 0 ? 'down' : row.change > 0 ? 'up' : 'same';
  const change = row.change === undefined ? '—' : row.change === 0 ? '=' : `${row.change < 0 ? '▼' : '▲'} ${fixed(Math.abs(row.change))}`;
  const score = row.scale === undefined ? fixed(row.score) : `${fixed(row.score)} / ${fixed(row.scale)}`;
  return (
    `<tr><td>${escapeHtml(row.name)}</td><td class="num">${escapeHtml(score)}</td><td class="num ${direction}">${change}</td>` +
    `<td>${sparklineSvg(row.points)}</td><td>${escapeHtml(row.sources.join(', '))}</td></tr>`
  );
}
