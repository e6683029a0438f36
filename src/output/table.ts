// The human views of audit, search and pulse: the number that matters first and standing out,
// then known rows as tables, then every remaining field as key/value rows.
import type { Change } from '../history/change.js';
import type { AuditView, PulseView, SearchGroup, SearchView, SourceRow } from '../views/index.js';
import { scrubLine } from '../text.js';
import { colourChange, colourScore, drawDetails, drawRecords, fitLine, formatNumber, formatScore, titleOf, type Column, type TableKit } from './table-kit.js';

const LABEL_GAP = '  ';

/** `87.4 / 100`, bold and coloured by band; dim words when the body has no score. */
function scoreText(kit: TableKit, score: number | undefined, max: number | undefined): string {
  return score === undefined ? kit.chalk.dim('not in the response') : colourScore(kit, formatScore(score, max), score, max);
}

/** `Label  value` lines, the values aligned, the labels bold. */
function labelled(kit: TableKit, lines: ReadonlyArray<[label: string, value: string]>): string {
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, value]) => `${kit.chalk.bold(label)}${' '.repeat(width - label.length)}${LABEL_GAP}${value}\n`).join('');
}

function sourceRecords(sources: readonly SourceRow[]): { columns: Column[]; records: Array<Record<string, unknown>> } {
  const columns: Column[] = [
    { key: 'source', title: 'Source' },
    { key: 'rating', title: 'Rating', align: 'right' },
    { key: 'reviews', title: 'Reviews', align: 'right', grouped: true },
  ];
  // Extra fields are keyed apart from the three known columns so they can never overwrite them.
  const records = sources.map((row) => {
    const record: Record<string, unknown> = { source: row.source === '' ? undefined : row.source, rating: row.rating, reviews: row.reviews };
    for (const [key, value] of row.extra) record[`extra:${key}`] = value;
    return record;
  });
  const seen = new Set<string>();
  for (const row of sources) {
    for (const [key] of row.extra) {
      if (!seen.has(key)) columns.push({ key: `extra:${key}`, title: titleOf(key) });
      seen.add(key);
    }
  }
  return { columns, records };
}

export async function auditTable(kit: TableKit, view: AuditView, change?: Change): Promise<string> {
  const header = view.name === undefined ? '' : `${kit.chalk.bold(fitLine(kit, scrubLine(view.name)))}\n`;
  const lines: Array<[string, string]> = [['Reputation Score', scoreText(kit, view.score, view.scoreMax)]];
  if (change) lines.push(['Change', colourChange(kit, change, { since: true })]);
  if (view.reviews !== undefined) lines.push(['Reviews', formatNumber(view.reviews, true)]);
  const sections = [header + labelled(kit, lines) + tieNotes(kit, view)];
  if (view.sources.length > 0) {
    const { columns, records } = sourceRecords(view.sources);
    sections.push(await drawRecords(kit, columns, records));
  }
  sections.push(await drawDetails(kit, view.details));
  return joinSections(sections);
}

/** `score taken from `score.trustScore` (also found: `rating`)`: a field the body held in more than one place. */
function tieNotes(kit: TableKit, view: AuditView): string {
  const notes = (['score', 'reviews'] as const).flatMap((field) => {
    const others = view.alsoFound?.[field];
    const taken = view.paths[field];
    if (!others || taken === undefined) return [];
    const quoted = (path: string) => `\`${scrubLine(path)}\``;
    return [`${field} taken from ${quoted(taken)} (also found: ${others.map(quoted).join(', ')})`];
  });
  return notes.map((note) => `${kit.chalk.dim(fitLine(kit, note))}\n`).join('');
}

/** Sections separated by one blank line; empty ones leave no gap. */
function joinSections(sections: readonly string[]): string {
  return sections.filter((section) => section !== '').join('\n');
}

const GROUP_TITLES: Record<string, string> = { company: 'Companies', city: 'Cities', category: 'Categories', result: 'Results' };

/** Columns for a group: name first, then every other field in order of first appearance. */
function groupColumns(group: SearchGroup): Column[] {
  const keys = new Set<string>(['name']);
  const notNumeric = new Set<string>();
  for (const row of group.rows) {
    for (const [key, value] of Object.entries(row)) {
      keys.add(key);
      if (value !== undefined && typeof value !== 'number') notNumeric.add(key);
    }
  }
  if (!group.rows.some((row) => Object.hasOwn(row, 'name'))) keys.delete('name');
  return [...keys].map((key) => ({ key, title: titleOf(key), align: notNumeric.has(key) ? 'left' : 'right' }));
}

export async function searchTable(kit: TableKit, view: SearchView): Promise<string> {
  const groups = view.groups.filter((group) => group.rows.length > 0);
  const query = view.query === undefined ? '' : ` for “${scrubLine(view.query)}”`;
  const sections: string[] = [];
  if (groups.length === 0) sections.push(`${fitLine(kit, `No matches${query}.`)}\n`);
  else if (query !== '') sections.push(`${kit.chalk.dim(fitLine(kit, `Results${query}`))}\n`);
  for (const group of groups) {
    const title = Object.hasOwn(GROUP_TITLES, group.type) ? GROUP_TITLES[group.type]! : titleOf(group.type); // own keys: `constructor` is a word
    sections.push(`${kit.chalk.bold(fitLine(kit, `${scrubLine(title)} (${group.rows.length})`))}\n${await drawRecords(kit, groupColumns(group), group.rows)}`);
  }
  sections.push(await drawDetails(kit, view.details));
  return joinSections(sections);
}

export async function pulseTable(kit: TableKit, view: PulseView): Promise<string> {
  return joinSections([labelled(kit, [['Market index', scoreText(kit, view.index, undefined)]]), await drawDetails(kit, view.details)]);
}
