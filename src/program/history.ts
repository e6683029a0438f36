// history (with prune and import) and report: the commands over the recorded history.
import type { Command } from 'commander';
import type { HistoryOptions } from '../commands/history.js';
import type { HistoryImportOptions } from '../commands/history-import.js';
import type { HistoryPruneOptions } from '../commands/history-prune.js';
import type { ReportOptions } from '../commands/report.js';
import { UsageError } from '../errors.js';
import { examples, type DefineCommand } from './define.js';
import { globalsOf } from './globals.js';

export const defineHistory: DefineCommand = (program, runAction) => {
  program
    .command('history')
    .description('the scores recorded for a company, oldest first (local: no request)')
    .argument('[name...]', 'company name or the query it was audited by')
    .option('--since <when>', 'only points since a duration back (30d, 12h) or a date (2026-11-01)')
    .option('--market', 'the recorded market index (each fresh `rep pulse` is a point)')
    .option('--chart', 'a line chart of the scores, with the market where recorded')
    .addHelpText(
      'after',
      examples(
        'rep history "Blue Bottle Coffee" --since 30d --format csv',
        'rep history "Blue Bottle Coffee" --chart',
        'rep history --market --format json | jq .[].score',
      ),
    )
    .action((words: string[], flags: { since?: string; market?: true; chart?: true }, command: Command) => {
      if (words.length === 0 && !flags.market)
        throw new UsageError('missing company name', { hint: 'give a name, e.g. rep history "Blue Bottle Coffee", or --market' });
      return runAction<HistoryOptions>(
        () => import('../commands/history.js'),
        { name: words.join(' '), since: flags.since, market: flags.market === true, chart: flags.chart === true },
        globalsOf(command),
      );
    })
    // A company named "prune": `rep history Prune` (names match without case).
    .command('prune')
    .description('remove the points dated before a time, every company (the only way a point goes)')
    .option('--before <when>', 'a duration back from now (2y, 90d) or a date (2026-01-01)')
    .addHelpText('after', examples('rep history prune --before 2y', 'rep history prune --before 2026-01-01'))
    .action((flags: HistoryPruneOptions, command: Command) =>
      runAction<HistoryPruneOptions>(() => import('../commands/history-prune.js'), { before: flags.before }, globalsOf(command)),
    )
    .parent!.command('import')
    .description('copy a local history (history.jsonl or folder; default: this machine’s) into the configured store')
    .argument('[file]', 'a history.jsonl or a history folder')
    .addHelpText('after', examples('REP_STORE=postgres://rep@db/rep rep history import', 'rep history import ./ci/history.jsonl'))
    .action((file: string | undefined, _flags: unknown, command: Command) =>
      runAction<HistoryImportOptions>(() => import('../commands/history-import.js'), file === undefined ? {} : { file }, globalsOf(command)),
    );
};

export const defineReport: DefineCommand = (program, runAction) => {
  program
    .command('report')
    .description('one self-contained HTML report from the history (local: no request)')
    .argument('[name...]', 'companies to report on (default: every one recorded at the base URL)')
    .option('--file <path>', 'read names from a file, one a line (- for stdin)')
    .option('--since <when>', 'the period: a duration back (90d) or a date (2026-11-01)', '90d')
    .addHelpText(
      'after',
      examples(
        'rep report > report.html',
        'rep report --since 30d --file companies.txt > report.html',
        'rep report --format markdown >> "$GITHUB_STEP_SUMMARY"',
      ),
    )
    .action((words: string[], flags: { file?: string; since: string }, command: Command) =>
      runAction<ReportOptions>(() => import('../commands/report.js'), { names: words, file: flags.file, since: flags.since }, globalsOf(command)),
    );
};
