// Where argv is parsed: the commander program, assembled from the global options (program/globals.ts,
// which also turns commander's values into GlobalOptions) and one definition a command (program/*.ts:
// its arguments, options, help, and the typed options object its action hands to `run`). Pure
// definitions; the actions lazy-import their command modules through `runAction`, so defining the
// program loads nothing else.
import { Command } from 'commander';
import { VERSION } from './version.js';
import { defineLogin, defineLogout, defineStatus } from './program/account.js';
import type { DefineCommand, RunAction } from './program/define.js';
import { defineGlobalOptions } from './program/globals.js';
import { defineHelp } from './program/help.js';
import { defineHistory, defineReport } from './program/history.js';
import { defineCache, defineCompletion, defineSandbox, defineVersion } from './program/local.js';
import { defineApi, defineAudit, definePulse, defineSearch } from './program/lookups.js';

export type { CommandModule, RunAction } from './program/define.js';

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

/** Each command's definition, by name. */
const DEFINITIONS: Record<CommandName, DefineCommand> = {
  login: defineLogin,
  logout: defineLogout,
  status: defineStatus,
  audit: defineAudit,
  history: defineHistory,
  report: defineReport,
  search: defineSearch,
  pulse: definePulse,
  api: defineApi,
  sandbox: defineSandbox,
  cache: defineCache,
  completion: defineCompletion,
  version: defineVersion,
  help: defineHelp,
};

/**
 * The program. Given the run's arguments, it defines only the command they name where that is certain
 * (defining every command and its options is a measurable share of a run); without them, every command.
 */
export function buildProgram(runAction: RunAction, args?: readonly string[]): Command {
  const program = new Command('rep')
    .description('Reputation data from the command line: audit a company, search, and read the market pulse.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false);
  defineGlobalOptions(program).addHelpText(
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
  for (const name of COMMAND_NAMES) if (only === undefined || only === name) DEFINITIONS[name](program, runAction);
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
