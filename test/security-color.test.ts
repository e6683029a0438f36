// Colour is rep's own choice, never the server's: `--no-color` > NO_COLOR > FORCE_COLOR > TERM=dumb >
// whether the stream is a terminal. Unit-tested on colorEnabled, then end to end with stdout a pipe.
import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../src/io.js';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

describe('colorEnabled', () => {
  const cases: Array<[string, boolean, { noColorFlag?: boolean; env: NodeJS.ProcessEnv }, boolean]> = [
    ['a terminal', true, { env: {} }, true],
    ['a pipe', false, { env: {} }, false],
    ['--no-color on a terminal', true, { noColorFlag: true, env: {} }, false],
    ['--no-color beats FORCE_COLOR', false, { noColorFlag: true, env: { FORCE_COLOR: '1' } }, false],
    ['NO_COLOR on a terminal', true, { env: { NO_COLOR: '1' } }, false],
    ['NO_COLOR beats FORCE_COLOR', true, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } }, false],
    ['an empty NO_COLOR is ignored', true, { env: { NO_COLOR: '' } }, true],
    ['FORCE_COLOR on a pipe', false, { env: { FORCE_COLOR: '1' } }, true],
    ['FORCE_COLOR beats TERM=dumb', false, { env: { FORCE_COLOR: '1', TERM: 'dumb' } }, true],
    ['FORCE_COLOR=0 turns it off on a terminal', true, { env: { FORCE_COLOR: '0' } }, false],
    ['FORCE_COLOR=false turns it off', true, { env: { FORCE_COLOR: 'false' } }, false],
    ['TERM=dumb on a terminal', true, { env: { TERM: 'dumb' } }, false],
    ['another TERM on a terminal', true, { env: { TERM: 'xterm-256color' } }, true],
  ];
  it.each(cases)('%s', (_name, isTTY, choice, expected) => {
    expect(colorEnabled(isTTY, choice)).toBe(expected);
  });
});

describe('colour through the CLI (stdout is a pipe)', () => {
  const AUDIT = ['audit', 'Кофейня Ромашка'];
  const sandbox = useSandbox();
  const session = useRep();

  /** stdout of `rep --format table <args>` against the sandbox. */
  async function table(args: string[], env: Record<string, string> = {}): Promise<string> {
    const result = await session.rep(['--format', 'table', ...args], { env: { REP_BASE_URL: sandbox.url, REP_API_KEY: sandbox.key, ...env } });
    expect(result.code).toBe(0);
    return result.stdout;
  }

  it('is off by default on a pipe', async () => {
    expect(await table(AUDIT)).not.toContain('\u001b[');
  });
  it('FORCE_COLOR=1 turns it on', async () => {
    expect(await table(AUDIT, { FORCE_COLOR: '1' })).toContain('\u001b[');
  });
  it('FORCE_COLOR=1 beats TERM=dumb', async () => {
    expect(await table(AUDIT, { FORCE_COLOR: '1', TERM: 'dumb' })).toContain('\u001b[');
  });
  it('TERM=dumb alone keeps it off', async () => {
    expect(await table(AUDIT, { TERM: 'dumb' })).not.toContain('\u001b[');
  });
  it('NO_COLOR beats FORCE_COLOR', async () => {
    expect(await table(AUDIT, { FORCE_COLOR: '1', NO_COLOR: '1' })).not.toContain('\u001b[');
  });
  it('--no-color beats FORCE_COLOR, before or after the command', async () => {
    expect(await table(['--no-color', ...AUDIT], { FORCE_COLOR: '1' })).not.toContain('\u001b[');
    expect(await table([...AUDIT, '--no-color'], { FORCE_COLOR: '1' })).not.toContain('\u001b[');
  });
});
