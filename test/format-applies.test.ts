// A flag a command cannot honour is refused, not silently ignored: the output formats go only to
// commands that print data (`rep sandbox --format json` printed key=value lines, exit 0).
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';

const session = useRep();

describe('--format, --json and --bom on a command that prints no data: exit 2', () => {
  it.each([
    [['sandbox', '--format', 'json'], 'sandbox', '--format'],
    [['--json', 'sandbox'], 'sandbox', '--json'],
    [['cache', 'clear', '--format', 'json'], 'cache clear', '--format'],
    [['--bom', 'cache', 'clear'], 'cache clear', '--bom'],
    [['logout', '--json'], 'logout', '--json'],
    [['login', '--no-verify', '--format', 'csv'], 'login', '--format'],
    [['completion', 'bash', '--format', 'json'], 'completion', '--format'],
  ])('rep %j', async (args, command, flag) => {
    const result = await session.rep(args, { input: 'k\n' });
    expect([result.code, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toBe(`rep: ${flag} does not apply to rep ${command}: it prints no data to format\nhint: drop ${flag}; see rep ${command} --help\n`);
  });

  it('commands that print data still take them', async () => {
    const status = await session.rep(['--sandbox', 'status', '--format', 'json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ base_url: expect.any(String) });
  });
});
