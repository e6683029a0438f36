// How many terminal columns text takes, and where it is cut to fit (src/output/text-width.ts):
// wide characters take two, marks and joiners none, and a cut never splits what reads as one character.
import { describe, expect, it, vi } from 'vitest';
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

describe('the patterns made as the module loads', () => {
  // Loaded anew inside the test: the mutation run ties a module's patterns (wide ranges, zero-width
  // characters, colour codes) only to the tests during which it loads.
  const fresh = async () => {
    vi.resetModules();
    return await import('../src/output/text-width.js');
  };

  it('wide characters take two columns, marks and zero-width characters none, colour codes none', async () => {
    const { displayWidth } = await fresh();
    expect(displayWidth('Жук')).toBe(3);
    expect(displayWidth('東京')).toBe(4);
    expect(displayWidth('\u{20000}')).toBe(2);
    expect(displayWidth('🇷🇺')).toBe(2);
    expect(displayWidth('☕\ufe0f')).toBe(2);
    expect(displayWidth(e)).toBe(1);
    // Marks with no letter to sit on are one grapheme, and draw nothing.
    expect(displayWidth('\u0301\u0301')).toBe(0);
    expect(displayWidth('\u200b')).toBe(0);
    expect(displayWidth('\u001b[1;32mgreen\u001b[m Жук\u001b[0m')).toBe(9);
  });
});

describe('text longer than a chunk', () => {
  // The segmenter is given 256 code units at a time; a grapheme cut by that bound is measured whole.
  it('a flag or a joined emoji across the bound is one character', () => {
    expect(displayWidth(`${'é'.repeat(254)}🇷🇺`)).toBe(256);
    expect(displayWidth(`${'é'.repeat(255)}🇷🇺`)).toBe(257);
    expect(displayWidth(`${'é'.repeat(254)}${coder}`)).toBe(256);
    expect(displayWidth(`${'é'.repeat(255)}${coder}x`)).toBe(258);
    expect(displayWidth(`${'é'.repeat(252)}🇷🇺é`)).toBe(255);
    expect(truncateToWidth(`${'é'.repeat(254)}🇷🇺🇷🇺`, 257)).toBe(`${'é'.repeat(254)}🇷🇺…`);
  });

  it('a bound between the halves of a surrogate pair does not split the character before it', () => {
    // The flag's second indicator, or the emoji after the joiner, is cut in half by the bound.
    expect(displayWidth(`${'é'.repeat(253)}🇷🇺é`)).toBe(256);
    expect(displayWidth(`${'é'.repeat(252)}${coder}`)).toBe(254);
    expect(truncateToWidth(`${'é'.repeat(252)}${coder}${coder}`, 255)).toBe(`${'é'.repeat(252)}${coder}…`);
    // A lone half at the very end is a character of its own.
    expect(displayWidth(`${'é'.repeat(300)}\ud83c`)).toBe(301);
  });
});
