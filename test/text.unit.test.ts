// Server text as data (src/text.ts): escapes that never reach the terminal, one-line folding, JSON read one way.
import { describe, expect, it } from 'vitest';
import { hasControlCharacter, isRecord, MAX_INDENTED_DEPTH, parseJson, scrubLine, scrubText, serializeJson } from '../src/text.js';

describe('scrubbing', () => {
  it('drops an OSC sequence that is never terminated, up to the end of the text', () => {
    expect(scrubText('name\u001b]0;pwned-title')).toBe('name');
  });

  it('scrubLine folds a run of breaks into one space, keeping other text as it is', () => {
    expect(scrubLine('a\r\n\t\nb  c')).toBe('a b  c');
    expect(scrubLine('plain')).toBe('plain');
  });
});

describe('hasControlCharacter', () => {
  it('finds a C0 control or DEL anywhere, and nothing else', () => {
    for (const text of ['\t', 'a\nb', 'end\r', '\u0000start', 'mid\u001fdle', 'del\u007f', '\u001b[31m'])
      expect(hasControlCharacter(text), JSON.stringify(text)).toBe(true);
    for (const text of ['', 'https://example.com/api', 'a b', 'Кофейня', '\u0080', '\u00a0', '~ !'])
      expect(hasControlCharacter(text), JSON.stringify(text)).toBe(false);
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

describe('serializeJson', () => {
  // Containers nested `levels` deep around `inner`, objects and arrays in turn, with the kinds of
  // entries JSON.stringify leaves out or writes as null on every level.
  const nest = (levels: number, inner: unknown): unknown => {
    let value = inner;
    for (let level = levels - 1; level >= 0; level -= 1) {
      value =
        level % 2 === 0 ? { level, empty: {}, none: [], gone: undefined, fn: () => 1, sym: Symbol('s'), deeper: value } : [level, [], {}, undefined, value];
    }
    return value;
  };
  const inner = { a: [1, {}], b: undefined, f: () => 1, s: Symbol('s'), e: [], u: [undefined, () => 1, Symbol('u')], n: null, o: { k: 'v' } };
  // What the levels above MAX_INDENTED_DEPTH look like indented, with the deeper ones compact on their line.
  const expected = (levels: number, deep: unknown) => JSON.stringify(nest(levels, '@INNER@'), null, 2).replace('"@INNER@"', JSON.stringify(deep));

  it('writes as JSON.stringify does, undefined as null', () => {
    expect(serializeJson({ a: [1, 'x', null], b: { c: true } })).toBe('{"a":[1,"x",null],"b":{"c":true}}');
    expect(serializeJson({ a: [1, {}] }, 2)).toBe(JSON.stringify({ a: [1, {}] }, null, 2));
    expect(serializeJson(undefined)).toBe('null');
    expect(serializeJson(undefined, 2)).toBe('null');
  });

  it(`indents ${MAX_INDENTED_DEPTH} levels and writes deeper ones compactly on their line`, () => {
    expect(MAX_INDENTED_DEPTH).toBe(8);
    const text = serializeJson(nest(MAX_INDENTED_DEPTH, inner), 2);
    expect(text).toBe(expected(MAX_INDENTED_DEPTH, inner));
    expect(text).toContain('"deeper": [\n');
    expect(text).toContain('{"a":[1,{}],"e":[],"u":[null,null,null],"n":null,"o":{"k":"v"}}');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(nest(MAX_INDENTED_DEPTH, inner))));
  });

  it('a container exactly one level too deep is compact; one level less is all indented', () => {
    expect(serializeJson(nest(MAX_INDENTED_DEPTH, [1, 'x']), 2)).toBe(expected(MAX_INDENTED_DEPTH, [1, 'x']));
    expect(serializeJson(nest(MAX_INDENTED_DEPTH, [1, 'x']), 2)).toContain('[1,"x"]');
    expect(serializeJson(nest(MAX_INDENTED_DEPTH - 1, [1, 'x']), 2)).toBe(JSON.stringify(nest(MAX_INDENTED_DEPTH - 1, [1, 'x']), null, 2));
  });

  it('deep values without indentation are written compactly, as JSON.stringify would', () => {
    expect(serializeJson(nest(MAX_INDENTED_DEPTH, inner))).toBe(JSON.stringify(nest(MAX_INDENTED_DEPTH, inner)));
    expect(serializeJson(nest(MAX_INDENTED_DEPTH, inner), 0)).toBe(JSON.stringify(nest(MAX_INDENTED_DEPTH, inner)));
  });

  it('an error other than running out of stack is not swallowed', () => {
    const refuses = {
      toJSON: () => {
        throw new Error('cannot be written');
      },
    };
    expect(() => serializeJson(refuses)).toThrow('cannot be written');
    expect(() => serializeJson({ a: refuses }, 2)).toThrow('cannot be written');
  });
});
