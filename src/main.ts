// Runs one command in-process: argv is parsed by the program in program.ts into one typed options
// object per command; the action lazy-imports its command module and calls `run(opts, deps)`. `main`
// touches nothing of the process: it writes through `io`, reads `env`, stops when `signal` aborts, and
// returns the exit code (cli.ts sets it), so tests run any command through it.
import { CommanderError, type Command, type OutputConfiguration } from 'commander';
import type { Abortable } from './api/abort-link.js';
import type { GlobalOptions } from './deps.js';
import { describeError, ExitCode, formatReport, InterruptedError, UsageError, type HintContext } from './errors.js';
import { exitAfterOutput, withoutColor, type IO } from './io.js';
import { looksLikeFieldList } from './output/field-names.js';
import { buildProgram } from './program.js';

export interface MainOptions {
  io: IO;
  /** The environment rep reads (REP_*, HOME, XDG_*, NO_COLOR, proxies): process.env, or a test's own. */
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C, SIGTERM, SIGHUP or SIGQUIT: the command stops and the run exits 130 (see Deps.signal). */
  signal: Abortable;
  /** Aborted when the process exits at once (a second signal): listeners close what must be closed, synchronously. */
  exiting?: Abortable;
  /** The clock every command reads (dates of points, the sandbox's day); default Date.now. */
  now?: () => number;
  /** Called as a long loop starts (a batch): the process may trade a little CPU for a heap that stays small. */
  longRun?: () => void;
}

/** Parses argv, runs one command, and returns the exit code. Nothing else decides it. */
export async function main(argv: string[], options: MainOptions): Promise<number> {
  const { io, signal } = options;
  if (signal.aborted) return ExitCode.interrupted; // a signal came while rep was starting
  const code = await runCommand(argv, options);
  return exitAfterOutput(io, code, argv.includes('--debug') || debugFromEnv(options.env));
}

async function runCommand(argv: string[], { io, env, signal, exiting, now, longRun }: MainOptions): Promise<number> {
  const args = argv.slice(2);
  let globals: GlobalOptions | undefined;
  let cleanup: () => Promise<void> = async () => {};
  let hintContext: (() => HintContext) | undefined;

  const program = buildProgram(async (load, opts, parsed) => {
    // REP_DEBUG=1 is --debug (as GH_DEBUG is gh's), for CI where a flag is hard to add.
    globals = debugFromEnv(env) ? { ...parsed, debug: true } : parsed;
    const commandIO = globals.color ? io : withoutColor(io);
    // Loaded here, not at the top: `--help` and usage errors need no config, paths or client.
    const { createDeps } = await import('./context.js');
    const context = createDeps({
      globals,
      io: commandIO,
      env,
      signal,
      ...(exiting ? { exiting } : {}),
      ...(now ? { now } : {}),
      ...(longRun ? { longRun } : {}),
    });
    cleanup = context.cleanup;
    hintContext = context.hintContext;
    // A broken --query is a usage error before anything is read or sent.
    if (globals.query !== undefined) await (await import('./output/query.js')).compileQuery(globals.query);
    const module = await load();
    await module.run(opts, context.deps);
  }, args);
  const output = commanderOutput(io);
  for (const command of [program, ...program.commands]) {
    // Usage errors are reported here like every other error: one line and a hint, exit 2.
    command.exitOverride().configureOutput(output);
  }

  try {
    if (args.length === 0) {
      io.out(program.helpInformation());
      return ExitCode.ok;
    }
    checkJsonHabit(args);
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError && ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) {
      return ExitCode.ok;
    }
    const report = describeError(
      signal.aborted ? new InterruptedError() : error instanceof CommanderError ? usageError(error, args, program.commands) : error,
      hintContext?.(),
    );
    if (report.exitCode === ExitCode.interrupted && !globals?.debug) return report.exitCode;
    io.err(formatReport(report, { debug: globals?.debug ?? (args.includes('--debug') || debugFromEnv(env)) }));
    return report.exitCode;
  } finally {
    await cleanup();
  }
}

/** commander's help and version go through the IO, at its width; its own error printing is off (see above). */
function commanderOutput(io: IO): OutputConfiguration {
  return {
    writeOut: (text) => void io.out(text),
    writeErr: (text) => io.err(text),
    outputError: () => {},
    getOutHelpWidth: () => (io.stdoutIsTTY ? io.columns : 80), // commander's own width off a terminal
    getErrHelpWidth: () => io.stderrColumns || 80,
    getOutHasColors: () => io.colorOut,
    getErrHasColors: () => io.colorErr,
  };
}

/**
 * commander's parse errors as one-line usage errors in rep's own words: "(Did you mean …?)" folded
 * onto the line, the value of an unknown `--option=value` hidden (a user may have tried to pass a key
 * that way), and the hint pointing at the help of the command that was given.
 */
export function usageError(error: CommanderError, args: readonly string[] = [], commands: readonly Command[] = []): UsageError {
  const given = args.find((arg) => commands.some((each) => each.name() === arg));
  const command = commands.find((each) => each.name() === given);
  const message = reword(error.message.replace(/^error: /, ''), command)
    .replace(/^(unknown option '[^=']+)=[^']*'/, "$1=…'")
    .replace(/\s*\n\s*\((.*)\)\s*$/, (_, suggestion: string) => ` (${suggestion.charAt(0).toLowerCase()}${suggestion.slice(1)})`);
  return new UsageError(message, { hint: `see \`rep ${command ? `${command.name()} ` : ''}--help\`` });
}

/** Flags users bring from other tools, and what rep calls them. */
const FAMILIAR_FLAGS: Record<string, string> = { '-v': '-V for the version, or --debug', '--verbose': '--debug' };
/** How a missing argument is named, where its own name says too little. */
const ARGUMENT_NOUNS: Record<string, string> = { text: 'search text' };

function reword(message: string, command: Command | undefined): string {
  const reason = (text: string) => {
    const said = text.replace(/^Allowed choices are (.*)\.$/, 'expected one of $1').trim();
    return said ? `: ${said}` : '';
  };
  const badOption = /^option '(?:-\w, )?(--[\w-]+)[^']*' argument '([^']*)' is invalid\.\s*(.*)$/s.exec(message);
  if (badOption) return `invalid value '${badOption[2]}' for ${badOption[1]}${reason(badOption[3] ?? '')}`;
  const badArgument = /^command-argument value '([^']*)' is invalid for argument '([^']+)'\.\s*(.*)$/s.exec(message);
  if (badArgument) return `invalid value '${badArgument[1]}' for <${badArgument[2]}>${reason(badArgument[3] ?? '')}`;
  const missingValue = /^option '(?:-\w, )?(--[\w-]+)[^']*' argument missing$/.exec(message);
  if (missingValue) return `${missingValue[1]} needs a value`;
  const unknownOption = /^unknown option '([^'=]+)'$/.exec(message);
  const familiar = unknownOption && FAMILIAR_FLAGS[unknownOption[1]!];
  if (familiar) return `${message} (did you mean ${familiar}?)`;
  const missingArgument = /^missing required argument '([^']+)'$/.exec(message);
  if (missingArgument) {
    const name = missingArgument[1]!;
    const choices = command?.registeredArguments.find((argument) => argument.name() === name)?.argChoices;
    return `missing ${ARGUMENT_NOUNS[name] ?? name}${choices ? `: expected one of ${choices.join(', ')}` : ''}`;
  }
  const tooMany = /^too many arguments for '([^']+)'\. Expected (\d+) arguments? but got (\d+)\.$/.exec(message);
  if (tooMany) {
    const expected = Number(tooMany[2]);
    return `${tooMany[1]} takes ${expected === 0 ? 'no arguments' : `${expected} argument${expected === 1 ? '' : 's'}`}, but got ${tooMany[3]}`;
  }
  return message;
}

/**
 * gh's `--json name,score` would audit a company named "name,score": rep's `--json` takes no value, so
 * a field list right after it (every comma part a field name; `--` before it forces a name) is a usage error.
 */
function checkJsonHabit(args: readonly string[]): void {
  const end = args.indexOf('--');
  const at = args.findIndex((arg, index) => arg === '--json' && (end === -1 || index < end));
  const next = at === -1 ? undefined : args[at + 1];
  if (next === undefined || !looksLikeFieldList(next)) return;
  throw new UsageError(`--json takes no field list: '${next}' would be read as a name`, {
    hint: `pick fields with --fields ${next} (see \`rep help fields\`); to mean the name, put it after --`,
  });
}

/**
 * `REP_DEBUG=1` (or `true`, or any other word) turns --debug on; unset, empty, `0`, `false`, `no` or
 * `off` leave it off (gh's GH_DEBUG reads the same way: REP_DEBUG=no must not mean yes).
 */
function debugFromEnv(env: NodeJS.ProcessEnv): boolean {
  const value = env.REP_DEBUG?.trim().toLowerCase();
  return value !== undefined && !DEBUG_OFF.has(value);
}
const DEBUG_OFF = new Set(['', '0', 'false', 'no', 'off']);
