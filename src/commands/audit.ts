import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { shellQuote } from '../shell-quote.js';
import { fetchAndShow, queryFrom } from './query.js';

export interface AuditOptions {
  /** The names given as arguments (`-` reads stdin at that place). */
  names: string[];
  /** `--file PATH` (`-` for stdin). */
  file?: string;
  /** Requests in flight during a batch. */
  concurrency: number;
  /** `--batch`: batch records, summary and exit codes even for one name. */
  batch: boolean;
}

export async function run(opts: AuditOptions, deps: Deps): Promise<void> {
  const { names } = opts;
  if (names.length === 0 && opts.file === undefined) {
    throw new UsageError('missing company name', { hint: 'rep audit "Blue Bottle Coffee", or --file PATH for a batch' });
  }
  const { isBatch, openNames, STDIN } = await import('../batch/input.js');
  if (!opts.batch && !isBatch(names, opts.file)) {
    await fetchAndShow(deps, 'audit', queryFrom(names, 'company name'));
    return;
  }
  const input = await openNames({
    args: names,
    ...(opts.file === undefined ? {} : { file: opts.file }),
    stdin: deps.io.stdin,
    stdinIsTTY: deps.io.stdinIsTTY,
    stop: AbortSignal.any([deps.signal, deps.io.stdoutClosed]),
    onTerminalStdin: () => {
      if (!deps.globals.quiet) deps.io.err('reading company names from stdin, one a line (Ctrl-D to end)\n');
    },
  });
  const bareWords = opts.file === undefined && names.length > 1 && names.every((word) => word !== STDIN && !/\s/.test(word));
  const typedNames = deps.io.stdinIsTTY && (names.includes(STDIN) || opts.file === STDIN);
  const { runBatch } = await import('../batch/run.js');
  await runBatch(deps, input, {
    concurrency: opts.concurrency,
    progress: !typedNames,
    ...(bareWords ? { allNotFoundHint: quoteHint(names.join(' ')) } : {}),
  });
}

/** `rep audit Blue Bottle Coffee` audits three names; when none exists, the user most likely meant one. */
function quoteHint(name: string): string {
  return `to audit one company whose name has spaces, quote it: rep audit ${name.startsWith('-') ? '-- ' : ''}${shellQuote(name)}`;
}
