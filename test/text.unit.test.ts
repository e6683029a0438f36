// Server text as data (src/text.ts): escapes that never reach the terminal, one-line folding, JSON read one way.
import { describe, expect, it } from 'vitest';
import { isRecord, parseJson, scrubLine, scrubText } from '../src/text.js';

describe('scrubbing', () => {
  it('drops an OSC sequence that is never terminated, up to the end of the text', () => {
    expect(scrubText('name\u001b]0;pwned-title')).toBe('name');
  });

  it('scrubLine folds a run of breaks into one space, keeping other text as it is', () => {
    expect(scrubLine('a\r\n\t\nb  c')).toBe('a b  c');
    expect(scrubLine('plain')).toBe('plain');
  });
});

describe('JSON', () => {
  it('parses with or without a byte-order mark, and throws on anything else', () => {
    expect(parseJson('\uFEFF{"a":[1]}')).toEqual({ a: [1] });
    expect(parseJson('"\uFEFF"')).toBe('\uFEFF');
    expect(() => parseJson('\uFEFF')).toThrow(SyntaxError);
  });

  it('a record is a plain object only', () => {
    expect([{}, [], null, 'x', 1].map(isRecord)).toEqual([true, false, false, false, false]);
  });
});
