// Parse apart from run: the program turns argv into one typed options object per command, and the
// global options into GlobalOptions, whichever side of the command they were given on.
import { describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../src/deps.js';
import { buildProgram } from '../src/program.js';

interface Parsed {
  module: Record<string, unknown>;
  opts: unknown;
  globals: GlobalOptions;
}

/** Parses `rep …args` and returns what the action would hand the command, without running it. */
async function parse(args: string[]): Promise<Parsed> {
  let parsed: Parsed | undefined;
  const program = buildProgram(async (load, opts, globals) => {
    parsed = { module: (await load()) as unknown as Record<string, unknown>, opts, globals };
  });
  await program.exitOverride().parseAsync(['node', 'rep', ...args]);
  if (!parsed) throw new Error(`no command ran for ${args.join(' ')}`);
  return parsed;
}

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
    [['history', 'Blue', 'Bottle'], { name: 'Blue Bottle', since: undefined }],
    [['history', 'Blue', '--since', '30d'], { name: 'Blue', since: '30d' }],
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
