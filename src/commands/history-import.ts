// `rep history import [FILE]`: copies a local history (a history.jsonl, or a history folder; default
// this machine's own) into the configured store, saying on stderr how many points were new. Points keep
// their ids, so importing twice adds nothing.
import { existsSync, statSync } from 'node:fs';
import type { Deps } from '../deps.js';
import { historyPlace } from '../config/paths.js';
import { systemErrorText, UsageError } from '../errors.js';
import { StoreError } from '../store/errors.js';
import { importHistory, isHistoryFolder } from '../store/import.js';
import { placeOf } from '../store/policy.js';

export interface HistoryImportOptions {
  file?: string;
}

export async function run(opts: HistoryImportOptions, deps: Deps): Promise<void> {
  const store = deps.store();
  if (!store) throw new UsageError('--sandbox keeps no history to import into', { hint: 'drop --sandbox' });
  if (opts.file === undefined && store.describe().kind === 'local')
    throw new UsageError('no store is configured: this machine’s history is in the local store already', {
      hint: 'set REP_STORE (or --store URL) to the team’s postgres:// store, or give a FILE to import',
    });
  const { historyDir, legacyHistoryFile } = historyPlace(deps.env, deps.paths().stateDir);
  const source = opts.file ?? (isHistoryFolder(historyDir) ? historyDir : legacyHistoryFile);
  const hint = 'give the history.jsonl or history folder to import';
  if (!existsSync(source)) throw new UsageError(`no history at ${source}`, { hint });
  if (statSync(source).isDirectory() && !isHistoryFolder(source)) throw new UsageError(`${source} is no history folder: it has no series folder`, { hint });
  let outcome: Awaited<ReturnType<typeof importHistory>>;
  try {
    outcome = await importHistory(source, store.history);
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new UsageError(`cannot import ${source}: ${systemErrorText(error)}`, { cause: error });
  }
  if (deps.globals.quiet) return;
  const where = store.describe().kind === 'local' ? placeOf(store, 'history') : (await store.history.stats()).where;
  const skipped = outcome.corrupt === 0 ? '' : `; skipped ${outcome.corrupt} line${outcome.corrupt === 1 ? '' : 's'} that were no point`;
  deps.io.err(`Imported ${outcome.added} new point${outcome.added === 1 ? '' : 's'} of ${outcome.read} from ${source} into ${where}${skipped}\n`);
}
