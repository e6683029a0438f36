// GitHub-flavoured Markdown tables, for step summaries and pull-request comments. Cells are server
// text: scrubbed of controls, line breaks kept as <br>, and every character Markdown would act on
// inside a cell escaped, so a name shows as written and never breaks the table, adds markup or mentions anyone.
import { scrubText } from '../text.js';

/** ASCII punctuation that starts markup inside a table cell (GFM lets any ASCII punctuation be escaped). */
const MARKUP = /[\\`*_[\]<>|~&#!]/g;
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/g;
/** An @mention would notify that user or team where the report is posted; a zero-width space after the @ stops it. */
const MENTION = /(^|[^\w@])@(?=[A-Za-z0-9])/g;

/** One cell's text: literal in the rendered table, on one source line. */
export function markdownCell(text: string): string {
  return scrubText(text)
    .replace(/\t/g, ' ')
    .split(LINE_BREAK)
    .map((line) => line.replace(MARKUP, '\\$&').replace(MENTION, '$1@&#8203;'))
    .join('<br>')
    .trim();
}

/** One table row of these cells (a streamed table's rows, after its head). */
export function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map(markdownCell).join(' | ')} |\n`;
}

export type MarkdownAlign = 'left' | 'right';

/** A GFM table: a header row, the delimiter row, one row per record; cells go through markdownCell. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[], align: readonly MarkdownAlign[] = []): string {
  const line = (cells: readonly string[]) => markdownRow(head.map((_, column) => cells[column] ?? ''));
  const delimiter = `| ${head.map((_, column) => (align[column] === 'right' ? '---:' : '---')).join(' | ')} |\n`;
  return line(head) + delimiter + rows.map(line).join('');
}
