import { describe, expect, it } from 'vitest';
import { humanEval } from '../../../../src/evaluation/importers/humaneval.ts';
import { fixture } from './fixture.ts';

describe('HumanEval importer', () => {
  it('reads each record as a Python task checked by check(entry_point)', async () => {
    const { tasks, errors } = await humanEval.parse(fixture('humaneval.jsonl'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => t.id)).toEqual(['Baton/0', 'Baton/1']);
    const [first] = tasks;
    expect(first!.kind).toBe('python');
    expect(first!.question).toContain('def add_pair(a: int, b: int) -> int:');
    expect(first!.answer).toContain('return a + b');
    expect(first!.python).toMatchObject({ style: 'check', entryPoint: 'add_pair' });
  });

  it('reports each kind of bad record by its line and keeps the good one', async () => {
    const { tasks, errors } = await humanEval.parse(fixture('humaneval-bad.jsonl'));
    expect(tasks.map((t) => t.id)).toEqual(['Baton/0']);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6]);
    expect(errors[0]!.message).toMatch(/^not valid JSON/);
    expect(errors[1]!.message).toMatch(/^entry_point: /);
    expect(errors[2]!.message).toBe('entry_point "h" is not defined in prompt');
    expect(errors[3]!.message).toBe('test does not define check(candidate)');
    expect(errors[4]!.message).toBe('duplicate id "Baton/0" (first on line 1)');
  });
});
