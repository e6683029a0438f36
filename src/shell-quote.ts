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
