// Commands rep suggests are meant to be pasted into a shell, so a name in them is quoted for POSIX
// shells: pasted, the suggestion sends the name literally ($, backticks, quotes and all).

/** Characters no POSIX shell (nor zsh) gives a meaning to; `=` and `~` are left out (zsh expands them at a word's start). */
const PLAIN = /^[\w@%+,./:-]+$/;

/**
 * One argument as a shell word: bare when every character is plain, else in single quotes with each
 * `'` written `'\''`. A leading `-` is not handled here: the caller puts `--` before such an argument.
 */
export function shellQuote(arg: string): string {
  if (PLAIN.test(arg)) return arg;
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * A command to suggest: `rep`, the flags that made this run's context (`--sandbox`, `--base-url URL`),
 * the command and its arguments, each quoted; `--` goes before the first argument that starts with `-`.
 */
export function suggestedCommand(contextArgs: readonly string[], [command, ...args]: readonly string[]): string {
  const dash = args.findIndex((arg) => arg.startsWith('-'));
  const rest = dash === -1 ? args : [...args.slice(0, dash), '--', ...args.slice(dash)];
  return ['rep', ...contextArgs, ...(command === undefined ? [] : [command]), ...rest].map((word) => (word === '--' ? word : shellQuote(word))).join(' ');
}

/** The flags of a run that a suggested command must keep to mean the same place: `--sandbox`, or `--base-url URL` from the command line. */
export function contextArgs(globals: { sandbox?: boolean; baseUrl?: string | undefined }): string[] {
  if (globals.sandbox) return ['--sandbox'];
  return globals.baseUrl ? ['--base-url', globals.baseUrl] : [];
}
