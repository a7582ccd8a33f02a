import { describe, expect, it } from 'vitest';
import { PySyntaxError, readPythonLiteral } from '../../../../src/shared/plan/python-literal.ts';

const read = (text: string) => readPythonLiteral(text, 0).value;

describe('readPythonLiteral', () => {
  it('reads nested lists, tuples, numbers and names, with comments and trailing commas', () => {
    const text = `[ 1, -2, 3.5, 1_000, (4, 5),  # a comment, with [brackets]
      [], all, None, True, ]`;
    expect(read(text)).toEqual([
      1,
      -2,
      3.5,
      1000,
      [4, 5],
      [],
      { name: 'all' },
      { name: 'None' },
      { name: 'True' },
    ]);
  });

  it('reads strings in every quoting style', () => {
    expect(read(`["d\\"q", 's\\'q', "it's", 'say "hi"']`)).toEqual(['d"q', "s'q", "it's", 'say "hi"']);
    expect(read(`"""a\n"b"\nc"""`)).toBe('a\n"b"\nc');
    expect(read(`'''x''y'''`)).toBe("x''y");
    expect(read(`r"\\d+\\"" `)).toBe('\\d+\\"');
    expect(read(`u'x' b"y"`)).toBe('xy');
  });

  it('decodes escapes as Python does', () => {
    expect(read(`"\\n\\t\\\\\\x41\\u00e9\\U0001F600\\101\\0\\q"`)).toBe('\n\t\\Aé😀A\0\\q');
    expect(read(`"line one \\\nline two"`)).toBe('line one line two');
  });

  it('joins adjacent literals across lines', () => {
    expect(read(`["a"\n   'b' # c\n "c", "d"]`)).toEqual(['abc', 'd']);
  });

  it('returns where the literal ends', () => {
    const text = 'x = [1, [2]] # tail';
    expect(readPythonLiteral(text, 4)).toEqual({ value: [1, [2]], end: 12 });
  });

  it('throws PySyntaxError with a position on broken input', () => {
    for (const text of ['[1, 2', '"abc', '"a\nb"', '[1 2]', '@', '"\\xZZ"', '']) {
      expect(() => read(text), text).toThrow(PySyntaxError);
    }
    try {
      read('[1, 2 3]');
    } catch (error) {
      expect((error as PySyntaxError).position).toBe(6);
      expect((error as PySyntaxError).message).toBe('expected "," or "]"');
    }
  });
});
