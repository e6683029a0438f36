// `rep help [command|topic]`: a command of its own rather than commander's help command, which shows
// the main help for an unknown name. (`rep help NAME` shows another command's help: `help` comes with every command.)
import { Argument } from 'commander';
import { UsageError } from '../errors.js';
import { examples, type DefineCommand } from './define.js';

/** `rep help TOPIC` (src/help/topics.ts): here as names only, so defining the program loads no topic text. */
export const TOPIC_NAMES = ['environment', 'exit-codes', 'fields', 'formats'] as const;
type TopicName = (typeof TOPIC_NAMES)[number];

export const defineHelp: DefineCommand = (program) => {
  program
    .command('help')
    .description('show help for a command (the same as --help), or a topic: environment, exit-codes, fields, formats')
    // Topics as the argument's choices, so completion offers them; any command name is accepted too.
    .addArgument(new Argument('[command]', 'the command or topic to show help for').choices(TOPIC_NAMES).argParser((value: string) => value))
    .addHelpText('after', examples('rep help', 'rep help audit', 'rep help fields'))
    .action(async (name: string | undefined) => {
      if (name !== undefined && (TOPIC_NAMES as readonly string[]).includes(name)) {
        const { topicText } = await import('../help/topics.js');
        program.configureOutput().writeOut?.(topicText(name as TopicName));
        return;
      }
      const target = name === undefined ? program : program.commands.find((command) => command.name() === name);
      if (!target) throw new UsageError(`unknown command '${name}'`, { hint: 'see `rep --help`' });
      target.help(); // prints to stdout and ends the parse like --help (exit 0)
    });
};
