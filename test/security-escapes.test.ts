// Server text is data: a server whose bodies carry escape sequences, C1 controls, bidi overrides and
// NUL cannot drive the terminal through any output format or error message of the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultServer } from './helpers/fault-server.js';
import { useRep } from './helpers/cli.js';
import { HOSTILE, HOSTILE_BODIES, startHostileServer, TERMINAL_ACTIVE } from './helpers/servers.js';

let server: FaultServer;
const session = useRep();

beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

function rep(args: string[], env: Record<string, string> = {}) {
  return session.rep(args, { env: { REP_BASE_URL: server.baseUrl.href, REP_API_KEY: 'test-key-0123456789', ...env } });
}

const ESC = '\u001b';

describe('table output', () => {
  it.each([
    ['audit', ['audit', 'x']],
    ['search', ['search', 'x']],
    ['pulse', ['pulse']],
  ])('%s: no control byte, escape or bidi mark reaches stdout, even with colour forced', async (_name, args) => {
    for (const env of [{}, { FORCE_COLOR: '1' }] as Array<Record<string, string>>) {
      const result = await rep(['--format', 'table', ...args], env);
      expect(result.code).toBe(0);
      // Colour (when forced) is rep's own SGR; remove exactly those before looking for the server's bytes.
      const text = result.stdout.replace(/\u001b\[\d+(;\d+)*m/g, '');
      expect(text).not.toMatch(TERMINAL_ACTIVE);
      expect(text).not.toContain('RED\u001b');
      expect(text).not.toContain('pwned title\u0007');
      expect(result.stderr).not.toMatch(TERMINAL_ACTIVE);
    }
  });

  it('keeps the readable text of the hostile fields', async () => {
    const result = await rep(['--format', 'table', 'audit', 'x']);
    expect(result.stdout).toContain('Hostile');
    expect(result.stdout).toContain('RED');
  });
});

describe('csv output', () => {
  it('audit: cells are scrubbed and formula-guarded', async () => {
    const result = await rep(['--format', 'csv', 'audit', 'x']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    const cells = result.stdout.split('\n').flatMap((line) => line.split(','));
    for (const start of ['=', '+', '-', '@']) {
      // A cell may be quoted; what a spreadsheet reads starts after the quote.
      expect(cells.filter((cell) => cell.replace(/^"/, '').startsWith(start))).toEqual([]);
    }
    expect(result.stdout).toContain(`'=HYPERLINK`);
    expect(result.stdout).toContain(`'+1+1`);
    expect(result.stdout).toContain(`'-2+3`);
    expect(result.stdout).toContain(`'@SUM(A1)`);
  });

  it('search: cells are scrubbed and formula-guarded', async () => {
    const result = await rep(['--format', 'csv', 'search', 'x']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(result.stdout).toContain(`'=cmd`);
  });
});

describe('json output', () => {
  it.each([
    ['audit', ['audit', 'x'], HOSTILE_BODIES.audit],
    ['search', ['search', 'x'], HOSTILE_BODIES.search],
    ['pulse', ['pulse'], HOSTILE_BODIES.pulse],
  ])('%s: equal in meaning to the body, but with no raw ESC, C1 or bidi byte', async (_name, args, body) => {
    for (const format of ['json', 'ndjson']) {
      const result = await rep(['--format', format, ...args]);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain(ESC);
      expect(result.stdout).not.toMatch(TERMINAL_ACTIVE);
      if (format === 'json') expect(JSON.parse(result.stdout)).toEqual(body);
    }
  });
});

describe('error messages', () => {
  it('a 500 with a hostile message: one printable `rep:` line, no control bytes, even under --debug', async () => {
    for (const extra of [[], ['--debug']]) {
      const result = await rep([...extra, 'audit', 'fail']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^rep: the server failed \(500 Internal Server Error\): exploded RED click/m);
      expect(result.stderr).not.toMatch(TERMINAL_ACTIVE);
      expect(result.stderr).not.toContain(HOSTILE.title);
    }
  });

  it('a 502 with raw hostile bytes in a text body: nothing of it reaches stderr unscrubbed, even under --debug', async () => {
    for (const extra of [[], ['--debug']]) {
      const result = await rep([...extra, 'search', 'raw']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^rep: the server failed \(502 Bad Gateway\)/m);
      expect(result.stderr).not.toMatch(TERMINAL_ACTIVE);
    }
  });
});
