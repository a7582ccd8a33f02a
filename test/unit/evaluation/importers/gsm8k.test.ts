import { describe, expect, it } from 'vitest';
import { gsm8k, gsm8kFinalAnswer } from '../../../../src/evaluation/importers/gsm8k.ts';
import { scoreAnswer } from '../../../../src/evaluation/score.ts';
import { fixture } from './fixture.ts';

describe('GSM8K importer', () => {
  it('takes the number after ####, commas removed, as a numeric answer', async () => {
    const { tasks, errors } = await gsm8k.parse(fixture('gsm8k.jsonl'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => [t.id, t.kind, t.answer])).toEqual([
      ['gsm8k/1', 'numeric', '288'],
      ['gsm8k/2', 'numeric', '2500'],
      ['gsm8k/3', 'numeric', '-5'],
    ]);
    expect((await scoreAnswer(tasks[1]!, 'So the library has 2,500 books.\nAnswer: 2,500')).correct).toBe(
      true,
    );
    expect((await scoreAnswer(tasks[1]!, 'Answer: 2,400')).correct).toBe(false);
  });

  it('reads the final answer only from the #### line', () => {
    expect(gsm8kFinalAnswer('3 + 4 = 7 then 7 * 2 = 14\n#### 14')).toBe(14);
    expect(gsm8kFinalAnswer('#### $1,000')).toBe(1000);
    expect(gsm8kFinalAnswer('no marker 14')).toBeUndefined();
  });

  it('reports no ####, a non-number after it, an empty question and a record that is not an object', async () => {
    const { tasks, errors } = await gsm8k.parse(fixture('gsm8k-bad.jsonl'));
    expect(tasks).toHaveLength(1);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(errors[0]!.message).toBe('answer has no final "#### <number>" line');
    expect(errors[1]!.message).toBe('answer: the text after "####" is not a number');
    expect(errors[2]!.message).toBe('question: must not be empty');
    expect(errors[3]!.message).toMatch(/expected object/i);
  });
});
