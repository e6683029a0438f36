// The pure parts of watching scores over time: the sparkline, the change since the previous point
// and its text, the CI gates, and Markdown cells that stay literal and keep tables whole (`--since`
// is in test/since.unit.test.ts).
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { changeFrom, changeSince, changeText, localDate } from '../src/history/change.js';
import { evaluateGates } from '../src/history/gates.js';
import { sparkline } from '../src/history/sparkline.js';
import { scoreThreshold } from '../src/options.js';
import { markdownCell, markdownTable } from '../src/output/markdown.js';

describe('sparkline', () => {
  it('scales from the minimum (▁) to the maximum (█)', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([80, 73, 74.5, 90])).toBe('▄▁▂█');
    expect(sparkline([4.1, 4.6])).toBe('▁█');
  });

  it('a constant series and a single point sit mid-height; no points, no line', () => {
    expect(sparkline([60, 60, 60])).toBe('▄▄▄');
    expect(sparkline([42])).toBe('▄');
    expect(sparkline([])).toBe('');
  });

  it('leaves out what is no number', () => {
    expect(sparkline([Number.NaN, 1, Infinity, 2])).toBe('▁█');
    expect(sparkline([Number.NaN])).toBe('');
  });
});

describe('change since the previous point', () => {
  const at = '2026-11-01T12:00:00.000Z';

  it('changeSince compares the last point with the one before', () => {
    expect(
      changeSince([
        { at: '2026-10-01T12:00:00Z', score: 60 },
        { at, score: 80 },
        { at: '2026-11-02T12:00:00Z', score: 73 },
      ]),
    ).toEqual({
      previous: 80,
      delta: -7,
      at,
      direction: 'down',
    });
    expect(changeSince([{ at, score: 80 }])).toBeUndefined();
    expect(changeSince([])).toBeUndefined();
  });

  it('float noise is no change: 80.1 to 75.1 fell 5, 0.1 + 0.2 to 0.3 is equal', () => {
    expect(changeFrom({ at, score: 80.1 }, 75.1)?.delta).toBe(-5);
    expect(changeFrom({ at, score: 0.1 + 0.2 }, 0.3)?.direction).toBe('same');
    expect(changeFrom(undefined, 5)).toBeUndefined();
  });

  it("the text carries the direction in its arrow (never colour alone), with the previous point's date", () => {
    const date = localDate(at);
    expect(date).toMatch(/^2026-11-0[12]$/);
    expect(changeText(changeFrom({ at, score: 80 }, 73)!, { since: true })).toBe(`▼ 7.0 since ${date}`);
    expect(changeText(changeFrom({ at, score: 72 }, 73.5)!, { since: true })).toBe(`▲ 1.5 since ${date}`);
    expect(changeText(changeFrom({ at, score: 73 }, 73)!, { since: true })).toBe(`= since ${date}`);
    expect(changeText(changeFrom({ at, score: 4.5 }, 4.25)!)).toBe('▼ 0.25');
  });
});

describe('gates', () => {
  it('--fail-under fails a score below the threshold, one line naming it', () => {
    expect(evaluateGates({ name: 'Кофейня Ромашка', score: 58 }, { failUnder: 60 })).toEqual([
      { gate: 'fail-under', reason: 'Кофейня Ромашка: 58.0 is under 60' },
    ]);
    expect(evaluateGates({ name: 'At the line', score: 60 }, { failUnder: 60 })).toEqual([]);
    expect(evaluateGates({ name: 'Five-point scale', score: 3.9 }, { failUnder: 4 })).toEqual([
      { gate: 'fail-under', reason: 'Five-point scale: 3.9 is under 4' },
    ]);
  });

  it('--fail-on-drop fails a fall of more than the threshold since the previous point', () => {
    expect(evaluateGates({ name: 'Blue Bottle', score: 73, previousScore: 80 }, { failOnDrop: 5 })).toEqual([
      { gate: 'fail-on-drop', reason: 'Blue Bottle: fell 7.0 (from 80.0 to 73.0), more than 5' },
    ]);
    expect(evaluateGates({ name: 'Exactly five', score: 75.1, previousScore: 80.1 }, { failOnDrop: 5 })).toEqual([]);
    expect(evaluateGates({ name: 'Rose', score: 90, previousScore: 70 }, { failOnDrop: 5 })).toEqual([]);
    expect(evaluateGates({ name: 'First audit', score: 10 }, { failOnDrop: 5 })).toEqual([]);
  });

  it('both gates at once; no score fails either; no limits, no failures; names are scrubbed', () => {
    expect(evaluateGates({ name: 'Both', score: 50, previousScore: 70 }, { failUnder: 60, failOnDrop: 5 }).map((failure) => failure.gate)).toEqual([
      'fail-under',
      'fail-on-drop',
    ]);
    expect(evaluateGates({ name: 'No score' }, { failUnder: 60, failOnDrop: 5 })).toEqual([{ gate: 'no-score', reason: 'No score: no score to compare' }]);
    expect(evaluateGates({ name: 'No score, no gate' }, {})).toEqual([]);
    expect(evaluateGates({ name: 'Free', score: 1, previousScore: 100 }, {})).toEqual([]);
    expect(evaluateGates({ name: 'Evil\u001b[2J\nCo', score: 1 }, { failUnder: 2 })[0]?.reason).toBe('Evil Co: 1.0 is under 2');
  });
});

describe('gate thresholds', () => {
  it('take any number 0 or more, on either scale', () => {
    expect(scoreThreshold('60')).toBe(60);
    expect(scoreThreshold('4.5')).toBe(4.5);
    expect(scoreThreshold('0')).toBe(0);
  });

  it.each(['', ' ', '-1', 'sixty', 'Infinity', '5%'])('reject %j', (text) => {
    expect(() => scoreThreshold(text)).toThrow(new InvalidArgumentError('expected a number such as 60 or 4.5 (0 or more)'));
  });
});

/** The cells of one GFM table row, split on the pipes GFM splits on (not on `\|`). */
function gfmCells(row: string): string[] {
  return row
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
}

describe('markdown', () => {
  it('markdownCell: an @mention in server text notifies nobody (a zero-width space after the @, as Dependabot does)', () => {
    expect(markdownCell('@octocat and @org/team, (@x)')).toBe('@&#8203;octocat and @&#8203;org/team, (@&#8203;x)');
  });

  it('markdownCell: a bare URL or e-mail address is a code span, which GFM never autolinks', () => {
    expect(markdownCell('see https://evil.example/x, www.evil.example or info@cafe.example')).toBe(
      'see `https://evil.example/x,` `www.evil.example` or `info@cafe.example`',
    );
    expect(markdownCell('(http://a.test/*b*) WWW.A.TEST mailto:x@y.test a,ftp://z.test')).toBe(
      '`(http://a.test/*b*)` `WWW.A.TEST` `mailto:x@y.test` `a,ftp://z.test`',
    );
    expect(markdownCell('https://a.test/|x')).toBe('`https://a.test/\\|x`'); // the table still splits on a bare pipe
    expect(markdownCell('https://a.test/`x`')).toBe('`` https://a.test/`x` ``');
    expect(markdownCell('a@b no.link, note: 1')).toBe('a@b no.link, note: 1');
  });

  it('markdownCell keeps text literal: pipes, markup and backslashes escaped, newlines as <br>, controls removed', () => {
    expect(markdownCell('Joe | Sons')).toBe('Joe \\| Sons');
    expect(markdownCell('*bold* _it_ `code` [link](x) <b>&amp; ~s~ #1!')).toBe('\\*bold\\* \\_it\\_ \\`code\\` \\[link\\](x) \\<b\\>\\&amp; \\~s\\~ \\#1\\!');
    expect(markdownCell('back\\slash\\')).toBe('back\\\\slash\\\\');
    expect(markdownCell('line one\r\nline | two\nthree')).toBe('line one<br>line \\| two<br>three');
    expect(markdownCell('\u001b[31mred\u001b[0m\ttab\u0007')).toBe('red tab');
    expect(markdownCell('Кофейня Ромашка')).toBe('Кофейня Ромашка');
  });

  it('markdownTable: header, delimiter with alignment, and every row with as many cells as the header', () => {
    const table = markdownTable(
      ['Name', 'Score'],
      [
        ['A | B\nC', '80'],
        ['D\\', '7'],
      ],
      ['left', 'right'],
    );
    expect(table).toBe('| Name | Score |\n| --- | ---: |\n| A \\| B<br>C | 80 |\n| D\\\\ | 7 |\n');
    for (const row of table.trimEnd().split('\n')) expect(gfmCells(row)).toHaveLength(2);
  });
});
