import { describe, expect, it } from 'vitest';
import { math500 } from '../../../../src/evaluation/importers/math500.ts';
import { scoreAnswer } from '../../../../src/evaluation/score.ts';
import { fixture } from './fixture.ts';

describe('MATH-500 importer', () => {
  it("reads the answer field, or the solution's last \\boxed{} when there is none", async () => {
    const { tasks, errors } = await math500.parse(fixture('math500.jsonl'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => [t.id, t.kind, t.answer])).toEqual([
      ['baton/prealgebra/1.json', 'math', '\\frac{1}{2}'],
      ['baton/algebra/2.json', 'math', '(3,2)'],
      ['baton/geometry/3.json', 'math', '120^\\circ'],
    ]);
  });

  it('scores a boxed answer in another notation as right, and a different value as wrong', async () => {
    const { tasks } = await math500.parse(fixture('math500.jsonl'));
    const [half, pair, angle] = tasks as [never, never, never];
    expect((await scoreAnswer(half, 'So we get $\\boxed{\\dfrac{1}{2}}$.')).correct).toBe(true);
    expect((await scoreAnswer(half, 'Answer: 0.5')).correct).toBe(true);
    expect((await scoreAnswer(half, '\\boxed{\\frac{2}{3}}')).correct).toBe(false);
    expect((await scoreAnswer(pair, 'The pair is \\boxed{\\left( 3, 2 \\right)}')).correct).toBe(true);
    expect((await scoreAnswer(angle, '\\boxed{120}')).correct).toBe(true);
  });

  it('reports a record without a problem and one without any answer', async () => {
    const { tasks, errors } = await math500.parse(fixture('math500-bad.jsonl'));
    expect(tasks).toHaveLength(1);
    expect(errors.map((e) => e.line)).toEqual([2, 3]);
    expect(errors[0]!.message).toMatch(/^problem: /);
    expect(errors[1]!.message).toBe('answer is missing (and the solution has no \\boxed{} answer)');
  });
});
