// What a command's definition is made of: the action it hands its typed options to, and its help's examples.
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../deps.js';

/** A command module: `run(opts, deps)`, knowing nothing of argv. */
export interface CommandModule<Options> {
  run: (opts: Options, deps: Deps) => Promise<void>;
}

/** What an action hands on: the command's module (loaded on call), its options, and the global options. */
export type RunAction = <Options>(load: () => Promise<CommandModule<Options>>, opts: Options, globals: GlobalOptions) => Promise<void>;

/** Adds one command (with its subcommands) to the program: its arguments, options, help and action. */
export type DefineCommand = (program: Command, runAction: RunAction) => void;

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}\n`).join('')}`;
}
