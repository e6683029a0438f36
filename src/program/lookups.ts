// audit, search, pulse, api: the commands that ask the API.
import type { Command } from 'commander';
import type { ApiOptions } from '../commands/api.js';
import type { AuditOptions } from '../commands/audit.js';
import type { PulseOptions } from '../commands/pulse.js';
import type { SearchOptions } from '../commands/search.js';
import { positiveInteger, scoreThreshold } from '../options.js';
import { examples, type DefineCommand } from './define.js';
import { globalsOf } from './globals.js';

export const defineAudit: DefineCommand = (program, runAction) => {
  program
    .command('audit')
    .description('audit companies: Reputation Score and a summary by source')
    .argument('[name...]', 'company name; several names, --file or - (stdin) make a batch')
    .option('-f, --file <path>', 'read names from a file, one a line (- for stdin)')
    .option('-c, --concurrency <n>', 'requests in flight during a batch', positiveInteger, 4)
    .option('--batch', 'always print batch records, even for one name')
    .option('--csv-sources', "a batch's CSV has a row per source (default: one row per company)")
    .option('--fail-under <score>', 'exit 7 when a score is below SCORE (as the server gives it: 60, 4.5)', scoreThreshold)
    .option('--fail-on-drop <points>', 'exit 7 when a score fell by more than POINTS since its previous recorded point', scoreThreshold)
    .addHelpText(
      'after',
      examples(
        'rep audit "Blue Bottle Coffee"',
        'rep audit -f companies.txt --fail-on-drop 5 --format ndjson > audits.ndjson',
        'rep --sandbox audit "Кофейня Ромашка" --format table',
      ),
    )
    .action(
      (
        names: string[],
        flags: { file?: string; concurrency: number; batch?: true; csvSources?: true; failUnder?: number; failOnDrop?: number },
        command: Command,
      ) =>
        runAction<AuditOptions>(
          () => import('../commands/audit.js'),
          {
            names,
            file: flags.file,
            concurrency: flags.concurrency,
            batch: flags.batch === true,
            csvSources: flags.csvSources === true,
            failUnder: flags.failUnder,
            failOnDrop: flags.failOnDrop,
          },
          globalsOf(command),
        ),
    );
};

export const defineSearch: DefineCommand = (program, runAction) => {
  program
    .command('search')
    .description('search companies, cities and categories (at most 5 of each)')
    .argument('<text...>', 'words to search for, joined with one space')
    .addHelpText('after', examples('rep search coffee', "rep search coffee | jq -r '.companies[].name'", 'rep --sandbox search кофейня --format table'))
    .action((words: string[], _flags: object, command: Command) =>
      runAction<SearchOptions>(() => import('../commands/search.js'), { words }, globalsOf(command)),
    );
};

export const definePulse: DefineCommand = (program, runAction) => {
  program
    .command('pulse')
    .description('the market index: mean Reputation Score over all tracked companies')
    .addHelpText('after', examples('rep pulse', 'rep pulse | jq .index', 'rep --sandbox pulse --format table'))
    .action((_flags: object, command: Command) => runAction<PulseOptions>(() => import('../commands/pulse.js'), {}, globalsOf(command)));
};

export const defineApi: DefineCommand = (program, runAction) => {
  program
    .command('api')
    .description('a raw GET of {base URL}/PATH with the key and every safeguard; the body out')
    .argument('<path>', 'a path below the base URL, e.g. pulse or audit?q=Acme')
    .addHelpText('after', examples('rep api pulse', "rep api 'search?q=coffee' --query 'companies[].name'", 'rep --sandbox api pulse'))
    .action((path: string, _flags: object, command: Command) => runAction<ApiOptions>(() => import('../commands/api.js'), { path }, globalsOf(command)));
};
