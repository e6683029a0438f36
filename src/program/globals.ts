// The global options: their definitions and help, and the one place where commander's parsed values
// become the run's GlobalOptions (globalsOf, which every command's action calls), checked against the command.
import { type Command, Help, InvalidArgumentError, Option } from 'commander';
import type { Format, GlobalOptions } from '../deps.js';
import { UsageError } from '../errors.js';
import { fieldsNotOf, fieldsOf, parseFieldList, type FieldsCommand } from '../output/field-names.js';
import { parseDuration, positiveNumber, wholeNumber } from '../options.js';
import { chooseStoreUrl } from '../store/choose.js';

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

/** Defines the global options on the program, and which of them each command's help lists. */
export function defineGlobalOptions(program: Command): Command {
  return program
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
    .option('--query <expr>', 'JMESPath over the JSON that would be printed; prints the result as JSON (see `rep help formats`)');
}

/** The global options as commander holds them: names and types follow defineGlobalOptions. */
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
export function globalsOf(command: Command): GlobalOptions {
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
