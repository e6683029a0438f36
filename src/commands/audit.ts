import { signalOf } from '../api/abort-link.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { contextArgs, suggestedCommand } from '../shell-quote.js';
import { startWatch } from '../history/watch.js';
import type { AuditView } from '../views/audit.js';
import { showsChange } from '../output/render.js';
import { fetchAndShow, queryFrom } from './query.js';
import { shapeShowsChange } from './shape.js';

export interface AuditOptions {
  /** The names given as arguments (`-` reads stdin at that place). */
  names: string[];
  /** `--file PATH` (`-` for stdin). */
  file?: string;
  /** Requests in flight during a batch. */
  concurrency: number;
  /** `--batch`: batch records, summary and exit codes even for one name. */
  batch: boolean;
  /** `--csv-sources`: a batch's CSV has a row per source (default: one per company). */
  csvSources: boolean;
  /** `--fail-under SCORE`: exit 7 when a score is below it. */
  failUnder?: number;
  /** `--fail-on-drop POINTS`: exit 7 when a score fell by more than this since its previous point. */
  failOnDrop?: number;
}

export async function run(opts: AuditOptions, deps: Deps): Promise<void> {
  const { isBatch, openNames, STDIN } = await import('../batch/input.js');
  // No name: names piped in (`… | rep audit`) are read as `-` would; a terminal or /dev/null is never waited on.
  const names = opts.names.length === 0 && opts.file === undefined && !deps.io.stdinIsTTY && deps.io.stdinPiped ? [STDIN] : opts.names;
  if (names.length === 0 && opts.file === undefined) {
    throw new UsageError('missing company name', { hint: 'rep audit "Blue Bottle Coffee"; for a batch, --file PATH or names piped in: … | rep audit' });
  }
  const limits = {
    ...(opts.failUnder === undefined ? {} : { failUnder: opts.failUnder }),
    ...(opts.failOnDrop === undefined ? {} : { failOnDrop: opts.failOnDrop }),
  };
  if (!opts.batch && !isBatch(names, opts.file)) {
    const query = queryFrom(names, 'company name');
    const watch = await startWatch(deps, limits, { showsChange: showsChange(deps.format()) || shapeShowsChange(deps.globals) });
    await watch.finish(fetchAndShow(deps, 'audit', query, (view, fromCache) => watch.see(query, view as AuditView, fromCache)));
    return;
  }
  const { io } = deps;
  const input = await openNames({
    args: names,
    ...(opts.file === undefined ? {} : { file: opts.file }),
    // Getters: stdin is made only where a name is read from it, not for a batch of a file or arguments.
    get stdin() {
      return io.stdin;
    },
    get stdinIsTTY() {
      return io.stdinIsTTY;
    },
    stop: AbortSignal.any([signalOf(deps.signal), io.stdoutClosed]),
    onTerminalStdin: () => {
      if (!deps.globals.quiet) io.err('reading company names from stdin, one a line (Ctrl-D to end)\n');
    },
  });
  const bareWords = opts.file === undefined && names.length > 1 && names.every((word) => word !== STDIN && !/\s/.test(word));
  const typedNames = (names.includes(STDIN) || opts.file === STDIN) && io.stdinIsTTY;
  const [{ runBatch }, { batchShowsChange }] = await Promise.all([import('../batch/run.js'), import('../output/batch.js')]);
  const watch = await startWatch(deps, limits, {
    showsChange: batchShowsChange(deps.format(), { csvSources: opts.csvSources }) || shapeShowsChange(deps.globals),
  });
  await watch.finish(
    runBatch(deps, input, {
      onAnswer: (query, view, fromCache) => watch.see(query, view, fromCache),
      csvSources: opts.csvSources,
      concurrency: opts.concurrency,
      progress: !typedNames,
      // Arguments and a --file are read whole (up to a bound) to plan; stdin only when it ends within the window.
      planAhead: typedNames ? 0 : names.includes(STDIN) || opts.file === STDIN ? 64 : PLAN_AHEAD,
      ...(bareWords ? { allNotFoundHint: quoteHint(names.join(' '), contextArgs(deps.globals)) } : {}),
    }),
  );
}

/** Names read before a batch's first request, to plan it against the hour's quota. */
const PLAN_AHEAD = 100_000;

/** `rep audit Blue Bottle Coffee` audits three names; when none exists, the user most likely meant one. */
function quoteHint(name: string, context: string[]): string {
  return `to audit one company whose name has spaces, quote it: ${suggestedCommand(context, ['audit', name])}`;
}
