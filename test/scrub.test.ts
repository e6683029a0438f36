import { describe, expect, it } from 'vitest';
import { scrubLine, scrubText } from '../src/text.js';

describe('scrubText', () => {
  it.each([
    ['CSI colour', '\u001b[31mred\u001b[0m', 'red'],
    ['CSI with many parameters', '\u001b[1;38;5;196mbold\u001b[m', 'bold'],
    ['OSC 8 hyperlink with ST', '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['OSC title with BEL', '\u001b]0;pwned\u0007name', 'name'],
    ['OSC title with ST', 'a\u001b]2;title\u001b\\b', 'ab'],
    ['OSC with C1 ST', 'a\u009d0;title\u009cb', 'ab'],
    ['cursor movement', 'x\u001b[2Ay\u001b[10;5Hz', 'xyz'],
    ['erase line and screen', '\u001b[2K\u001b[2Jok', 'ok'],
    ['C1 CSI', 'a\u009b31mb', 'ab'],
    ['two-byte escape', 'a\u001bcb\u001b7c', 'abc'],
    ['DCS', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['bidi override', 'abc\u202edef\u202c', 'abcdef'],
    ['bidi isolates and marks', '\u2066a\u2069\u200e\u200f\u061cb', 'ab'],
    ['NUL', 'a\u0000b', 'ab'],
    ['DEL', 'a\u007fb', 'ab'],
    ['BEL and backspace', 'a\u0007\u0008b', 'ab'],
    ['lone C1 control', 'a\u0085b', 'ab'],
    ['unterminated CSI at the end', 'a\u001b[31', 'a31'],
    ['zero-width space, word joiner and BOM', 'pay\u200bpal\u2060\ufeff.com', 'paypal.com'],
    ['invisible operators and the Mongolian vowel separator', 'a\u2061\u2062\u2063\u2064\u180eb', 'ab'],
    ['Unicode tag characters (hidden ASCII)', 'ok\u{E0001}\u{E0069}\u{E0067}\u{E006E}\u{E007F}', 'ok'],
    ['a zero-width joiner or non-joiner outside the text that uses it', '\u200dA\u200d\u200cB\u200c', 'AB'],
  ])('removes %s', (_name, input, expected) => {
    expect(scrubText(input)).toBe(expected);
  });

  it('keeps ordinary Unicode: Cyrillic, CJK, accents and emoji', () => {
    const text = 'Кофейня «Ромашка» — café 東京 👩‍💻 🇷🇺 ☕️';
    expect(scrubText(text)).toBe(text);
  });

  it('keeps the joiners that text needs: emoji sequences and Persian', () => {
    const text = 'می\u200cخواهم 👨\u200d👩\u200d👧 👋🏽\u200d';
    expect(scrubText(text)).toBe('می\u200cخواهم 👨\u200d👩\u200d👧 👋🏽');
  });

  it('reads a line or paragraph separator as a newline', () => {
    expect(scrubText('a\u2028b\u2029c')).toBe('a\nb\nc');
    expect(scrubLine('a\u2028b')).toBe('a b');
  });

  it('keeps tabs and newlines', () => {
    expect(scrubText('a\tb\nc')).toBe('a\tb\nc');
  });

  it('removes carriage returns, which could overwrite a line already shown', () => {
    expect(scrubText('safe\rEVIL\r\n')).toBe('safeEVIL\n');
  });
});

describe('scrubLine', () => {
  it('folds tabs and line breaks into single spaces', () => {
    expect(scrubLine('a\tb\n\nc\r\nd')).toBe('a b c d');
  });

  it('folds Unicode line and paragraph separators too', () => {
    expect(scrubLine('a\u2028b\u2029c')).toBe('a b c');
  });

  it('scrubs before folding, so an escape cannot hide a line break', () => {
    expect(scrubLine('\u001b[31mone\ntwo\u001b[0m')).toBe('one two');
  });
});
