// `… | rep audit`: with no name and no --file, names are read from stdin when it is a pipe or a file,
// as `-` reads them. A terminal, /dev/null or a closed stdin is never waited on: no name is a usage
// error (exit 2), and so is piped input holding no name.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REP_BIN, runCli, useRep } from './helpers/cli.js';

const session = useRep();

/** `printf INPUT | rep …args` in sh: stdin a real pipe (Node's own 'pipe' is a socket, which rep does not wait on). */
function pipedInto(input: string, args: string[]) {
  const script = 'input=$1 node=$2 bin=$3; shift 3; printf %s "$input" | "$node" "$bin" --retries 0 "$@"';
  return runCli(['-c', script, 'sh', input, process.execPath, REP_BIN, ...args], { home: session.home(), bin: 'sh' });
}

const queries = (stdout: string) => (JSON.parse(stdout) as Array<{ query: string }>).map((record) => record.query);

describe.skipIf(process.platform === 'win32')('rep audit with no name reads piped names', () => {
  it('from a pipe: one record per name, in order, as with -', async () => {
    const result = await pipedInto('Кофейня Ромашка\n# a comment\nNo Such Company Inc\n', ['--sandbox', 'audit']);
    expect([result.code, queries(result.stdout)]).toEqual([3, ['Кофейня Ромашка', 'No Such Company Inc']]);
    expect(result.stderr).toContain('1 of 2');
  });

  it('from a file given as stdin', async () => {
    const file = join(session.home().dir, 'names.txt');
    writeFileSync(file, 'Кофейня Ромашка\n');
    const result = await session.spawn(['--sandbox', 'audit'], { stdinFrom: file });
    expect([result.code, queries(result.stdout)]).toEqual([0, ['Кофейня Ромашка']]);
  });

  it('an empty pipe is a usage error, not a batch of no names', async () => {
    const result = await pipedInto('', ['--sandbox', 'audit']);
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe('rep: no company names in the input\nhint: give one name a line; blank lines and lines starting with # are skipped\n');
  });

  it('stdin a socket (a parent that never closes it) is not waited on: missing name, exit 2', async () => {
    const result = await session.spawn(['--sandbox', 'audit'], { input: 'Кофейня Ромашка\n', keepStdinOpen: true });
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe(`rep: missing company name\nhint: ${HINT}\n`);
  });

  it('stdin /dev/null (a CI job with no input) is not read: missing name, exit 2', async () => {
    const result = await session.spawn(['--sandbox', 'audit'], { stdinFrom: '/dev/null' });
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe(`rep: missing company name\nhint: ${HINT}\n`);
  });

  it('stdin a terminal is not read: missing name, exit 2 (in-process)', async () => {
    const result = await session.rep(['--sandbox', 'audit'], { io: { stdinIsTTY: true, stdinPiped: false }, input: 'Кофейня Ромашка\n' });
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe(`rep: missing company name\nhint: ${HINT}\n`);
  });
});

const HINT = 'rep audit "Blue Bottle Coffee"; for a batch, --file PATH or names piped in: … | rep audit';

describe('rep audit - with names typed at a terminal', () => {
  it('audits each line as it is typed, before the next (in-process): Ctrl-C then ends it with what was written', async () => {
    const interrupt = new AbortController();
    const result = await session.rep(['--sandbox', 'audit', '-', '--format', 'ndjson'], {
      io: { stdinIsTTY: true, stdinPiped: false },
      input: 'Кофейня Ромашка\n',
      keepStdinOpen: true, // the next line is never typed: only the first one's record can come
      signal: interrupt.signal,
      onStdout: () => interrupt.abort(),
    });
    const audited = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { query: string }).query);
    expect([result.code, audited]).toEqual([130, ['Кофейня Ромашка']]);
    expect(result.stderr).toContain('reading company names from stdin, one a line (Ctrl-D to end)');
  });
});
