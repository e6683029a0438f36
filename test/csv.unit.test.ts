// CSV cells as a spreadsheet reads them (src/output/csv.ts): empty for nothing, numbers as numbers,
// text scrubbed, quoted where needed, and never run as a formula.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { columnsOf, csvBom, csvCell, csvRow } from '../src/output/csv.js';

describe('csvCell', () => {
  it('writes nothing for null and undefined, and booleans as words', () => {
    expect(csvRow([null, undefined, true, false, 0])).toBe(',,true,false,0\n');
  });

  it('writes numbers as they are, even negative ones', () => {
    expect(csvRow([-12, 4.5, 10n, -1.5e-7])).toBe('-12,4.5,10,-1.5e-7\n');
  });

  it('leaves a number that came as text as it is: "-12" is no formula', () => {
    expect(csvRow(['-12', '-1.5', '-2e3', '+7', '-1.5e+3'])).toBe("-12,-1.5,-2e3,'+7,-1.5e+3\n");
  });

  it('prefixes text a spreadsheet would run as a formula', () => {
    expect(csvRow(['=1+1', '+A1', '-A1', '@SUM(A1)', '\tx', '-12 apples', '- 5'])).toBe("'=1+1,'+A1,'-A1,'@SUM(A1),\"'\tx\",'-12 apples,'- 5\n");
    expect(csvCell('\r=x')).toBe("'=x"); // a carriage return is scrubbed, and hides no formula
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('quotes cells holding a quote, a comma or a line break, doubling quotes', () => {
    expect(csvRow(['say "hi"', 'a,b', 'two\nlines', 'cr\rhere', 'plain'])).toBe('"say ""hi""","a,b","two\nlines",crhere,plain\n');
  });

  it('quotes a cell holding a semicolon or a tab, so a `;` or tab sheet reads it as one cell', () => {
    expect(csvRow(['a;b', 'x\ty', 'plain'])).toBe('"a;b","x\ty",plain\n');
  });

  it('neutralises a formula at the start of any part a `,`, `;`, tab or line break separates', () => {
    expect(csvCell('x;=1+1;y')).toBe(`"x;'=1+1;y"`);
    expect(csvCell('x,=HYPERLINK("http://e.test")')).toBe(`"x,'=HYPERLINK(""http://e.test"")"`);
    expect(csvCell('a\t+A1')).toBe(`"a\t'+A1"`);
    expect(csvCell('one\n@SUM(A1)')).toBe(`"one\n'@SUM(A1)"`);
    expect(csvCell('a;-5;-x')).toBe(`"a;-5;'-x"`); // a plain number is left as it is
    expect(csvCell('a; =1')).toBe('"a; =1"');
  });

  it('scrubs escape sequences from text, and writes records as compact JSON', () => {
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
