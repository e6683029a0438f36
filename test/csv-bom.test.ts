// CSV that a spreadsheet opens right: a UTF-8 byte-order mark on request (`--bom`, REP_CSV_BOM=1), so
// Excel on Windows reads Cyrillic and CJK names as UTF-8; never by default (it would break cut, awk, jq).
import { describe, expect, it } from 'vitest';
import { testIO } from '../src/io.js';
import { createBatchWriter } from '../src/output/batch.js';
import { writeResult } from '../src/output/render.js';
import { useRep } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

const BOM = '\uFEFF';
const sandbox = useSandbox();
const session = useRep();

function rep(args: string[], env: Record<string, string> = {}) {
  return session.rep(args, { env: { REP_BASE_URL: sandbox.url, REP_API_KEY: sandbox.key, ...env } });
}

describe('renderers', () => {
  it('csv starts with one BOM when asked, and only csv', async () => {
    for (const bom of [true, false]) {
      const io = testIO();
      await writeResult(io, 'audit', { name: 'Кофейня', score: 1 }, 'csv', { bom });
      expect(io.stdoutText()).toBe(`${bom ? BOM : ''}company,score,source,rating,reviews\nКофейня,1,,,\n`);
    }
    for (const format of ['json', 'ndjson', 'table'] as const) {
      const io = testIO();
      await writeResult(io, 'pulse', { index: 1 }, format, { bom: true });
      expect(io.stdoutText()).not.toContain(BOM);
    }
  });

  it('a batch writes it once, before the header, even with no records', async () => {
    for (const records of [
      [
        { query: 'a', result: { score: 1 } },
        { query: 'b', result: { score: 2 } },
      ],
      [],
    ]) {
      const io = testIO();
      const writer = createBatchWriter(io, 'csv', { bom: true });
      for (const record of records) writer.write(record);
      await writer.end();
      expect(io.stdoutText().startsWith(`${BOM}query,`)).toBe(true);
      expect(io.stdoutText().split(BOM)).toHaveLength(2);
    }
  });
});

describe('rep … --format csv', () => {
  it('has no BOM by default, so the first field is clean for cut, awk and jq', async () => {
    const result = await rep(['--format', 'csv', 'audit', 'Кофейня Ромашка']);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('company,score,')).toBe(true);
  });

  it.each([
    ['--bom', ['--bom'], {}],
    ['REP_CSV_BOM=1', [], { REP_CSV_BOM: '1' }],
  ])('starts with a BOM under %s: a single audit, a batch, status', async (_how, flag, env) => {
    for (const args of [['audit', 'Кофейня Ромашка'], ['audit', 'Кофейня Ромашка', 'Blue Bottle'], ['status']]) {
      const result = await rep([...flag, '--format', 'csv', ...args], env);
      expect(result.stdout.startsWith(BOM), args.join(' ')).toBe(true);
      expect(result.stdout.slice(1)).toMatch(/^(company|query|profile),/);
    }
  });

  it('REP_CSV_BOM=0 and other formats write none', async () => {
    expect((await rep(['--format', 'csv', 'pulse'], { REP_CSV_BOM: '0' })).stdout.startsWith(BOM)).toBe(false);
    expect((await rep(['--bom', '--format', 'json', 'pulse'])).stdout.startsWith('{')).toBe(true);
  });
});
