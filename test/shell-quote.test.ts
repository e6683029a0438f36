// Commands rep suggests are pasted into a shell: quoted for POSIX shells so the name arrives literally,
// with `--` before a name that starts with `-`. Proved by pasting the suggestion into `sh` and running
// the words it hands `rep` (in-process, against the sandbox).
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { searchWord } from '../src/api/errors.js';
import { bashCompletionWord, shellQuote, shellUnquote } from '../src/shell-quote.js';
import { useRep } from './helpers/cli.js';

const session = useRep();

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

describe('shellUnquote: the word being completed, as the shell will pass it', () => {
  it.each([
    ['Royal\\ B', 'Royal B'],
    ["'Royal B", 'Royal B'],
    ['"Royal B', 'Royal B'],
    ["'Royal B'", 'Royal B'],
    ['Кофейня\\ ', 'Кофейня '],
    ["Bob\\'s", "Bob's"],
    ["'Bob'\\''s B", "Bob's B"],
    ['"a\\"b\\$c\\d', 'a"b$c\\d'],
    ['trailing\\', 'trailing'],
    ['', ''],
  ])('%s → %j', (typed, text) => {
    expect(shellUnquote(typed)).toBe(text);
  });
});

describe('bashCompletionWord: what replaces the typed word so bash reads the name', () => {
  it.each([
    ['Ro', 'Royal Bakery', 'Royal\\ Bakery'],
    ['', "Bob's $(x)", "Bob\\'s\\ \\$\\(x\\)"],
    ['Ко', 'Кофейня Ромашка', 'Кофейня\\ Ромашка'],
    ["'Bo", "Bob's Bakery", "Bob'\\''s Bakery"],
    ['"Bo', 'Bob "$x" `y` \\', 'Bob \\"\\$x\\" \\`y\\` \\\\'],
  ])('%s + %j → %s', (typed, name, word) => {
    expect(bashCompletionWord(typed, name)).toBe(word);
  });
});

/** The words `sh` hands to `rep` when `command` is pasted into it. */
function wordsFromShell(command: string): Promise<string[]> {
  const script = `rep() { printf '%s\\0' "$@"; }\n${command}\n`;
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', script], { env: { PATH: process.env.PATH ?? '' } }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.split('\0').slice(0, -1));
    });
  });
}

describe.skipIf(process.platform === 'win32')('a suggested command, pasted into a shell, sends the name literally', () => {
  it('a name that starts with -: `--` before it, so it is not read as an option', async () => {
    const result = await session.rep(['--sandbox', 'audit', '--', '-Foo']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('rep: no company named "-Foo"\nhint: no company has exactly that name; search by one word: rep --sandbox search -- -Foo\n');
  });

  it.each(['-Foo', '$HOME', '`id`', '$(echo pwned)', 'Joe\'s "Diner"', 'a\\b c', '*', 'Кофейня $USER'])('%j', async (name) => {
    const result = await session.rep(['--sandbox', 'audit', '--', name]);
    expect(result.code).toBe(3);
    const suggestion = /^hint: .*: (rep --sandbox search .*)$/m.exec(result.stderr)?.[1];
    expect(suggestion).toBeDefined();
    const words = await wordsFromShell(suggestion!);
    const search = await session.rep(words);
    expect(JSON.parse(search.stdout).query).toBe(searchWord(name));
  });
});
