// Values users give rep, read as they were meant or refused: never silently read as something else.
// Each case was once misread (a number from an empty or hex value); driven through main().
import { describe, expect, it } from 'vitest';
import { makeTempHome, runInProcess } from './helpers/cli.js';

/** Exit code and the first line of stderr. */
async function refusal(args: string[], env: Record<string, string> = {}) {
  const home = makeTempHome();
  const result = await runInProcess(args, { home, env });
  return [result.code, result.stderr.split('\n')[0], result.stdout];
}

describe('whole numbers and thresholds are plain decimals', () => {
  it('an empty --retries is refused, not read as 0 retries', async () => {
    expect(await refusal(['--sandbox', '--retries', '', 'pulse'])).toEqual([2, "rep: invalid value '' for --retries: expected a whole number (0 or more)", '']);
    expect(await refusal(['--sandbox', '--retries', ' ', 'pulse'])).toEqual([
      2,
      "rep: invalid value ' ' for --retries: expected a whole number (0 or more)",
      '',
    ]);
  });

  it('hex, binary and exponent forms are refused, not read as another number', async () => {
    expect(await refusal(['--sandbox', '--retries', '0x3', 'pulse'])).toEqual([
      2,
      "rep: invalid value '0x3' for --retries: expected a whole number (0 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'a', 'b', '--concurrency', '1e1'])).toEqual([
      2,
      "rep: invalid value '1e1' for --concurrency: expected a whole number (1 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'Royal Bear Coffee', '--fail-under', '0x3C'])).toEqual([
      2,
      "rep: invalid value '0x3C' for --fail-under: expected a number such as 60 or 4.5 (0 or more)",
      '',
    ]);
    expect(await refusal(['--sandbox', 'audit', 'Royal Bear Coffee', '--fail-on-drop', '0b101'])).toEqual([
      2,
      "rep: invalid value '0b101' for --fail-on-drop: expected a number such as 60 or 4.5 (0 or more)",
      '',
    ]);
  });

  it('plain decimals still pass', async () => {
    const home = makeTempHome();
    const result = await runInProcess(['--sandbox', '--retries', ' 1 ', 'audit', 'Royal Bear Coffee', '--fail-under', '10.5', '--concurrency', '2'], { home });
    expect([result.code, result.stderr]).toEqual([0, '']);
  });
});
