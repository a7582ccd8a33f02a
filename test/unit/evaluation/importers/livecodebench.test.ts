import { describe, expect, it } from 'vitest';
import { liveCodeBench } from '../../../../src/evaluation/importers/livecodebench.ts';
import { fixture } from './fixture.ts';

describe('LiveCodeBench importer', () => {
  it('reads stdin and functional public tests from their JSON strings', async () => {
    const { tasks, errors } = await liveCodeBench.parse(fixture('livecodebench.jsonl'));
    expect(errors).toEqual([]);
    expect(tasks.map((t) => t.id)).toEqual(['lcb/baton001', 'lcb/9001']);
    expect(tasks[0]!.python).toEqual({
      style: 'stdio',
      cases: [
        { input: '1 2\n', output: '3\n' },
        { input: '-4 4\n', output: '0\n' },
      ],
    });
    expect(tasks[0]!.question).toContain('Read the inputs from stdin');
    expect(tasks[1]!.python).toEqual({
      style: 'functional',
      funcName: 'doubleEach',
      cases: [{ input: '[1, 2, 3]', output: '[2, 4, 6]' }],
    });
    expect(tasks[1]!.question).toContain('class Solution:');
  });

  it('reports mixed test types, a missing func_name, tests that are not JSON and an unknown test type', async () => {
    const { tasks, errors } = await liveCodeBench.parse(fixture('livecodebench-bad.jsonl'));
    expect(tasks).toHaveLength(1);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(errors[0]!.message).toBe('public_test_cases mix stdin and functional tests');
    expect(errors[1]!.message).toBe('metadata.func_name is missing (functional tests need it)');
    expect(errors[2]!.message).toBe('public_test_cases: is not valid JSON');
    expect(errors[3]!.message).toBe('public_test_cases.0.testtype: must be "stdin" or "functional"');
  });
});
