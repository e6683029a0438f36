// `rep completion bash|zsh|fish`: scripts generated from the program's own definitions, so a new
// command or option completes without anyone remembering to update a list.
import type { Command, Option } from 'commander';
import type { Deps } from '../deps.js';
import { buildProgram } from '../program.js';

export interface CompletionOptions {
  shell: 'bash' | 'zsh' | 'fish';
}

interface OptionSpec {
  flags: string[];
  description: string;
  /** The option is followed by a value (`--format json`), so that word is no command. */
  takesValue: boolean;
  /** Values to offer: the option's choices, or files. */
  values?: string[] | 'files';
}

interface CommandSpec {
  name: string;
  description: string;
  options: OptionSpec[];
  /** Values for the first argument, when commander knows them (`completion <shell>`). */
  argChoices?: string[];
  /** Its arguments are company names: offer those recorded in the history (`rep __complete history-names`). */
  names?: boolean;
  /** Its own commands (`cache clear`). */
  subcommands?: CommandSpec[];
}

/** The commands whose arguments are company names. */
const NAMED = ['audit', 'history'];

export async function run(opts: CompletionOptions, deps: Deps): Promise<void> {
  const program = buildProgram(async () => {});
  const globals = [...program.options.filter((option) => option.long !== '--version').map(optionSpec), help()];
  const names = program.commands.map((command) => command.name());
  const commands = program.commands.map((command) => commandSpec(command, names));
  const script = { bash: bashScript, zsh: zshScript, fish: fishScript }[opts.shell](commands, globals);
  deps.io.out(script);
}

/** `commandNames` are what `rep help` takes, with any topics its argument lists. */
function commandSpec(command: Command, commandNames: readonly string[]): CommandSpec {
  const name = command.name();
  const listed = command.registeredArguments[0]?.argChoices;
  const choices = name === 'help' ? [...commandNames.filter((each) => each !== 'help'), ...(listed ?? [])] : listed;
  const subcommands = command.commands.map((sub) => commandSpec(sub, commandNames));
  return {
    name,
    description: command.description(),
    options: command.options.map(optionSpec),
    ...(choices ? { argChoices: choices } : {}),
    ...(NAMED.includes(name) ? { names: true } : {}),
    ...(subcommands.length > 0 ? { subcommands } : {}),
  };
}

function optionSpec(option: Option): OptionSpec {
  const flags = [option.short, option.long].filter((flag): flag is string => Boolean(flag));
  const takesValue = option.required || option.optional;
  const values = option.argChoices ?? (option.long === '--file' ? 'files' : undefined);
  return { flags, description: option.description, takesValue, ...(values ? { values } : {}) };
}

function help(): OptionSpec {
  return { flags: ['-h', '--help'], description: 'show help', takesValue: false };
}

function bashScript(commands: CommandSpec[], globals: OptionSpec[]): string {
  const all = [...globals, ...commands.flatMap((c) => c.options)];
  const valueFlags = [...new Set(all.filter((o) => o.takesValue).flatMap((o) => o.flags))].join('|');
  const valueCases = unique(
    all.filter((o) => o.values),
    (o) => o.flags.join('|'),
  ).map((o) =>
    o.values === 'files'
      ? `    ${o.flags.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`
      : `    ${o.flags.join('|')}) COMPREPLY=($(compgen -W "${(o.values ?? []).join(' ')}" -- "$cur")); return ;;`,
  );
  const globalFlags = globals.flatMap((o) => o.flags);
  const withSubcommands = commands.filter((c) => c.subcommands);
  const cases = commands
    .flatMap((c) => [c, ...(c.subcommands ?? []).map((sub) => ({ ...sub, name: `${c.name} ${sub.name}` }))])
    .map((c) => {
      const flags = [...c.options.flatMap((o) => o.flags), ...globalFlags].join(' ');
      // A command of names (history) offers names; its own command (prune) is typed, then completes its options.
      const words = c.argChoices ?? (c.names ? undefined : c.subcommands?.map((sub) => sub.name));
      const args = words ? `[[ "$cur" != -* ]] && opts="${words.join(' ')}" || ` : c.names ? '[[ "$cur" != -* ]] && { _rep_names; return; }; ' : '';
      return `    ${c.name.includes(' ') ? `"${c.name}"` : c.name}) ${args}opts="${flags}" ;;`;
    });
  // The first word that is no option is the command; a command with commands of its own takes one more.
  const subcommandCases = withSubcommands.map(
    (c) => `          ${c.name}) case "$word" in ${(c.subcommands ?? []).map((sub) => sub.name).join('|')}) cmd="$cmd $word" ;; esac; break ;;`,
  );
  return `# bash completion for rep; add to ~/.bashrc:  source <(rep completion bash)
# Company names recorded in rep's history, each quoted as one word for the word as typed so far.
_rep_names() {
  mapfile -t COMPREPLY < <("\${COMP_WORDS[0]}" __complete history-names "$cur" bash 2>/dev/null)
}
_rep() {
  local cur prev cmd opts i word
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # bash splits --format=json at '=': complete the value as if it followed a space.
  if [[ "$cur" == "=" ]]; then cur=""; elif [[ "$prev" == "=" ]]; then prev="\${COMP_WORDS[COMP_CWORD-2]}"; fi
  case "$prev" in
${valueCases.join('\n')}
    ${valueFlags}) COMPREPLY=(); return ;;
  esac
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      ${valueFlags}) [[ "\${COMP_WORDS[i+1]}" == "=" ]] && i=$((i + 1)); i=$((i + 1)) ;;
      -*|=) ;;
      *) case "$cmd" in
          "") cmd="$word" ;;
${subcommandCases.join('\n')}
          *) break ;;
        esac ;;
    esac
  done
  case "$cmd" in
${cases.join('\n')}
    *) opts="${commands.map((c) => c.name).join(' ')} ${globalFlags.join(' ')} -V --version" ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _rep rep
`;
}

function zshScript(commands: CommandSpec[], globals: OptionSpec[]): string {
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  const describe = (text: string) => text.replace(/[[\]\\]/g, '\\$&').replace(/:/g, '\\:');
  const specs = (options: OptionSpec[]) =>
    options.flatMap((o) => {
      const action = o.values === 'files' ? ':file:_files' : o.values ? `:value:(${o.values.join(' ')})` : o.takesValue ? ':value: ' : '';
      return o.flags.map((flag) => quote(`${flag}[${describe(o.description)}]${action}`));
    });
  const list = commands.map((c) => `    ${quote(`${c.name}:${describe(c.description)}`)}`).join('\n');
  const cases = commands.map((c) => {
    const words = c.argChoices ?? (c.names ? undefined : c.subcommands?.map((sub) => sub.name));
    const args = words ? ` '1:value:(${words.join(' ')})'` : c.names ? " '*::name:_rep_names'" : " '*::argument: '";
    // A command's own commands share its line: their options are offered with its own.
    const options = [...c.options, ...(c.subcommands ?? []).flatMap((sub) => sub.options)];
    return `        ${c.name}) _arguments -s $globals ${specs(options).join(' ')}${args} ;;`;
  });
  return `#compdef rep
# zsh completion for rep; add to ~/.zshrc:  source <(rep completion zsh)
# (or save as _rep in a directory on $fpath)
# Company names recorded in rep's history.
_rep_names() {
  local -a names
  names=("\${(@f)$(rep __complete history-names "$PREFIX" 2>/dev/null)}")
  compadd -a names
}
_rep() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  local -a commands globals
  commands=(
${list}
  )
  globals=(
${specs(globals)
  .map((spec) => `    ${spec}`)
  .join('\n')}
  )
  _arguments -C -s $globals '(-V --version)'{-V,--version}'[print the version]' '1: :->command' '*:: :->args'
  case $state in
    command) _describe -t commands 'rep command' commands ;;
    args)
      curcontext="\${curcontext%:*:*}:rep-$words[1]:"
      case $words[1] in
${cases.join('\n')}
        *) _arguments -s $globals ;;
      esac ;;
  esac
}
if [[ "$funcstack[1]" == "_rep" ]]; then _rep "$@"; else compdef _rep rep; fi
`;
}

function fishScript(commands: CommandSpec[], globals: OptionSpec[]): string {
  const quote = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;
  const option = (o: OptionSpec) => {
    const flags = o.flags.map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`));
    const values = o.values === 'files' ? ' -r -F' : o.values ? ` -x -a ${quote(o.values.join(' '))}` : o.takesValue ? ' -x' : '';
    return `${flags.join(' ')}${values} -d ${quote(o.description)}`;
  };
  const lines = ['# fish completion for rep; save as ~/.config/fish/completions/rep.fish', 'complete -c rep -f'];
  lines.push("complete -c rep -n __fish_use_subcommand -s V -l version -d 'print the version'");
  for (const o of globals) lines.push(`complete -c rep ${option(o)}`);
  for (const c of commands) {
    lines.push(`complete -c rep -n __fish_use_subcommand -a ${c.name} -d ${quote(c.description)}`);
    const after = `__fish_seen_subcommand_from ${c.name}`;
    const seen = `-n ${quote(after)}`;
    for (const o of c.options) lines.push(`complete -c rep ${seen} ${option(o)}`);
    if (c.argChoices) lines.push(`complete -c rep ${seen} -x -a ${quote(c.argChoices.join(' '))}`);
    if (c.names) lines.push(`complete -c rep ${seen} -f -a '(command -q rep; and rep __complete history-names (commandline -ct) 2>/dev/null)'`);
    for (const sub of c.subcommands ?? []) {
      lines.push(`complete -c rep -n ${quote(`${after}; and not __fish_seen_subcommand_from ${sub.name}`)} -a ${sub.name} -d ${quote(sub.description)}`);
      const inSub = `-n ${quote(`${after}; and __fish_seen_subcommand_from ${sub.name}`)}`;
      for (const o of sub.options) lines.push(`complete -c rep ${inSub} ${option(o)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function unique<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}
