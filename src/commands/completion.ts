// `rep completion bash|zsh|fish`: scripts generated from the program's own definitions, so a new
// command or option completes without anyone remembering to update a list.
import type { Command, Option } from 'commander';
import type { Deps } from '../deps.js';
import { buildProgram, FORMATS } from '../program.js';

export interface CompletionOptions {
  args: ['bash' | 'zsh' | 'fish'];
}

interface CommandSpec {
  name: string;
  description: string;
  options: string[];
}

export async function run(opts: CompletionOptions, deps: Deps): Promise<void> {
  const program = buildProgram(async () => {});
  const globals = flags(program.options);
  const commands: CommandSpec[] = program.commands.map((command: Command) => ({
    name: command.name(),
    description: command.description(),
    options: flags(command.options),
  }));
  const script = { bash: bashScript, zsh: zshScript, fish: fishScript }[opts.args[0]](commands, globals);
  deps.io.out(script);
}

function flags(options: readonly Option[]): string[] {
  return options.flatMap((option) => [option.short, option.long].filter((flag): flag is string => Boolean(flag)));
}

function bashScript(commands: CommandSpec[], globals: string[]): string {
  const cases = commands.map((c) => `    ${c.name}) opts="${[...c.options, ...globals, '--help'].join(' ')}" ;;`).join('\n');
  return `# bash completion for rep; add to ~/.bashrc:  source <(rep completion bash)
_rep() {
  local cur prev cmd opts i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --format) COMPREPLY=($(compgen -W "${FORMATS.join(' ')}" -- "$cur")); return ;;
    --file|-f) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
  esac
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "$cmd" in
${cases}
    *) opts="${commands.map((c) => c.name).join(' ')} ${globals.join(' ')} --help --version" ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _rep rep
`;
}

function zshScript(commands: CommandSpec[], globals: string[]): string {
  const list = commands.map((c) => `    '${c.name}:${c.description.replace(/'/g, "'\\''").replace(/:/g, '\\:')}'`).join('\n');
  const cases = commands.map((c) => `    ${c.name}) _arguments '*:: :->args' ${c.options.map((o) => `'${o}[]'`).join(' ')} ;;`).join('\n');
  return `#compdef rep
# zsh completion for rep; add to ~/.zshrc:  source <(rep completion zsh)
_rep() {
  local -a commands
  commands=(
${list}
  )
  _arguments -C \\
${globals.map((g) => `    '${g}[]' \\`).join('\n')}
    '--format[output format]:format:(${FORMATS.join(' ')})' \\
    '1: :->command' '*:: :->args'
  case $state in
    command) _describe 'command' commands ;;
    args)
      case $words[1] in
${cases}
      esac ;;
  esac
}
compdef _rep rep
`;
}

function fishScript(commands: CommandSpec[], globals: string[]): string {
  const lines = ['# fish completion for rep; save as ~/.config/fish/completions/rep.fish', 'complete -c rep -f'];
  for (const command of commands) {
    lines.push(`complete -c rep -n __fish_use_subcommand -a ${command.name} -d '${command.description.replace(/'/g, "\\'")}'`);
    for (const option of command.options) lines.push(`complete -c rep -n '__fish_seen_subcommand_from ${command.name}' ${fishFlag(option)}`);
  }
  for (const option of globals) lines.push(`complete -c rep ${fishFlag(option)}${option === '--format' ? ` -x -a '${FORMATS.join(' ')}'` : ''}`);
  lines.push("complete -c rep -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'");
  lines.push("complete -c rep -n '__fish_seen_subcommand_from audit' -s f -l file -r -F");
  return `${lines.join('\n')}\n`;
}

function fishFlag(flag: string): string {
  return flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
}
