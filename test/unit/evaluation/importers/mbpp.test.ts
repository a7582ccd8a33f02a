import { describe, expect, it } from 'vitest';
import { mbpp } from '../../../../src/evaluation/importers/mbpp.ts';
import { fixture } from './fixture.ts';

describe('MBPP importer', () => {
  it('reads original and sanitized records; the question lists the tests, as the MBPP paper prompts', async () => {
    const { tasks, errors } = await mbpp.parse(fixture('mbpp.jsonl'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => t.id)).toEqual(['mbpp/901', 'mbpp/902']);
    expect(tasks[0]!.question).toContain('Your code should pass these tests:');
    expect(tasks[0]!.question).toContain('assert largest_of_three(1, 5, 3) == 5');
    expect(tasks[0]!.python).toEqual({
      style: 'asserts',
      tests: 'assert largest_of_three(1, 5, 3) == 5\nassert largest_of_three(-1, -5, -3) == -1',
    });
    expect(tasks[1]!.question).toMatch(/^Write a function that reverses/);
  });

  it('reports a missing description, an empty test list and a test that is not an assert', async () => {
    const { tasks, errors } = await mbpp.parse(fixture('mbpp-bad.jsonl'));
    expect(tasks).toHaveLength(1);
    expect(errors).toEqual([
      { line: 2, message: 'text (or prompt): the task description is missing' },
      { line: 3, message: 'test_list: needs at least one assert' },
      { line: 4, message: 'test_list.0: not an assert statement' },
    ]);
  });
});
