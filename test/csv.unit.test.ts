// CSV cells as a spreadsheet reads them (src/output/csv.ts): empty for nothing, numbers as numbers,
// text scrubbed, quoted where needed, and never run as a formula.
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../src/errors.js';
import { testIO } from '../src/io.js';
import { columnsOf, csvBom } from '../src/output/csv.js';

// The module loaded anew inside a test: its patterns (formula starts, separated parts, quoting, plain
// numbers) are made as it loads, and the mutation run ties them only to the tests that load it.
const fresh = async () => {
  vi.resetModules();
  return await import('../src/output/csv.js');
};

describe('csvCell', () => {
  it('writes nothing for null and undefined, and booleans as words', async () => {
    const { csvRow } = await fresh();
    expect(csvRow([null, undefined, true, false, 0])).toBe(',,true,false,0\n');
  });

  it('writes numbers as they are, even negative ones', async () => {
    const { csvRow } = await fresh();
    expect(csvRow([-12, 4.5, 10n, -1.5e-7])).toBe('-12,4.5,10,-1.5e-7\n');
  });

  it('leaves a number that came as text as it is: "-12" is no formula', async () => {
    const { csvRow } = await fresh();
    expect(csvRow(['-12', '-1.5', '-2e3', '+7', '-1.5e+3'])).toBe("-12,-1.5,-2e3,'+7,-1.5e+3\n");
    expect(csvRow(['-1.25', '-0.5', '-2e10', '-1.5E-12', '-123456789.75e+308'])).toBe('-1.25,-0.5,-2e10,-1.5E-12,-123456789.75e+308\n');
  });

  it('guards text that only begins like a negative number', async () => {
    const { csvCell } = await fresh();
    for (const text of ['-1.', '-.5', '-1e', '-1e+', '-1e3.5', '--1', '-1.5.5', '-1x', '-0x1F', '-12 apples']) {
      expect(csvCell(text), text).toBe(`'${text}`);
    }
  });

  it('prefixes text a spreadsheet would run as a formula', async () => {
    const { csvCell, csvRow } = await fresh();
    expect(csvRow(['=1+1', '+A1', '-A1', '@SUM(A1)', '\tx', '-12 apples', '- 5'])).toBe("'=1+1,'+A1,'-A1,'@SUM(A1),\"'\tx\",'-12 apples,'- 5\n");
    expect(csvCell('\r=x')).toBe("'=x"); // a carriage return is scrubbed, and hides no formula
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvRow(['=1', '+1', '@1', 'e-mail', 'x+y', 'plain'])).toBe("'=1,'+1,'@1,e-mail,x+y,plain\n");
  });

  it('quotes cells holding a quote, a comma or a line break, doubling quotes', async () => {
    const { csvRow } = await fresh();
    expect(csvRow(['say "hi"', 'a,b', 'two\nlines', 'cr\rhere', 'plain'])).toBe('"say ""hi""","a,b","two\nlines",crhere,plain\n');
  });

  it('quotes a cell holding a semicolon or a tab, so a `;` or tab sheet reads it as one cell', async () => {
    const { csvRow } = await fresh();
    expect(csvRow(['a;b', 'x\ty', 'plain'])).toBe('"a;b","x\ty",plain\n');
  });

  it('neutralises a formula at the start of any part a `,`, `;`, tab or line break separates', async () => {
    const { csvCell } = await fresh();
    expect(csvCell('x;=1+1;y')).toBe(`"x;'=1+1;y"`);
    expect(csvCell('x,=HYPERLINK("http://e.test")')).toBe(`"x,'=HYPERLINK(""http://e.test"")"`);
    expect(csvCell('a\t+A1')).toBe(`"a\t'+A1"`);
    expect(csvCell('one\n@SUM(A1)')).toBe(`"one\n'@SUM(A1)"`);
    expect(csvCell('a;-5;-x')).toBe(`"a;-5;'-x"`); // a plain number is left as it is
    expect(csvCell('a; =1')).toBe('"a; =1"');
  });

  it('guards a whole separated part that only begins like a negative number, and leaves other parts alone', async () => {
    const { csvCell } = await fresh();
    expect(csvCell('a;-5x')).toBe(`"a;'-5x"`);
    expect(csvCell('a;-12 apples;b')).toBe(`"a;'-12 apples;b"`);
    expect(csvCell('a;-1.25;-2e10\t-0.5')).toBe('"a;-1.25;-2e10\t-0.5"');
    expect(csvCell('a;b;c=d\te-f')).toBe('"a;b;c=d\te-f"');
    expect(csvCell('=a;=b,+c\t@d\n-e')).toBe(`"'=a;'=b,'+c\t'@d\n'-e"`);
  });

  it('scrubs escape sequences from text, and writes records as compact JSON', async () => {
    const { csvCell } = await fresh();
    expect(csvCell('\u001b[31mred\u001b[0m')).toBe('red');
    expect(csvCell({ a: [1, 'x'] })).toBe('"{""a"":[1,""x""]}"');
    expect(csvCell(['=1'])).toBe('"[""=1""]"');
  });
});

describe('columnsOf', () => {
  it('puts the fixed columns first, then each field in order of first appearance', () => {
    expect(
      columnsOf(
        [
          { b: 1, name: 'x' },
          { c: 2, b: 3 },
        ],
        ['name', 'score'],
      ),
    ).toEqual(['name', 'score', 'b', 'c']);
  });

  it('takes up to 1,000 columns and refuses more, saying what to use instead', () => {
    const row = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, index) => [`f${index}`, index]));
    expect(columnsOf([row(1000)], [])).toHaveLength(1000);
    const error = (() => {
      try {
        columnsOf([row(1000)], ['extra']);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: 'the answer has 1,001 different fields, too many for CSV columns (at most 1,000)',
      hint: 'use --format json or ndjson',
    });
  });
});

describe('the byte-order mark', () => {
  it('is the UTF-8 one, EF BB BF, right before the header', async () => {
    vi.resetModules(); // the renderer and its csv.ts loaded anew: BOM is a constant made as csv.ts loads
    const { writeResult } = await import('../src/output/render.js');
    const io = testIO();
    await writeResult(io, 'audit', { name: 'x', score: 1 }, 'csv', { bom: true });
    expect([...Buffer.from(io.stdoutText()).subarray(0, 10)]).toEqual([0xef, 0xbb, 0xbf, ...Buffer.from('company')]);
  });
});

describe('csvBom', () => {
  it.each([
    [{ bom: true }, {}, true],
    [{}, { REP_CSV_BOM: '1' }, true],
    [{}, { REP_CSV_BOM: ' TRUE ' }, true],
    [{}, { REP_CSV_BOM: '0' }, false],
    [{}, { REP_CSV_BOM: 'yes' }, false],
    [{}, { REP_CSV_BOM: '11' }, false],
    [{}, { REP_CSV_BOM: 'truer' }, false],
    [{}, {}, false],
  ])('--bom %j with env %j: %s', (globals, env, expected) => {
    expect(csvBom({ globals, env } as never)).toBe(expected);
  });
});
