// `rep history NAME --chart` on a real pseudo-terminal (util-linux `script`, `stty cols`): the chart
// fills 40, 80 and 160 columns without wrapping, box drawing under a UTF-8 locale, ASCII under TERM=dumb.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyLines, trendPoints } from '../scripts/trend-fixture.mjs';
import { makeTempHome } from './helpers/cli.js';
import { hasScript, runOnTerminal } from './helpers/terminal.js';

describe.skipIf(!hasScript)('the chart on a terminal', () => {
  const home = makeTempHome();
  const history = join(home.dir, 'history.jsonl');
  writeFileSync(history, historyLines(trendPoints({ companies: 2, days: 120, baseUrl: 'http://127.0.0.1:9/api' })));
  const env = { REP_HISTORY_FILE: history, REP_BASE_URL: 'http://127.0.0.1:9/api', NO_COLOR: '1' };

  for (const columns of [40, 80, 160]) {
    it(`fits a terminal of ${columns} columns`, async () => {
      const { code, output } = await runOnTerminal(home, ['history', 'Blue Bottle Coffee', '--chart'], {
        columns,
        env: { ...env, LANG: 'C.UTF-8', TERM: 'xterm' },
      });
      expect(code).toBe(0);
      const lines = output.replace(/\r/g, '').trimEnd().split('\n');
      expect(Math.max(...lines.map((line) => [...line].length))).toBe(columns);
      expect(lines.filter((line) => /┤/.test(line))).toHaveLength(10);
      expect(output).toMatch(/[╭╮╰╯]/);
      expect(lines.at(-1)).toMatch(columns === 40 ? /── Blue Bottle… {3}·· market$/ : /── Blue Bottle Coffee {3}·· market$/);
      expect(output).not.toContain('\u001b[');
    });
  }

  it('is plain ASCII under TERM=dumb', async () => {
    const { code, output } = await runOnTerminal(home, ['history', 'Blue Bottle Coffee', '--chart'], {
      columns: 80,
      env: { ...env, LANG: 'C.UTF-8', TERM: 'dumb' },
    });
    expect(code).toBe(0);
    expect(output.replace(/\r/g, '')).toMatch(/^[\x20-\x7e\n]+$/);
    expect(output).toContain('-- Blue Bottle Coffee   .. market');
  });
});
