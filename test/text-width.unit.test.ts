// How many terminal columns text takes, and where it is cut to fit (src/output/text-width.ts):
// wide characters take two, marks and joiners none, and a cut never splits what reads as one character.
import { describe, expect, it } from 'vitest';
import { displayWidth, truncateToWidth } from '../src/output/text-width.js';

const e = 'e\u0301'; // é as e and a combining acute accent
const coder = '👩\u200d💻'; // one emoji joined by a ZWJ

describe('displayWidth', () => {
  it('a flag (a pair of regional indicators) takes two columns, as terminals draw it', () => {
    expect(displayWidth('🇷🇺')).toBe(2);
    expect(displayWidth('Кофейня 🇷🇺 Ромашка')).toBe(18);
    expect(truncateToWidth('🇷🇺🇷🇺', 3)).not.toBe('🇷🇺🇷🇺');
  });

  it.each([
    ['ASCII', 'abc', 3],
    ['CJK', '東京', 4],
    ['Hangul', '한', 2],
    ['fullwidth forms', '\u3000！', 4],
    ['a CJK extension B ideograph', '\u{20000}', 2],
    ['Cyrillic', 'Жук', 3],
    ['a combining mark', e, 1],
    ['a combining mark after ASCII', `a${e}x`, 3],
    ['marks on several letters', `${'a\u0301'.repeat(5)}bc`, 7],
    ['a ZWJ sequence', coder, 2],
    ['an emoji with a variation selector', '☕\ufe0f', 2],
    ['a zero-width space', '\u200b', 0],
    ['colour codes', '\u001b[31mred\u001b[0m and \u001b[1;32mgreen\u001b[m', 13],
    ['more than one chunk of marks', e.repeat(200), 200],
    ['more than one chunk of wide text', '東'.repeat(300), 600],
    ['a wide character after a long ASCII run', `${'x'.repeat(300)}東`, 302],
    ['ASCII after a long non-ASCII run', `${'é'.repeat(300)}abc`, 303],
    ['an empty text', '', 0],
    ['a letter under 300 combining marks, longer than a chunk', `x${'a'.padEnd(301, '\u0301')}b`, 3],
  ])('%s', (_, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('truncateToWidth', () => {
  it('keeps text that fits exactly, and cuts one column more to end in …', () => {
    expect(truncateToWidth('abcdef', 6)).toBe('abcdef');
    expect(truncateToWidth('abcdefg', 6)).toBe('abcde…');
    expect(truncateToWidth('東京', 4)).toBe('東京');
    expect(truncateToWidth('', 3)).toBe('');
  });

  it('gives nothing for no room', () => {
    expect(truncateToWidth('abc', 0)).toBe('');
    expect(truncateToWidth('abc', -1)).toBe('');
  });

  it('never splits a wide character, a combining mark or a ZWJ sequence', () => {
    expect(truncateToWidth('東京都', 4)).toBe('東…');
    expect(truncateToWidth('東京都', 5)).toBe('東京…');
    expect(truncateToWidth(e.repeat(3), 2)).toBe(`${e}…`);
    expect(truncateToWidth(`${coder}${coder}`, 3)).toBe(`${coder}…`);
    expect(truncateToWidth(`ab${e}cd`, 4)).toBe(`ab${e}…`);
  });

  it('does not count colour codes as columns', () => {
    expect(truncateToWidth('ab\u001b[31mcd\u001b[0m', 4)).toBe('ab\u001b[31mcd\u001b[0m');
    expect(truncateToWidth('ab\u001b[31mcd\u001b[0mef', 4)).toBe('ab\u001b[31mc…');
  });

  it('cuts text denser than any real one (piles of zero-width characters) after 16 code units a column', () => {
    const dense = `${'\u200b'.repeat(500)}abc`;
    expect(truncateToWidth(dense, 2)).toBe(`${'\u200b'.repeat(49)}…`);
    expect(displayWidth(dense)).toBe(3);
  });
});
