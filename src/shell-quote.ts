// POSIX shell quoting for commands rep suggests, so a pasted suggestion sends the text literally.
/** One argument, single-quoted unless it is plainly safe; embedded single quotes become '\''. */
export function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
