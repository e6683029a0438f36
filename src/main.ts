// Runs one command: argv is parsed by the program in program.ts into plain option objects; each action
// lazy-imports its command module and calls `run(opts, deps)`. `main` is where the exit code is chosen.
import { CommanderError, type Command } from 'commander';
import type { Format, GlobalOptions } from './deps.js';
import { describeError, ExitCode, formatReport, InterruptedError, UsageError } from './errors.js';
import { processIO } from './io.js';
import { exitAfterOutput, type StdoutWatch } from './lifecycle.js';
import { buildProgram } from './program.js';

export interface MainOptions {
  /** Aborted on Ctrl-C / SIGTERM (watched by cli.ts from its first line). */
  signal: AbortSignal;
  stdout: StdoutWatch;
}

/** Parses argv, runs one command, and returns the exit code. Nothing else decides it. */
export async function main(argv: string[], { signal, stdout }: MainOptions): Promise<number> {
  if (signal.aborted) return ExitCode.interrupted; // a signal came while rep was starting
  const code = await runCommand(argv, signal, stdout.stopped);
  return exitAfterOutput(stdout, code, argv.includes('--debug'));
}

async function runCommand(argv: string[], signal: AbortSignal, stdoutStopped: AbortSignal): Promise<number> {
  const args = argv.slice(2);
  let globals: GlobalOptions | undefined;
  let cleanup: () => Promise<void> = async () => {};

  const program = buildProgram(async (load, opts, command) => {
    globals = readGlobals(command.optsWithGlobals());
    const io = processIO({ noColorFlag: globals.color === false, env: process.env }, stdoutStopped);
    // Loaded here, not at the top: `--help` and usage errors need no config, paths or client.
    const { createDeps } = await import('./context.js');
    const context = createDeps({ globals, io, env: process.env, signal });
    cleanup = context.cleanup;
    const module = await load();
    await module.run(opts as never, context.deps);
  });
  for (const command of [program, ...program.commands]) {
    // Usage errors are reported here like every other error: one line and a hint, exit 2.
    command.exitOverride().configureOutput({ outputError: () => {} });
  }

  try {
    if (args.length === 0) {
      process.stdout.write(program.helpInformation());
      return ExitCode.ok;
    }
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError && ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) {
      return ExitCode.ok;
    }
    const report = describeError(signal.aborted ? new InterruptedError() : error instanceof CommanderError ? usageError(error, args, program.commands) : error);
    if (report.exitCode === ExitCode.interrupted && !globals?.debug) return report.exitCode;
    process.stderr.write(formatReport(report, { debug: globals?.debug ?? args.includes('--debug') }));
    return report.exitCode;
  } finally {
    await cleanup();
  }
}

function readGlobals(raw: Record<string, unknown>): GlobalOptions {
  return {
    baseUrl: raw.baseUrl as string | undefined,
    format: raw.format as Format | undefined,
    json: Boolean(raw.json),
    bom: Boolean(raw.bom),
    color: raw.color as boolean | undefined,
    timeout: raw.timeout as number,
    retries: raw.retries as number,
    wait: Boolean(raw.wait),
    maxWait: raw.maxWait as number,
    maxAge: raw.maxAge as number | undefined,
    cache: raw.cache !== false,
    debug: Boolean(raw.debug),
    quiet: Boolean(raw.quiet),
    sandbox: Boolean(raw.sandbox),
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
