// The completion scripts work in the shells they are for: bash is run for real (COMP_WORDS/_rep),
// zsh is syntax-checked with its name completer run, and fish run for real when those shells are installed (.ci/run installs them).
// What Tab inserts is proved in each shell on a terminal (tmux).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHistory, recordAnswers } from './helpers/history.js';
import { lastPrompt, hasTmux, lineChanged, type Shell, startShell } from './helpers/shell-session.js';
import { makeTempHome, REP_BIN, runInProcess, type TempHome } from './helpers/cli.js';

let home: TempHome;
/** The history folder with recorded names (beforeAll). */
let recorded: string;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  home = makeTempHome();
  recorded = await historyFileWithNames(home);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runInProcess(['completion', shell], { home });
    expect([result.code, result.stderr]).toEqual([0, '']);
    scripts[shell] = join(home.dir, `rep.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
});
afterAll(() => home.cleanup());

// Under CI=true a missing shell fails its tests instead of skipping them: CI must run them.
const installed = (shell: string) => process.env.CI === 'true' || spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** A directory with a `rep` that runs this checkout, for PATH: the scripts ask `rep __complete` for names. */
function repOnPath(): string {
  const dir = join(home.dir, 'bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rep'), `#!/bin/sh\nexec "${process.execPath}" "${REP_BIN}" "$@"\n`, { mode: 0o755 });
  return dir;
}

/** The environment the shells run in: the temp home's, with a recorded history and `rep` on PATH. */
function shellEnv(): NodeJS.ProcessEnv {
  return { ...home.env, PATH: `${repOnPath()}:${process.env.PATH ?? ''}`, REP_HISTORY_FILE: recorded };
}

/** A history with recorded names (written the way an audit records them), one of them a would-be option. */
async function historyFileWithNames(home: TempHome): Promise<string> {
  const file = join(home.dir, 'history');
  const history = localHistory({ REP_HISTORY_FILE: file }, home.dir);
  if ((await history.names('blue bottle')).length === 0) {
    const at = Date.parse('2026-11-01T08:00:00Z');
    await recordAnswers(history, 'https://api.example.test/api', [
      { query: 'Blue Bottle Coffee', at, answer: { name: 'Blue Bottle Coffee', score: 80, sources: [] } },
      { query: 'bakery', at, answer: { name: "Bob's Bakery", score: 70, sources: [] } },
      { query: 'Royal Bakery', at, answer: { name: 'Royal Bakery', score: 60, sources: [] } },
      { query: 'Кофейня Ромашка', at, answer: { name: 'Кофейня Ромашка', score: 4, sources: [] } },
      { query: '--base-url=http://127.0.0.1:18061/api', at, answer: { score: 1, sources: [] } },
    ]);
  }
  return file;
}

/** What bash offers for a command line; words as bash would split them, the last one being completed. */
function complete(...words: string[]): string[] {
  const array = words.map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  const script = `source "$1"; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _rep; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const run = spawnSync('bash', ['-c', script, 'bash', scripts.bash as string], { encoding: 'utf8', cwd: home.dir, env: shellEnv() });
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter(Boolean);
}

describe('rep completion bash', () => {
  it('is valid bash that registers _rep for rep', () => {
    const run = spawnSync('bash', ['-c', 'source "$1" && complete -p rep', 'bash', scripts.bash as string], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('complete -o default -F _rep rep');
  });

  it('completes commands', () => {
    expect(complete('rep', 'au')).toEqual(['audit']);
    expect(complete('rep', 's')).toEqual(['status', 'search', 'sandbox']);
    expect(complete('rep', '')).toEqual(expect.arrayContaining(['login', 'logout', 'status', 'audit', 'search', 'pulse', 'sandbox', 'completion']));
  });

  it('completes the options of the command being typed, with the global ones', () => {
    expect(complete('rep', 'audit', '--f')).toEqual(['--file', '--fail-under', '--fail-on-drop', '--format', '--fields']);
    expect(complete('rep', 'audit', '--c')).toEqual(['--concurrency', '--csv-sources']);
    expect(complete('rep', 'sandbox', '--')).toEqual(expect.arrayContaining(['--port', '--host', '--limit', '--window', '--sandbox', '--help']));
    expect(complete('rep', 'search', '--f')).toEqual(['--format', '--fields']);
    expect(complete('rep', 'login', '--no-')).toEqual(['--no-verify', '--no-color', '--no-cache']);
  });

  it('skips option values when finding the command', () => {
    expect(complete('rep', '--base-url', 'https://x.example/api', 'audit', '--con')).toEqual(['--concurrency']);
    expect(complete('rep', '--format', 'json', 'audit', '--fi')).toEqual(['--file', '--fields']);
    expect(complete('rep', '--timeout', '5', 'pu')).toEqual(['pulse']);
  });

  it('completes --format values, also after --format=', () => {
    expect(complete('rep', '--format', '')).toEqual(['table', 'json', 'ndjson', 'csv', 'markdown']);
    expect(complete('rep', 'audit', '--format', 'nd')).toEqual(['ndjson']);
    expect(complete('rep', '--format', '=', 'c')).toEqual(['csv']);
    expect(complete('rep', '--format', '=')).toEqual(['table', 'json', 'ndjson', 'csv', 'markdown']);
  });

  it('offers nothing to pick after an option that takes a free value', () => {
    expect(complete('rep', '--timeout', '')).toEqual([]);
    expect(complete('rep', 'audit', '--concurrency', '')).toEqual([]);
  });

  it('offers the names recorded in the history to rep audit and rep history, each as one word', () => {
    expect(complete('rep', 'audit', 'Bl')).toEqual(['Blue\\ Bottle\\ Coffee']);
    expect(complete('rep', 'history', 'b')).toEqual(['bakery', 'Blue\\ Bottle\\ Coffee', "Bob\\'s\\ Bakery"]);
    expect(complete('rep', 'history', '--s')).toEqual(['--since', '--sandbox', '--store']);
  });

  it('completes a multi-word name typed escaped or in quotes (the word as bash hands it over)', () => {
    expect(complete('rep', 'audit', 'Кофейня\\ ')).toEqual(['Кофейня\\ Ромашка']);
    expect(complete('rep', 'audit', 'Royal\\ B')).toEqual(['Royal\\ Bakery']);
    // After an opening quote bash replaces only what follows it, and closes the quote itself.
    expect(complete('rep', 'audit', "'Royal B")).toEqual(['Royal Bakery']);
    expect(complete('rep', 'history', '"Кофейня')).toEqual(['Кофейня Ромашка']);
    expect(complete('rep', 'audit', "'Bob")).toEqual(["Bob'\\''s Bakery"]);
  });

  it('never offers a recorded name that starts with - (it would run as an option)', () => {
    expect(complete('rep', 'audit', '')).toEqual(['bakery', 'Blue\\ Bottle\\ Coffee', "Bob\\'s\\ Bakery", 'Royal\\ Bakery', 'Кофейня\\ Ромашка']);
    expect(complete('rep', 'audit', '--base')).toEqual(['--base-url']);
  });

  it('completes the subcommands of cache and the commands rep help explains', () => {
    expect(complete('rep', 'cache', '')).toEqual(['clear']);
    expect(complete('rep', '--quiet', 'cache', 'cl')).toEqual(['clear']);
    expect(complete('rep', 'cache', 'clear', '--qui')).toEqual(['--quiet']);
    expect(complete('rep', 'cache', 'clear', '')).not.toContain('clear');
    expect(complete('rep', 'help', 'au')).toEqual(['audit']);
    expect(complete('rep', 'help', '')).toEqual(expect.arrayContaining(['login', 'audit', 'history', 'cache', 'completion']));
  });

  it('completes the commands, options and help topics of issue 33 (api, version, --fields, --query)', () => {
    expect(complete('rep', 'ap')).toEqual(['api']);
    expect(complete('rep', 've')).toEqual(['version']);
    expect(complete('rep', 'audit', '--fi')).toEqual(expect.arrayContaining(['--fields', '--file']));
    expect(complete('rep', '--qu')).toEqual(['--quiet', '--query']);
    expect(complete('rep', 'help', 'f')).toEqual(['fields', 'formats']);
    expect(complete('rep', 'help', '')).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'fields', 'formats', 'api', 'version']));
    expect(complete('rep', 'cache', '')).toEqual(['clear']);
  });

  it('completes files after --file and shells after completion', () => {
    writeFileSync(join(home.dir, 'names.txt'), 'Alpha\n');
    expect(complete('rep', 'audit', '--file', 'nam')).toEqual(['names.txt']);
    expect(complete('rep', 'audit', '-f', 'nam')).toEqual(['names.txt']);
    expect(complete('rep', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete('rep', 'completion', '--h')).toEqual(['--help']);
  });
});

describe('rep completion zsh and fish', () => {
  it('name every command and the --format values', () => {
    for (const shell of ['zsh', 'fish']) {
      const text = spawnSync('cat', [scripts[shell] as string], { encoding: 'utf8' }).stdout;
      for (const command of ['login', 'logout', 'status', 'audit', 'search', 'pulse', 'sandbox', 'completion']) expect(text).toContain(command);
      expect(text).toContain('table json ndjson csv markdown');
      for (const word of ['api', 'version', '--fields', '--query', 'exit-codes', 'formats']) expect(text).toContain(word.replace(/^--/, ''));
      expect(text).toContain('bash zsh fish');
    }
  });

  it.skipIf(!installed('zsh'))('zsh: the script parses (zsh -n)', () => {
    const run = spawnSync('zsh', ['-n', scripts.zsh as string], { encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it.skipIf(!installed('zsh'))('zsh: the name completer offers recorded names whole, by prefix (compadd stubbed to print)', () => {
    const names = (prefix: string) => {
      // Outside a completion widget: compdef and compadd are stand-ins; _rep_names is the script's own.
      const script = `compdef() { :; }; compadd() { [[ $1 == -a ]] && printf '%s\\0' "\${(@P)2}"; }; source "$1"; PREFIX="$2"; _rep_names`;
      const run = spawnSync('zsh', ['-f', '-c', script, 'zsh', scripts.zsh as string, prefix], { encoding: 'utf8', cwd: home.dir, env: shellEnv() });
      expect(run.stderr).toBe('');
      return run.stdout.split('\0').filter(Boolean); // one NUL-ended entry per candidate compadd was given
    };
    expect(names('Bl')).toEqual(['Blue Bottle Coffee']);
    expect(names('b')).toEqual(expect.arrayContaining(['bakery', "Bob's Bakery", 'Blue Bottle Coffee']));
  });

  it.skipIf(!installed('fish'))('fish: the script parses (fish -n)', () => {
    const run = spawnSync('fish', ['-n', scripts.fish as string], { encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it.skipIf(!installed('fish'))('fish: completes commands, options per command and --format values', () => {
    const offers = (line: string) => {
      const script = `source $argv[1]; complete -C ${JSON.stringify(line)}`;
      const run = spawnSync('fish', ['--no-config', '-c', script, scripts.fish as string], { encoding: 'utf8', cwd: home.dir, env: shellEnv() });
      expect(run.stderr).toBe('');
      return run.stdout
        .split('\n')
        .filter(Boolean)
        .map((entry) => entry.split('\t')[0]);
    };
    expect(offers('rep au')).toEqual(['audit']);
    expect(offers('rep audit --f')).toEqual(expect.arrayContaining(['--file', '--format']));
    expect(offers('rep --format ')).toEqual(['csv', 'json', 'markdown', 'ndjson', 'table']);
    expect(offers('rep completion ')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    expect(offers('rep history Bl')).toEqual(['Blue Bottle Coffee']);
    expect(offers('rep cache ')).toEqual(['clear']);
    expect(offers('rep cache clear --qui')).toEqual(['--quiet']);
    expect(offers('rep help au')).toEqual(['audit']);
    expect(offers('rep help f')).toEqual(['fields', 'formats']);
    expect(offers('rep ap')).toEqual(['api']);
    expect(offers('rep --fie')).toEqual(['--fields']);
    expect(offers('rep search --que')).toEqual(['--query']);
  });
});

describe.skipIf(!hasTmux)('on a terminal, Tab completes a multi-word name whole, and never to an option', () => {
  const cases: Array<[line: string, shows: string]> = [
    ["rep audit 'Royal Ba", "rep audit 'Royal Bakery'"],
    ['rep audit "Royal Ba', 'rep audit "Royal Bakery"'],
    ['rep audit Royal\\ Ba', 'rep audit Royal\\ Bakery'],
    ['rep history Кофейня\\ Р', 'rep history Кофейня\\ Ромашка'],
    ["rep audit 'Bob", "rep audit 'Bob'\\''s Bakery'"],
  ];
  it.each(['bash', 'zsh', 'fish'] as Shell[])('%s', async (shell) => {
    if (!installed(shell)) return;
    const session = await startShell(shell, scripts[shell] as string, home.dir, shellEnv());
    try {
      for (const [line, shows] of cases) {
        const screen = await session.complete(line, lineChanged(line));
        // fish writes a name with a quote in it its own way: escaped rather than closed and reopened.
        expect(lastPrompt(screen)).toBe(`> ${shell === 'fish' && shows.includes("'\\''") ? "rep audit 'Bob\\'s Bakery'" : shows}`);
      }
      for (const [line, shows] of [
        ['rep cache ', 'rep cache clear'],
        ['rep help hi', 'rep help history'],
      ]) {
        const screen = await session.complete(line as string, lineChanged(line as string));
        expect(lastPrompt(screen)).toBe(`> ${shows}`);
      }
      // Every recorded name is listed but the would-be option: zsh sorted it first, and Enter ran it.
      // (bash lists the candidates at the second Tab.)
      const listed = await session.complete('rep audit ', (text) => text.includes('Bakery'), shell === 'bash' ? 2 : 1);
      expect(listed).toContain('Blue');
      expect(listed).not.toContain('base-url');
    } finally {
      session.close();
    }
  });
});
