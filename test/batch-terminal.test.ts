// A batch as a person sees it on a terminal (util-linux `script`, skipped where it is missing): the
// summary fits the terminal's width, and a progress line shows while names are being audited.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../src/output/text-width.js';
import { useRep } from './helpers/cli.js';
import { serveCompanyAudits, type CompanyAudits } from './helpers/companies.js';
import { hasScript, runOnTerminal } from './helpers/terminal.js';

const fixture = useRep();

/** This test's audit server, answering `names`, with `hold`ing ones held until released. */
async function serve(names: string[], hold: string[] = []): Promise<CompanyAudits & { baseUrl: string }> {
  const server = await fixture.server();
  return { ...serveCompanyAudits(server, { companies: names, hold }), baseUrl: server.baseUrl.href };
}

/** What the terminal shows, line by line, without cursor and colour codes. */
function screenLines(output: string): string[] {
  return output
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .map((line) => line.slice(line.lastIndexOf('\r') + 1));
}

// Sandbox companies with long Latin and Cyrillic names, and one name that does not exist.
const FOUND = ['Lighthouse & Meadow Animal Hospital', 'Автомастерская Матрёшка', 'Sparrow & Stone Animal Hospital'];
const NAMES = [...FOUND, 'Nobody At All'];

describe.skipIf(!hasScript)('the batch summary on a terminal', () => {
  it.each([40, 60, 80, 100])('fits %i columns, never cuts a score, and gives each name one column', async (columns) => {
    const result = await runOnTerminal(fixture.home(), ['--sandbox', '--no-color', 'audit', ...NAMES], { columns });
    expect(result.code).toBe(3);
    const lines = screenLines(result.output);
    // The table and the summary fit; the error's hint is prose, which the terminal wraps.
    for (const line of lines.filter((text) => !text.startsWith('hint: '))) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    const scores = result.output.match(/\d+(\.\d+)? \/ 100(?!\d)/g) ?? [];
    expect(scores).toHaveLength(FOUND.length);
    expect(result.output).not.toMatch(/\/ 1…|\d…/);
    expect(result.output).not.toMatch(/Query[\s\S]*Company|Company[\s\S]*Query/);
    expect(result.output).toContain('not found');
    if (columns >= 80) for (const name of NAMES) expect(result.output.split(name), name).toHaveLength(2); // whole, and once
  });
});

describe.skipIf(!hasScript)('batch progress', () => {
  it('shows how many names are done on stderr while the batch runs', async () => {
    const names = ['Alpha', 'Beta', 'Gamma'];
    const server = await serve(names, ['Gamma']);
    // Gamma's answer is held until the progress line shows the other two done: no progress, no answer.
    const result = await runOnTerminal(fixture.home(), ['--no-color', 'audit', ...names], {
      columns: 80,
      env: { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl, TERM: 'xterm' },
      answers: [['2 of 3 names done', () => server.release('Gamma')]],
    });
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/auditing: 2 of 3 names done[\s\S]*Gamma/);
  });

  it('counts every name given as arguments from the start, not only those read so far', async () => {
    const names = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta', 'Eta', 'Theta'];
    const server = await serve(names, names);
    const result = await runOnTerminal(fixture.home(), ['--no-color', 'audit', ...names], {
      columns: 80,
      env: { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl, TERM: 'xterm' },
      answers: [
        [
          '0 of 8 names done',
          () => {
            for (const name of names) server.release(name);
          },
        ],
      ],
    });
    expect(result.code).toBe(0);
    expect(result.output).not.toContain('+ names');
  });

  it('shows nothing under --quiet, or when stderr is not a terminal', async () => {
    const names = ['Alpha', 'Beta'];
    const server = await serve(names);
    const env = { REP_API_KEY: 'test-key', REP_BASE_URL: server.baseUrl, TERM: 'xterm' };
    const quiet = await runOnTerminal(fixture.home(), ['--quiet', '--no-color', 'audit', ...names], { columns: 80, env });
    expect(quiet.code).toBe(0);
    expect(quiet.output).not.toContain('names done');
    const piped = await fixture.rep(['--format', 'table', 'audit', ...names], { env });
    expect(piped.stderr).toBe('2 names: 2 audited (2 from the cache)\n'); // the quiet run kept both answers
  });
});
