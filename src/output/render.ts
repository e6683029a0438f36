// Writes one endpoint's answer to stdout in the chosen format. JSON keeps the server's body as it
// is; the other formats are pure functions of the view, built once from that body.
import type { Endpoint } from '../views/index.js';
import type { Format } from '../deps.js';
import type { Change } from '../history/change.js';
import { checkpoint } from '../interrupt.js';
import type { IO } from '../io.js';
import { viewOf, type EndpointView } from '../views/index.js';
import { BOM } from './csv.js';
import { auditCsv, pulseCsv, searchCsv, searchRecords } from './csv-views.js';
import { jsonDocument } from './json-colour.js';
import { jsonText } from './json-text.js';
import type { Shape } from './shaped.js';

/** A body and its view: JSON writes the one, every other format reads the other. */
export type ViewedBody = EndpointView & { body: unknown };

export interface RenderOptions {
  /** Ctrl-C or SIGTERM: nothing more is written, and a long table stops being drawn (only `aborted` is asked). */
  signal?: { readonly aborted: boolean };
  /** CSV starts with a UTF-8 byte-order mark (see BOM). */
  bom?: boolean;
  /** The audit's change since the previous recorded point (the table shows it). */
  change?: Change;
  /** `--fields` and `--query` (output/shaped.ts), and the query asked (a record's `query` field). */
  shape?: Shape;
  asked?: string;
}

/** Builds the view of `body` once and writes it (see writeView). */
export async function writeResult(io: IO, endpoint: Endpoint, body: unknown, format: Format, options: RenderOptions = {}): Promise<void> {
  await writeView(io, { body, ...viewOf(endpoint, body) }, format, options);
}

/** Whether an audit written in `format` shows its change since the previous point (writeView's `change`). */
export function showsChange(format: Format): boolean {
  return format === 'table' || format === 'markdown';
}

/** Writes the answer; after a signal nothing is written. */
export async function writeView(io: IO, answer: ViewedBody, format: Format, { signal, bom = false, change, shape, asked }: RenderOptions = {}): Promise<void> {
  await checkpoint(signal); // a signal that came with the answer
  if (shape?.fields || shape?.query) {
    const { writeShaped } = await import('./shaped.js');
    await writeShaped(io, answer, format, shape, { ...(change ? { change } : {}), ...(asked === undefined ? {} : { asked }) });
    return;
  }
  switch (format) {
    case 'json':
      io.out(jsonDocument(io, answer.body));
      return;
    case 'ndjson':
      for (const line of ndjsonLines(answer)) {
        if (!io.out(line)) return;
      }
      return;
    case 'csv':
      io.out((bom ? BOM : '') + csvOf(answer));
      return;
    case 'table':
      io.out(await tableOf(io, answer, signal, change));
      return;
    case 'markdown':
      io.out(await markdownOf(answer, change));
      return;
  }
}

/** Search: one result a line, with its type; audit and pulse: the body on one line. */
function* ndjsonLines(answer: ViewedBody): Generator<string> {
  if (answer.endpoint !== 'search') {
    yield `${jsonText(answer.body)}\n`;
    return;
  }
  for (const record of searchRecords(answer.view)) yield `${jsonText(record)}\n`;
}

function csvOf(answer: EndpointView): string {
  switch (answer.endpoint) {
    case 'audit':
      return auditCsv(answer.view);
    case 'search':
      return searchCsv(answer.view);
    case 'pulse':
      return pulseCsv(answer.view);
  }
}

async function markdownOf(answer: EndpointView, change: Change | undefined): Promise<string> {
  const { auditMarkdown, pulseMarkdown, searchMarkdown } = await import('./markdown-views.js');
  if (answer.endpoint === 'audit') return auditMarkdown(answer.view, change);
  return answer.endpoint === 'search' ? searchMarkdown(answer.view) : pulseMarkdown(answer.view);
}

async function tableOf(io: IO, answer: EndpointView, signal: RenderOptions['signal'], change?: Change): Promise<string> {
  const [{ loadTableKit }, { auditTable, pulseTable, searchTable }] = await Promise.all([import('./table-kit.js'), import('./table.js')]);
  const kit = await loadTableKit(io, signal);
  let table: string;
  if (answer.endpoint === 'audit') table = await auditTable(kit, answer.view, change);
  else if (answer.endpoint === 'search') table = await searchTable(kit, answer.view);
  else table = await pulseTable(kit, answer.view);
  await kit.pause(); // a signal that came while the end of the table was drawn: it is not written
  return table;
}
