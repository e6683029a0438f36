// Parse apart from run: the program turns argv into one typed options object per command, and the
// global options into GlobalOptions, whichever side of the command they were given on.
import { describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../src/deps.js';
import { buildProgram, COMMAND_NAMES } from '../src/program.js';

interface Parsed {
  module: Record<string, unknown>;
  opts: unknown;
  globals: GlobalOptions;
}

/**
 * Parses `rep …args` and returns what the action would hand the command, without running it: with the
 * program main() builds for these args (only the command they name) and with the whole program, which
 * must agree.
 */
async function parse(args: string[]): Promise<Parsed> {
  const [forArgs, whole] = [await parseWith(args, args), await parseWith(args, undefined)];
  expect(forArgs.opts).toEqual(whole.opts);
  expect(forArgs.globals).toEqual(whole.globals);
  expect(forArgs.module).toBe(whole.module);
  return forArgs;
}

async function parseWith(args: string[], builtFor: string[] | undefined): Promise<Parsed> {
  let parsed: Parsed | undefined;
  const program = buildProgram(async (load, opts, globals) => {
    parsed = { module: (await load()) as unknown as Record<string, unknown>, opts, globals };
  }, builtFor);
  await program.exitOverride().parseAsync(['node', 'rep', ...args]);
  if (!parsed) throw new Error(`no command ran for ${args.join(' ')}`);
  return parsed;
}

describe('the program main() builds defines only the command that runs, where that is certain', () => {
  const built = (args: string[]) => buildProgram(async () => {}, args).commands.map((command) => command.name());

  it('defines every command, in the order of COMMAND_NAMES, when built for no args', () => {
    expect(buildProgram(async () => {}).commands.map((command) => command.name())).toEqual([...COMMAND_NAMES]);
    expect(built([])).toEqual([...COMMAND_NAMES]);
  });

  it.each([
    [['audit', 'Blue Bottle'], 'audit'],
    [['pulse', '--json'], 'pulse'],
    [['cache', 'clear'], 'cache'],
    [['-q', 'search', 'coffee'], 'search'],
    [['--format', 'csv', 'status'], 'status'],
    [['--format=csv', '--no-color', 'history', 'x'], 'history'],
    // a global option's value that happens to be a command's name is no command
    [['--base-url', 'audit', 'pulse'], 'pulse'],
    [['--max-age', '0', '--timeout', '5', 'audit', 'x'], 'audit'],
  ])('rep %j: only %s', (args, name) => {
    expect(built(args)).toEqual([name]);
  });

  it.each([
    [['help', 'audit']], // help shows another command's help
    [['--help']],
    [['-h', 'audit']],
    [['nosuch', 'x']], // commander suggests a similar command
    [['Pulse']],
    [['--bogus', 'pulse']], // an unknown option: its value, if any, is unknown
    [['--json=yes', 'pulse']], // a value for a flag that takes none
    [['--', 'pulse']],
    [['--format']],
  ])('rep %j: every command', (args) => {
    expect(built(args)).toEqual([...COMMAND_NAMES]);
  });
});

const DEFAULTS: GlobalOptions = {
  baseUrl: undefined,
  format: undefined,
  json: false,
  bom: false,
  color: true,
  timeout: 30,
  retries: 2,
  wait: false,
  maxWait: 3_600_000,
  maxAge: undefined,
  cache: true,
  debug: false,
  quiet: false,
  sandbox: false,
};

describe('each command gets its own options object', () => {
  it.each([
    [
      ['audit', 'Blue', 'Bottle'],
      { names: ['Blue', 'Bottle'], file: undefined, concurrency: 4, batch: false, csvSources: false, failUnder: undefined, failOnDrop: undefined },
    ],
    [
      ['audit', '-f', 'names.txt', '-c', '8', '--batch', '--csv-sources', '--fail-under', '60', '--fail-on-drop', '2.5'],
      { names: [], file: 'names.txt', concurrency: 8, batch: true, csvSources: true, failUnder: 60, failOnDrop: 2.5 },
    ],
    [['history', 'Blue', 'Bottle'], { name: 'Blue Bottle', since: undefined, market: false, chart: false }],
    [['history', 'Blue', '--since', '30d', '--chart'], { name: 'Blue', since: '30d', market: false, chart: true }],
    [['history', '--market'], { name: '', since: undefined, market: true, chart: false }],
    [['report', 'a', 'b', '--since', '30d'], { names: ['a', 'b'], file: undefined, since: '30d' }],
    [['report'], { names: [], file: undefined, since: '90d' }],
    [['cache', 'clear'], {}],
    [['search', 'coffee', 'shop'], { words: ['coffee', 'shop'] }],
    [['pulse'], {}],
    [['status'], {}],
    [['logout'], {}],
    [['login'], { verify: true }],
    [['login', '--no-verify'], { verify: false }],
    [['sandbox', '--port', '8080', '--limit', '5', '--window', '1m'], { port: 8080, host: '127.0.0.1', limit: 5, windowMs: 60_000 }],
    [['completion', 'zsh'], { shell: 'zsh' }],
  ])('rep %j', async (args, expected) => {
    const { module, opts, globals } = await parse(args);
    expect(opts).toEqual(expected);
    expect(typeof module.run).toBe('function');
    expect(globals).toEqual(DEFAULTS);
  });
});

describe('the global options', () => {
  it('are read once, given before or after the command', async () => {
    const flags = ['--base-url', 'https://x.example/api', '--json', '--bom', '--no-color', '--timeout', '2.5', '--retries', '0'];
    flags.push('--wait', '--max-wait', '15m', '--max-age', '1h', '--no-cache', '--debug', '-q', '--sandbox');
    const before = await parse([...flags, 'pulse']);
    const after = await parse(['pulse', ...flags]);
    const expected: GlobalOptions = {
      baseUrl: 'https://x.example/api',
      format: undefined,
      json: true,
      bom: true,
      color: false,
      timeout: 2.5,
      retries: 0,
      wait: true,
      maxWait: 900_000,
      maxAge: 3_600_000,
      cache: false,
      debug: true,
      quiet: true,
      sandbox: true,
    };
    expect(before.globals).toEqual(expected);
    expect(after.globals).toEqual(expected);
    expect((await parse(['--format', 'csv', 'status'])).globals.format).toBe('csv');
  });
});
