// Help as a user reaches it, end to end: each command's help lists the global options that apply to
// it and shows examples, `rep help [command]` is `--help`, and usage errors speak rep's own words.
import { describe, expect, it } from 'vitest';
import { useRep, type CliResult } from './helpers/cli.js';

const session = useRep();
const rep = (args: string[]) => session.rep(args, { env: { REP_BASE_URL: undefined, REP_API_KEY: undefined } });

/** The option flags listed under a help section's heading (`Options:`, `Global Options:`). */
function listed(help: string, heading: string): string[] {
  const section = help.split(/\n\n/).find((block) => block.startsWith(`${heading}\n`)) ?? '';
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1]!);
}

function examples(help: string): string[] {
  const section = help.split(/\n\n/).find((block) => block.startsWith('Examples:\n')) ?? '';
  return section.split('\n').slice(1);
}

/** One `rep:` line and one hint, exit 2, nothing on stdout. */
function expectUsage(result: CliResult, message: string, hint: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
  const [first, second, ...rest] = result.stderr.split('\n');
  expect(first).toBe(`rep: ${message}`);
  expect(second).toMatch(hint);
  expect(rest).toEqual(['']);
}

describe("each command's help", () => {
  const network = [
    '--base-url',
    '--json',
    '--format',
    '--bom',
    '--no-color',
    '--timeout',
    '--retries',
    '--wait',
    '--max-wait',
    '--max-age',
    '--no-cache',
    '--debug',
    '--quiet',
    '--profile',
    '--sandbox',
    '--store',
    '--fields',
    '--query',
  ];
  it.each([
    ['audit', network],
    ['search', network],
    ['pulse', network],
    ['login', ['--base-url', '--timeout', '--retries', '--debug', '--quiet', '--profile']],
    ['logout', ['--quiet', '--profile']],
    ['status', ['--base-url', '--json', '--format', '--bom', '--profile', '--sandbox', '--store']],
    ['sandbox', ['--quiet']],
    ['history', ['--base-url', '--json', '--format', '--no-color', '--profile', '--sandbox', '--store', '--fields', '--query']],
    ['report', ['--base-url', '--format', '--profile', '--sandbox', '--store']],
    ['completion', []],
  ])('rep %s --help lists the global options that apply to it, and two or three examples', async (command, globals) => {
    const result = await rep([command, '--help']);
    expect(result.code).toBe(0);
    expect(listed(result.stdout, 'Global Options:')).toEqual(globals);
    expect(listed(result.stdout, 'Global Options:')).not.toContain('--version');
    const shown = examples(result.stdout);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown.length).toBeLessThanOrEqual(3);
    for (const line of shown) expect(line).toMatch(new RegExp(`^ {2}.*\\brep (--\\S+ )*${command}\\b`));
  });

  it.each([
    [['--timeout', '0', 'pulse'], '--timeout'],
    [['login', '--base-url'], '--base-url'],
    [['search', 'x', '--format', 'xml'], '--format'],
    [['audit', 'x', '--max-wait', '1d'], '--max-wait'],
    [['search', 'login', '--max-wait', '1d'], '--max-wait'], // the command given, not a word that names another
  ])('the help a usage error points at (rep %j) lists the option', async (args, option) => {
    const failed = await rep(args);
    expect(failed.code).toBe(2);
    const pointed = /^hint: see `(rep [^`]+)`$/m.exec(failed.stderr)?.[1];
    expect(pointed).toBeDefined();
    const help = await rep(pointed!.split(' ').slice(1));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^ {2}(-\\w, )?${option}\\b`, 'm'));
  });
});

describe('rep help', () => {
  it.each([[[]], [['audit']], [['completion']]])('rep help %j prints what --help prints, exit 0', async (command) => {
    const [help, flag] = await Promise.all([rep(['help', ...command]), rep([...command, '--help'])]);
    expect(help).toEqual({ ...flag, code: 0 });
    expect(help.stdout).toMatch(/^Usage: rep /);
  });

  it('rep help with an unknown command is a usage error', async () => {
    const result = await rep(['help', 'nosuch']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rep: unknown command 'nosuch'\nhint: /);
  });
});

describe('usage errors in rep words', () => {
  it.each([
    [['-v'], "unknown option '-v' (did you mean -V for the version, or --debug?)", 'rep'],
    [['pulse', '-v'], "unknown option '-v' (did you mean -V for the version, or --debug?)", 'rep pulse'],
    [['--verbose', 'pulse'], "unknown option '--verbose' (did you mean --debug?)", 'rep pulse'],
    [['search'], 'missing search text', 'rep search'],
    [['completion'], 'missing shell: expected one of bash, zsh, fish', 'rep completion'],
    [['pulse', 'extra'], 'pulse takes no arguments, but got 1', 'rep pulse'],
    [['completion', 'bash', 'zsh'], 'completion takes 1 argument, but got 2', 'rep completion'],
  ])('rep %j', async (args, message, help) => {
    expectUsage(await rep(args), message, new RegExp(`^hint: see \`${help} --help\`$`));
  });
});
