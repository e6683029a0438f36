// GitHub-flavoured Markdown tables, for step summaries and pull-request comments. Cells are server
// text: scrubbed of controls, line breaks kept as <br>, and every character Markdown would act on
// inside a cell escaped, so a name shows as written and never breaks the table, adds markup, links or
// mentions anyone.
import { scrubText } from '../text.js';

/** ASCII punctuation that starts markup inside a table cell (GFM lets any ASCII punctuation be escaped). */
const MARKUP = /[\\`*_[\]<>|~&#!]/g;
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/g;
/** An @mention would notify that user or team where the report is posted; a zero-width space after the @ stops it. */
const MENTION = /(^|[^\w@])@(?=[A-Za-z0-9])/g;

const WORDS = /(\s+)/;
const WWW = /www\./i;
const BACKTICKS = /`+/g;

/** One cell's text: literal in the rendered table, on one source line. */
export function markdownCell(text: string): string {
  return scrubText(text)
    .replace(/\t/g, ' ')
    .split(LINE_BREAK)
    .map((line) => line.split(WORDS).map(inertWord).join(''))
    .join('<br>')
    .trim();
}

/** A word (or the space between words) with its markup escaped; one GFM would autolink, as a code span. */
function inertWord(word: string): string {
  if (mayAutolink(word)) return codeSpan(word);
  return word.replace(MARKUP, '\\$&').replace(MENTION, '$1@&#8203;');
}

/**
 * Whether GFM's autolink extension might link part of the word (`http://`, `https://`, `ftp://`,
 * `www.`, an e-mail address with `mailto:`/`xmpp:` or without). No escape or entity stops it: it reads
 * the text after they are resolved. A code span does.
 */
function mayAutolink(word: string): boolean {
  const at = word.indexOf('@');
  return word.includes('://') || WWW.test(word) || (at > 0 && word.indexOf('.', at) > at);
}

/** The word as a code span: a fence longer than any run of backticks in it, and `|` escaped (a table splits on it even there). */
function codeSpan(word: string): string {
  let longest = 0;
  for (const run of word.match(BACKTICKS) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = word.startsWith('`') || word.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${word.replaceAll('|', '\\|')}${pad}${fence}`;
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
