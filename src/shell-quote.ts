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

/** The flags of a run that a suggested command must keep to mean the same place: `--sandbox`, or `--profile NAME` and `--base-url URL` from the command line. */
export function contextArgs(globals: { sandbox?: boolean; baseUrl?: string | undefined; profile?: string | undefined }): string[] {
  if (globals.sandbox) return ['--sandbox'];
  return [...(globals.profile ? ['--profile', globals.profile] : []), ...(globals.baseUrl ? ['--base-url', globals.baseUrl] : [])];
}

/**
 * The text of a word as the shell will pass it, from the word as typed and still being typed (what
 * completion sees): `Royal\ B`, `'Royal B` and `"Royal B` are all `Royal B`. Quotes may be unclosed;
 * a trailing lone backslash is dropped. `$'…'` and expansions are taken literally.
 */
export function shellUnquote(typed: string): string {
  let text = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < typed.length; i++) {
    const char = typed[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else text += char;
    } else if (char === '\\') {
      const next = typed[i + 1];
      if (next === undefined) break;
      // Inside double quotes a backslash escapes only these; before any other character it stays.
      if (quote === '"' && !'$`"\\\n'.includes(next)) text += char;
      text += next;
      i++;
    } else if (char === quote) quote = undefined;
    else if (quote === undefined && (char === "'" || char === '"')) quote = char;
    else text += char;
  }
  return text;
}

/**
 * What bash's completion puts in place of the word typed so far, so that the shell reads `text`:
 * after an opening quote bash replaces what follows it and closes the quote itself; otherwise every
 * character a shell gives a meaning to is escaped with a backslash.
 */
export function bashCompletionWord(typed: string, text: string): string {
  if (typed.startsWith("'")) return text.replaceAll("'", "'\\''");
  if (typed.startsWith('"')) return text.replace(/[$`"\\]/g, '\\$&');
  return text.replace(/[^\w@%+,./:\u0080-\uffff-]/g, '\\$&');
}
