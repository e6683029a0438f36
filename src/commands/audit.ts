import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { fetchAndShow, queryFrom } from './query.js';

export interface AuditOptions {
  args: [string[]];
  file?: string;
  concurrency: number;
}

export async function run(opts: AuditOptions, deps: Deps): Promise<void> {
  const names = opts.args[0];
  if (names.length === 0 && opts.file === undefined) {
    throw new UsageError('missing company name', { hint: 'rep audit "Blue Bottle Coffee", or --file PATH for a batch' });
  }
  // TODO(batch): several names, --file and - make a batch.
  await fetchAndShow(deps, 'audit', queryFrom(names, 'company name'));
}
