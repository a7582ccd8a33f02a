import { describe, expect, it } from 'vitest';
import { mmlu } from '../../../../src/evaluation/importers/mmlu.ts';
import { fixture } from './fixture.ts';

describe('MMLU importer', () => {
  it('reads headerless question,A,B,C,D,answer rows, quoted fields with commas, quotes and line breaks', async () => {
    const { tasks, errors } = await mmlu.parse(fixture('mmlu-baton_test.csv'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => [t.id, t.answer])).toEqual([
      ['mmlu/1', 'B'],
      ['mmlu/2', 'B'],
      ['mmlu/3', 'A'],
    ]);
    expect(tasks[0]!.choices).toEqual(['Earth', 'Jupiter', 'Mars', 'Venus']);
    expect(tasks[2]!.question).toBe(
      'A quoted question, with a comma and a "quote", and\na line break: which letter comes first?',
    );
  });

  it('numbers rows by the line they start on, past a field that spans lines', async () => {
    const text = `${fixture('mmlu-baton_test.csv')}"Short",1,2,3,4,Z\n`;
    const { errors } = await mmlu.parse(text);
    expect(errors).toEqual([{ line: 5, message: 'the answer "Z" is not one of A, B, C, D' }]);
  });

  it('numbers lines the same in a file that starts with a byte-order mark', async () => {
    const { tasks, errors } = await mmlu.parse(`\uFEFF"Q1",a,b,c,d,A\n"Q2",a,b,c,d,Z\n`);
    expect(tasks[0]!.question).toBe('Q1');
    expect(errors).toEqual([{ line: 2, message: 'the answer "Z" is not one of A, B, C, D' }]);
  });

  it('reports too few fields, a bad answer letter, an empty question and an unclosed quote', async () => {
    const { tasks, errors } = await mmlu.parse(fixture('mmlu-baton-bad_test.csv'));
    expect(tasks).toHaveLength(1);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(errors[0]!.message).toBe('has 4 fields; MMLU rows are question,A,B,C,D,answer');
    expect(errors[1]!.message).toBe('the answer "E" is not one of A, B, C, D');
    expect(errors[2]!.message).toBe('the question is empty');
    expect(errors[3]!.message).toMatch(/^not valid CSV/);
  });

  it('reads the Hugging Face JSONL export, whose answer is an index', async () => {
    const text = [
      JSON.stringify({
        question: 'Largest planet?',
        subject: 'astronomy',
        choices: ['Earth', 'Jupiter', 'Mars', 'Venus'],
        answer: 1,
      }),
      JSON.stringify({ question: 'Pick one', choices: ['a', 'b'], answer: 0 }),
    ].join('\n');
    const { tasks, errors } = await mmlu.parse(text);
    expect(tasks.map((t) => [t.id, t.answer])).toEqual([['mmlu/astronomy/1', 'B']]);
    expect(errors).toEqual([{ line: 2, message: 'choices: needs exactly 4 choices' }]);
  });
});
