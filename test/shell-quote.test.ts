// Commands rep suggests are pasted into a shell: quoted for POSIX shells so the name arrives literally,
// with `--` before a name that starts with `-`. Proved by pasting the suggestion into `sh`.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../src/shell-quote.js';
import { REP_BIN, useTempHome } from './helpers/cli.js';

const session = useTempHome();

describe('shellQuote', () => {
  it.each([
    ['Acme', 'Acme'],
    ['-Foo', '-Foo'],
    ['Blue Bottle Coffee', "'Blue Bottle Coffee'"],
    ['$HOME', "'$HOME'"],
    ['`id`', "'`id`'"],
    ["Joe's", "'Joe'\\''s'"],
    ['Кофейня Ромашка', "'Кофейня Ромашка'"],
    ['=cmd', "'=cmd'"],
    ['~root', "'~root'"],
    ['', "''"],
  ])('%j → %s', (arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });
});

/** Runs `command` in sh with `rep` standing for `node bin/rep.js --sandbox`, in the test's home. */
function pasteIntoShell(command: string): Promise<string> {
  const script = `rep() { "$REP_NODE" "$REP_BIN" --sandbox "$@"; }\n${command}\n`;
  const env = { PATH: process.env.PATH ?? '', ...session.home().env, REP_NODE: process.execPath, REP_BIN };
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', script], { env }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

describe.skipIf(process.platform === 'win32')('a suggested command, pasted into a shell, sends the name literally', () => {
  it('a name that starts with -: `--` before it, so it is not read as an option', async () => {
    const result = await session.rep(['--sandbox', 'audit', '--', '-Foo']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('rep: no company named "-Foo"\nhint: try: rep search -- -Foo\n');
  });

  it.each(['-Foo', '$HOME', '`id`', '$(echo pwned)', "Joe's \"Diner\"", 'a\\b c', '*', 'Кофейня $USER'])('%j', async (name) => {
    const result = await session.rep(['--sandbox', 'audit', '--', name]);
    expect(result.code).toBe(3);
    const suggestion = /^hint: try: (rep search .*)$/m.exec(result.stderr)?.[1];
    expect(suggestion).toBeDefined();
    expect(JSON.parse(await pasteIntoShell(suggestion!)).query).toBe(name);
  });
});
