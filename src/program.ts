// The commander program: every command, option and help text, and the one typed place where commander's
// parsed values become a command's options object. Pure definitions; the actions lazy-import their
// command modules through `runAction`, so defining the program loads nothing else.
import { Argument, Command, Help, InvalidArgumentError, Option } from 'commander';
import type { ApiOptions } from './commands/api.js';
import type { AuditOptions } from './commands/audit.js';
import type { CacheClearOptions } from './commands/cache.js';
import type { CacheShowOptions } from './commands/cache-show.js';
import type { CompletionOptions } from './commands/completion.js';
import type { HistoryOptions } from './commands/history.js';
import type { HistoryPruneOptions } from './commands/history-prune.js';
import type { HistoryImportOptions } from './commands/history-import.js';
import type { LoginOptions } from './commands/login.js';
import type { LogoutOptions } from './commands/logout.js';
import type { PulseOptions } from './commands/pulse.js';
import type { ReportOptions } from './commands/report.js';
import type { SandboxCommandOptions } from './commands/sandbox.js';
import { chooseStoreUrl } from './store/choose.js';
import type { SearchOptions } from './commands/search.js';
import type { StatusOptions } from './commands/status.js';
import type { VersionOptions } from './commands/version.js';
import type { Deps, Format, GlobalOptions } from './deps.js';
import { UsageError } from './errors.js';
import { fieldsNotOf, fieldsOf, parseFieldList, type FieldsCommand } from './output/field-names.js';
import { parseDuration, portNumber, positiveInteger, positiveNumber, scoreThreshold, wholeNumber } from './options.js';
import { VERSION } from './version.js';

/** `rep help TOPIC` (src/help/topics.ts): here as names only, so defining the program loads no topic text. */
export const TOPIC_NAMES = ['environment', 'exit-codes', 'fields', 'formats'] as const;
type TopicName = (typeof TOPIC_NAMES)[number];

export const FORMATS: Format[] = ['table', 'json', 'ndjson', 'csv', 'markdown'];

/** The global options a command's help lists, when not all of them: only those that change what it does. */
const GLOBALS_IN_HELP: Record<string, readonly string[]> = {
  login: ['--base-url', '--timeout', '--retries', '--debug', '--quiet', '--profile'],
  logout: ['--quiet', '--profile'],
  status: ['--base-url', '--json', '--format', '--bom', '--profile', '--sandbox', '--store'],
  history: ['--base-url', '--json', '--format', '--no-color', '--profile', '--sandbox', '--store', '--fields', '--query'],
  report: ['--base-url', '--format', '--profile', '--sandbox', '--store'],
  sandbox: ['--quiet'],
  cache: ['--json', '--format', '--query', '--quiet', '--profile', '--sandbox'],
  clear: ['--quiet', '--profile', '--sandbox'],
  prune: ['--quiet', '--profile', '--sandbox'],
  completion: [],
  help: [],
  version: ['--json'],
  api: [
    '--base-url',
    '--json',
    '--format',
    '--query',
    '--no-color',
    '--timeout',
    '--retries',
    '--wait',
    '--max-wait',
    '--max-age',
    '--no-cache',
    '--debug',
    '--quiet',
    '--profile',
    '--sandbox',
  ],
};

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}\n`).join('')}`;
}

/** A command module: `run(opts, deps)`, knowing nothing of argv. */
export interface CommandModule<Options> {
  run: (opts: Options, deps: Deps) => Promise<void>;
}

/** What an action hands on: the command's module (loaded on call), its options, and the global options. */
export type RunAction = <Options>(load: () => Promise<CommandModule<Options>>, opts: Options, globals: GlobalOptions) => Promise<void>;

/** The commands, in the order help lists them. */
export const COMMAND_NAMES = [
  'login',
  'logout',
  'status',
  'audit',
  'history',
  'report',
  'search',
  'pulse',
  'api',
  'sandbox',
  'cache',
  'completion',
  'version',
  'help',
] as const;
type CommandName = (typeof COMMAND_NAMES)[number];

/**
 * The program. Given the run's arguments, it defines only the command they name where that is certain
 * (defining every command and its options is a measurable share of a run); without them, every command.
 */
export function buildProgram(runAction: RunAction, args?: readonly string[]): Command {
  const program = new Command('rep')
    .description('Reputation data from the command line: audit a company, search, and read the market pulse.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .configureHelp({
      // Error hints send users to `rep <command> --help`: it lists the global options that apply there.
      showGlobalOptions: true,
      visibleGlobalOptions(this: Help, command: Command) {
        const only = GLOBALS_IN_HELP[command.name()];
        return Help.prototype.visibleGlobalOptions
          .call(this, command)
          .filter((option) => option.long !== '--version' && (only === undefined || only.includes(option.long ?? '')));
      },
    })
    .option('--base-url <url>', 'API base URL, ending in /api (env: REP_BASE_URL)')
    .option('--json', 'same as --format json')
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, json otherwise)').choices(FORMATS))
    .option('--bom', 'start CSV with a UTF-8 byte-order mark, for Excel (env: REP_CSV_BOM=1)')
    .option('--no-color', 'no colour (env: NO_COLOR)')
    .option('--timeout <seconds>', 'seconds to wait for each attempt', positiveNumber, 30)
    .option('--retries <n>', 'retries after network errors and 5xx answers', wholeNumber, 2)
    .option('--wait', 'when rate limited, wait for the reset and go on')
    .addOption(new Option('--max-wait <duration>', 'longest total wait under --wait (90, 90s, 15m, 1h)').argParser(parseDuration).default(3_600_000, '1h'))
    .addOption(
      new Option('--max-age <duration>', 'reuse a cached answer younger than this; 0 always fetches (env: REP_MAX_AGE; default 15m)').argParser(parseDuration),
    )
    .option('--no-cache', 'neither read nor write the answer cache')
    .option('--debug', 'print requests, responses and stack traces on stderr (never the key)')
    .option('-q, --quiet', 'print nothing but data and errors')
    .option('--profile <name>', 'the profile to use: its base URL, key and store (env: REP_PROFILE)')
    .option('--sandbox', 'run the command against a built-in local sandbox (offline, keeps a store of its own)')
    .option('--store <url>', 'the store for this run: postgres://user@host/db, no password (env: REP_STORE; default: local files)')
    .option('--fields <list>', 'print only these fields of the normalised records, in any format (see `rep help fields`)', fieldList)
    .option('--query <expr>', 'JMESPath over the JSON that would be printed; prints the result as JSON (see `rep help formats`)')
    .addHelpText(
      'after',
      `
Examples:
  rep --sandbox audit "Кофейня Ромашка"
  rep search coffee | jq '.companies[].name'
  REP_API_KEY=… rep audit --file companies.txt --format ndjson

Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 auth, 5 rate limited,
6 network, 7 a gate failed (--fail-under, --fail-on-drop), 130 interrupted.`,
    );

  const only = args && commandNamed(program, args);
  const wanted = (name: CommandName) => only === undefined || only === name;
  if (wanted('login'))
    program
      .command('login')
      .description('store an API key (read from a hidden prompt, or the first line of stdin) and base URL')
      .option('--no-verify', 'store the key without checking it with one pulse call')
      .addHelpText(
        'after',
        examples(
          'rep login --base-url https://reputation.example.com/api',
          `printf '%s\\n' "$KEY" | rep login --base-url https://reputation.example.com/api`,
          'rep login --no-verify',
        ),
      )
      .action((flags: { verify: boolean }, command: Command) =>
        runAction<LoginOptions>(() => import('./commands/login.js'), { verify: flags.verify }, globalsOf(command)),
      );
  if (wanted('logout'))
    program
      .command('logout')
      .description('remove the stored API key (other settings stay)')
      .addHelpText('after', examples('rep logout', 'rep logout && rep status'))
      .action((_flags: object, command: Command) => runAction<LogoutOptions>(() => import('./commands/logout.js'), {}, globalsOf(command)));
  if (wanted('status'))
    program
      .command('status')
      .description('show base URL, key source, masked key, config path and recent request count')
      .addHelpText('after', examples('rep status', 'rep status --json | jq -r .key_source', 'rep --sandbox status'))
      .action((_flags: object, command: Command) => runAction<StatusOptions>(() => import('./commands/status.js'), {}, globalsOf(command)));
  if (wanted('audit'))
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
            () => import('./commands/audit.js'),
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
  if (wanted('history'))
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
          () => import('./commands/history.js'),
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
        runAction<HistoryPruneOptions>(() => import('./commands/history-prune.js'), { before: flags.before }, globalsOf(command)),
      )
      .parent!.command('import')
      .description('copy a local history (history.jsonl or folder; default: this machine’s) into the configured store')
      .argument('[file]', 'a history.jsonl or a history folder')
      .addHelpText('after', examples('REP_STORE=postgres://rep@db/rep rep history import', 'rep history import ./ci/history.jsonl'))
      .action((file: string | undefined, _flags: unknown, command: Command) =>
        runAction<HistoryImportOptions>(() => import('./commands/history-import.js'), file === undefined ? {} : { file }, globalsOf(command)),
      );
  if (wanted('report'))
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
        runAction<ReportOptions>(() => import('./commands/report.js'), { names: words, file: flags.file, since: flags.since }, globalsOf(command)),
      );
  if (wanted('search'))
    program
      .command('search')
      .description('search companies, cities and categories (at most 5 of each)')
      .argument('<text...>', 'words to search for, joined with one space')
      .addHelpText('after', examples('rep search coffee', "rep search coffee | jq -r '.companies[].name'", 'rep --sandbox search кофейня --format table'))
      .action((words: string[], _flags: object, command: Command) =>
        runAction<SearchOptions>(() => import('./commands/search.js'), { words }, globalsOf(command)),
      );
  if (wanted('pulse'))
    program
      .command('pulse')
      .description('the market index: mean Reputation Score over all tracked companies')
      .addHelpText('after', examples('rep pulse', 'rep pulse | jq .index', 'rep --sandbox pulse --format table'))
      .action((_flags: object, command: Command) => runAction<PulseOptions>(() => import('./commands/pulse.js'), {}, globalsOf(command)));
  if (wanted('api'))
    program
      .command('api')
      .description('a raw GET of {base URL}/PATH with the key and every safeguard; the body out')
      .argument('<path>', 'a path below the base URL, e.g. pulse or audit?q=Acme')
      .addHelpText('after', examples('rep api pulse', "rep api 'search?q=coffee' --query 'companies[].name'", 'rep --sandbox api pulse'))
      .action((path: string, _flags: object, command: Command) => runAction<ApiOptions>(() => import('./commands/api.js'), { path }, globalsOf(command)));
  if (wanted('sandbox'))
    program
      .command('sandbox')
      .description('run a local server that speaks the same API over a built-in data set')
      .option('-p, --port <n>', 'port to listen on (0: any free port)', portNumber, 0)
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--limit <n>', 'requests per key per window', positiveInteger, 100)
      .addOption(new Option('--window <duration>', 'rate-limit window (90, 90s, 15m, 1h)').argParser(parseDuration).default(3_600_000, '1h'))
      .addHelpText('after', examples('rep sandbox --port 8080', 'rep sandbox --limit 5 --window 1m   # try rate limits and --wait quickly'))
      .action((flags: { port: number; host: string; limit: number; window: number }, command: Command) =>
        runAction<SandboxCommandOptions>(
          () => import('./commands/sandbox.js'),
          { port: flags.port, host: flags.host, limit: flags.limit, windowMs: flags.window },
          globalsOf(command),
        ),
      );
  if (wanted('cache')) {
    const cache = program
      .command('cache')
      .description('what the answer cache holds (place, answers, size); `rep cache clear` empties it')
      .addHelpText('after', examples('rep cache', 'rep cache --json | jq .entries', 'rep cache clear'))
      .action((_flags: object, command: Command) => runAction<CacheShowOptions>(() => import('./commands/cache-show.js'), {}, globalsOf(command)));
    cache
      .command('clear')
      .description('remove every cached answer and say how many went')
      .addHelpText('after', examples('rep cache clear'))
      .action((_flags: object, command: Command) => runAction<CacheClearOptions>(() => import('./commands/cache.js'), {}, globalsOf(command)));
  }
  if (wanted('completion'))
    program
      .command('completion')
      .description('print a shell completion script')
      .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
      .addHelpText('after', examples('source <(rep completion bash)   # in ~/.bashrc; zsh alike', 'rep completion fish > ~/.config/fish/completions/rep.fish'))
      .action((shell: CompletionOptions['shell'], _flags: object, command: Command) =>
        runAction<CompletionOptions>(() => import('./commands/completion.js'), { shell }, globalsOf(command)),
      );
  if (wanted('version'))
    program
      .command('version')
      .description("print rep's version, Node's version and the platform")
      .addHelpText('after', examples('rep version', 'rep version --json'))
      .action((_flags: object, command: Command) => runAction<VersionOptions>(() => import('./commands/version.js'), {}, globalsOf(command)));
  // A command of its own rather than commander's help command, which shows the main help for an unknown name.
  // (`rep help NAME` shows another command's help: `help` comes with every command.)
  if (wanted('help'))
    program
      .command('help')
      .description('show help for a command (the same as --help), or a topic: environment, exit-codes, fields, formats')
      // Topics as the argument's choices, so completion offers them; any command name is accepted too.
      .addArgument(new Argument('[command]', 'the command or topic to show help for').choices(TOPIC_NAMES).argParser((value: string) => value))
      .addHelpText('after', examples('rep help', 'rep help audit', 'rep help fields'))
      .action(async (name: string | undefined) => {
        if (name !== undefined && (TOPIC_NAMES as readonly string[]).includes(name)) {
          const { topicText } = await import('./help/topics.js');
          program.configureOutput().writeOut?.(topicText(name as TopicName));
          return;
        }
        const target = name === undefined ? program : program.commands.find((command) => command.name() === name);
        if (!target) throw new UsageError(`unknown command '${name}'`, { hint: 'see `rep --help`' });
        target.help(); // prints to stdout and ends the parse like --help (exit 0)
      });
  return program;
}

/**
 * The command args run, read as commander reads them: the first argument that is no global option or
 * option value. Undefined where that is not certain (an unknown option, `--`, `help`, a word that is no
 * command), so that the whole program is built and commander answers as it always does.
 */
function commandNamed(program: Command, args: readonly string[]): CommandName | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return COMMAND_NAMES.find((name) => name === arg && name !== 'help');
    const [flag, value] = arg.split('=', 2) as [string, string | undefined];
    const option = program.options.find((each) => each.long === flag || each.short === flag);
    if (!option || option.optional || (value !== undefined && !option.required)) return undefined;
    if (option.required && value === undefined) i++; // the next argument is its value
  }
  return undefined;
}

/** The global options as commander holds them: names and types follow the definitions in buildProgram. */
interface GlobalFlags {
  baseUrl?: string;
  json?: true;
  format?: Format;
  color: boolean;
  timeout: number;
  retries: number;
  wait?: true;
  maxWait: number;
  maxAge?: number;
  cache: boolean;
  bom?: true;
  debug?: true;
  quiet?: true;
  sandbox?: true;
  store?: string;
  fields?: string[];
  query?: string;
  profile?: string;
}

/** `--fields`: an unknown name is a usage error that lists the valid ones. */
function fieldList(value: string): string[] {
  try {
    return parseFieldList(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** The commands whose records --fields picks from; --query reads the JSON of these and of `api`. */
const FIELDS_COMMANDS: readonly string[] = ['audit', 'search', 'pulse', 'history'] satisfies FieldsCommand[];
const QUERY_COMMANDS = new Set([...FIELDS_COMMANDS, 'api', 'cache']);

/** --fields and --query where they apply; a field the command's records lack is a usage error too. */
function checkShape(path: string, flags: GlobalFlags): void {
  if (path === 'api' && flags.format !== undefined && flags.format !== 'json' && flags.format !== 'ndjson')
    throw new UsageError(`rep api prints the body as JSON, not ${flags.format}`, {
      hint: 'drop --format, or pick fields with audit, search or pulse --fields',
    });
  if (flags.fields) {
    if (!FIELDS_COMMANDS.includes(path)) throw new UsageError(`--fields does not apply to rep ${path}`, { hint: `drop --fields; see rep help fields` });
    const missing = fieldsNotOf(path as FieldsCommand, flags.fields);
    if (missing.length > 0)
      throw new UsageError(`rep ${path} has no field ${missing.join(', ')}`, { hint: `its fields: ${fieldsOf(path as FieldsCommand).join(', ')}` });
  }
  if (flags.query !== undefined) {
    if (!QUERY_COMMANDS.has(path)) throw new UsageError(`--query does not apply to rep ${path}: it prints no JSON`, { hint: 'drop --query' });
    if (flags.format !== undefined && flags.format !== 'json' && flags.format !== 'ndjson')
      throw new UsageError(`--query prints JSON, not ${flags.format}`, { hint: 'use --format json or ndjson with --query (see `rep help formats`)' });
  }
}

/** Commands that print no data document: an output format given to them would be silently ignored. */
const PRINTS_NO_DATA = new Set(['login', 'logout', 'sandbox', 'cache clear', 'history prune', 'history import', 'completion']);

/** The global options of a run, read once from the command that runs (they may come before or after it). */
function globalsOf(command: Command): GlobalOptions {
  const flags = command.optsWithGlobals<GlobalFlags>();
  const path = command.parent?.parent ? `${command.parent.name()} ${command.name()}` : command.name();
  const format = flags.format !== undefined ? '--format' : flags.json ? '--json' : flags.bom ? '--bom' : undefined;
  if (format && PRINTS_NO_DATA.has(path)) {
    throw new UsageError(`${format} does not apply to rep ${path}: it prints no data to format`, { hint: `drop ${format}; see rep ${path} --help` });
  }
  checkShape(path, flags);
  return {
    ...(flags.fields ? { fields: flags.fields } : {}),
    ...(flags.query !== undefined ? { query: flags.query } : {}),
    baseUrl: flags.baseUrl,
    format: flags.format,
    json: flags.json === true,
    bom: flags.bom === true,
    color: flags.color,
    timeout: flags.timeout,
    retries: flags.retries,
    wait: flags.wait === true,
    maxWait: flags.maxWait,
    maxAge: flags.maxAge,
    cache: flags.cache,
    debug: flags.debug === true,
    quiet: flags.quiet === true,
    sandbox: flags.sandbox === true,
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.store === undefined ? {} : { store: chooseStoreUrl({ flag: flags.store, env: {} })?.url }),
  };
}
