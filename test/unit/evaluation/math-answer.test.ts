import { describe, expect, it } from 'vitest';
import { extractMathAnswer, lastBoxed, normalizeMathAnswer } from '../../../src/evaluation/math-answer.ts';

const same = (a: string, b: string) => expect(normalizeMathAnswer(a)).toBe(normalizeMathAnswer(b));
const different = (a: string, b: string) => expect(normalizeMathAnswer(a)).not.toBe(normalizeMathAnswer(b));

describe('MATH answers', () => {
  it('finds the last \\boxed{} with nested braces', () => {
    expect(lastBoxed('first \\boxed{1}, then \\boxed{\\frac{1}{2}} done')).toBe('\\frac{1}{2}');
    expect(lastBoxed('\\boxed 7')).toBe('7');
    expect(lastBoxed('no box')).toBeUndefined();
  });

  it('treats fraction notations alike', () => {
    same('\\dfrac{3}{4}', '\\frac{3}{4}');
    same('\\tfrac34', '\\frac{3}{4}');
    same('3/4', '\\frac{3}{4}');
    same('0.5', '\\frac12');
    different('\\frac{3}{4}', '\\frac{4}{3}');
  });

  it('ignores \\left/\\right, spaces, dollars, degrees, percent, units and "x ="', () => {
    same('\\left( 3, 2 \\right)', '(3,2)');
    same('$120^\\circ$', '120');
    same('120^{\\circ}', '120');
    same('50\\%', '50');
    same('12 \\text{ cm}', '12');
    same('x = 5', '5');
    same('\\boxed{\\sqrt3}', '\\sqrt{3}');
    same('.5', '0.5');
    different('(3,2)', '(2,3)');
  });

  it('reads a response\'s answer: the last box, else "Answer:", else the last line', () => {
    expect(extractMathAnswer('We get \\boxed{2} and finally \\boxed{\\dfrac{1}{2}}.')).toBe('\\dfrac{1}{2}');
    expect(extractMathAnswer('Work...\nThe answer is: $\\frac{1}{2}$')).toBe('$\\frac{1}{2}$');
    expect(extractMathAnswer('Work...\n\n42')).toBe('42');
  });
});
