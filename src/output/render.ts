// Writes one endpoint's answer to stdout in the chosen format. JSON keeps the server's body as it
// is; the other formats go through the shape-tolerant views.
import type { Format } from '../deps.js';
import { checkpoint } from '../interrupt.js';
import type { IO } from '../io.js';
import { auditCsv, pulseCsv, searchCsv, searchRecords } from './csv-views.js';
import { jsonText } from './json-text.js';
import { auditView, pulseView, searchView } from '../views/index.js';

export type ResultKind = 'audit' | 'search' | 'pulse';

function csvFor(kind: ResultKind, body: unknown): string {
  if (kind === 'audit') return auditCsv(auditView(body));
  if (kind === 'search') return searchCsv(searchView(body));
  return pulseCsv(pulseView(body));
}

async function tableFor(io: IO, kind: ResultKind, body: unknown, signal: AbortSignal | undefined): Promise<string> {
  const [{ loadTableKit }, { auditTable, pulseTable, searchTable }] = await Promise.all([import('./table-kit.js'), import('./table.js')]);
  const kit = await loadTableKit(io, signal);
  const table = await (kind === 'audit' ? auditTable(kit, auditView(body)) : kind === 'search' ? searchTable(kit, searchView(body)) : pulseTable(kit, pulseView(body)));
  await kit.pause(); // a signal that came while the end of the table was drawn: it is not written
  return table;
}

/** Writes the answer; after Ctrl-C or SIGTERM (`signal`) nothing is written, and a long table stops being drawn. */
export async function writeResult(io: IO, kind: ResultKind, body: unknown, format: Format, signal?: AbortSignal): Promise<void> {
  await checkpoint(signal); // a signal that came with the answer
  switch (format) {
    case 'json':
      io.out(`${jsonText(body, 2)}\n`);
      return;
    case 'ndjson':
      if (kind !== 'search') {
        io.out(`${jsonText(body)}\n`);
        return;
      }
      for (const record of searchRecords(searchView(body))) {
        if (!io.out(`${jsonText(record)}\n`)) return;
      }
      return;
    case 'csv':
      io.out(csvFor(kind, body));
      return;
    case 'table':
      io.out(await tableFor(io, kind, body, signal));
      return;
  }
}
