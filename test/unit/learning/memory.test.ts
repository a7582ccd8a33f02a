import { describe, expect, it } from 'vitest';
import { createWorkflowMemory, type PoolWorker } from '../../../src/learning/memory.ts';
import type { Outcome } from '../../../src/learning/outcome.ts';

const POOL: PoolWorker[] = [
  { id: 'coder', model: 'codestral-latest' },
  { id: 'mini', model: 'gpt-4o-mini' },
];
const OPTIONS = { maxSteps: 5, allowSelf: true };

function outcome(runId: string, question: string, parts: Partial<Outcome> = {}): Outcome {
  return {
    runId,
    question,
    strategy: 'conductor',
    plan: {
      thought: 'Code, then check.',
      steps: [
        { worker: 'coder', task: 'Write it.', sees: [] },
        { worker: 'mini', task: 'Check it and give the final code.', sees: [0] },
      ],
    },
    workerIds: ['coder', 'mini'],
    workerModels: { coder: 'codestral-latest', mini: 'gpt-4o-mini' },
    good: true,
    source: 'user',
    costUsd: 0.002,
    latencyMs: 4000,
    at: 1,
    ...parts,
  };
}

describe('workflow memory', () => {
  const pastCode = outcome('r-code', 'Write a Python function that parses ISO 8601 dates');

  it('offers a past good workflow for a similar question, and none for an unrelated one', () => {
    const memory = createWorkflowMemory([pastCode, outcome('r-poem', 'Write a haiku about autumn leaves')]);

    const similar = memory.examplesFor(
      'Write a Python function to parse ISO dates with timezones',
      POOL,
      OPTIONS,
    );
    expect(similar.map((e) => e.runId)).toEqual(['r-code']);
    expect(similar[0]).toMatchObject({ question: pastCode.question, plan: pastCode.plan });

    expect(memory.examplesFor('What is the capital of Australia?', POOL, OPTIONS)).toEqual([]);
    // Sharing one common word ("write") is not being alike.
    expect(memory.examplesFor('Write me a cover letter for a bakery job', POOL, OPTIONS)).toEqual([]);
  });

  it('matches misspelt and shortened words (fuzzy and prefix search)', () => {
    const memory = createWorkflowMemory([pastCode]);
    expect(memory.examplesFor('pythn function parsing ISO dates', POOL, OPTIONS).map((e) => e.runId)).toEqual(
      ['r-code'],
    );
  });

  it('does not offer a workflow whose worker left the pool, or now runs another model', () => {
    const memory = createWorkflowMemory([pastCode]);
    const question = 'Write a Python function that parses ISO dates';
    expect(memory.examplesFor(question, [{ id: 'coder', model: 'codestral-latest' }], OPTIONS)).toEqual([]);
    expect(
      memory.examplesFor(
        question,
        [
          { id: 'coder', model: 'codestral-latest' },
          { id: 'mini', model: 'gpt-5' },
        ],
        OPTIONS,
      ),
    ).toEqual([]);
    expect(memory.examplesFor(question, POOL, OPTIONS)).toHaveLength(1);
  });

  it('never offers a bad outcome, but reports it among the similar outcomes', () => {
    const memory = createWorkflowMemory([outcome('r-bad', pastCode.question, { good: false })]);
    expect(memory.examplesFor(pastCode.question, POOL, OPTIONS)).toEqual([]);
    const [neighbour] = memory.similarOutcomes(pastCode.question, 3);
    expect(neighbour?.outcome.runId).toBe('r-bad');
    expect(neighbour?.outcome.good).toBe(false);
    expect(neighbour?.overlap).toBe(1);
    expect(neighbour?.score).toBeGreaterThan(0);
  });

  it('offers at most two, best first, and only plans that fit today’s limits', () => {
    const memory = createWorkflowMemory([
      outcome('r1', 'Write a Python function that parses ISO 8601 dates'),
      outcome('r2', 'Write a Python function that parses ISO dates and times'),
      outcome('r3', 'Python function parses ISO 8601 dates quickly'),
      outcome('r-self', 'Write a Python function that parses ISO 8601 dates', {
        plan: {
          thought: 'Check.',
          steps: [
            { worker: 'coder', task: 'Write it.', sees: [] },
            { worker: 'self', task: 'Check.', sees: 'all' },
          ],
        },
      }),
    ]);
    const question = 'Write a Python function that parses ISO 8601 dates';
    const examples = memory.examplesFor(question, POOL, { maxSteps: 5, allowSelf: false });
    expect(examples).toHaveLength(2);
    expect(examples.map((e) => e.runId)).not.toContain('r-self');
    expect(examples[0]!.score).toBeGreaterThanOrEqual(examples[1]!.score);
    // A router asks for one step: two-step plans would teach it an invalid answer.
    expect(memory.examplesFor(question, POOL, { maxSteps: 1, allowSelf: false })).toEqual([]);
  });

  it('skips an outcome that has no plan or no record of its workers’ models', () => {
    const { plan: _plan, ...noPlan } = pastCode;
    const { workerModels: _models, ...noModels } = pastCode;
    const memory = createWorkflowMemory([
      { ...noPlan, runId: 'r-direct' },
      { ...noModels, runId: 'r-old' },
    ]);
    expect(memory.examplesFor(pastCode.question, POOL, OPTIONS)).toEqual([]);
    expect(memory.similarOutcomes(pastCode.question, 5)).toHaveLength(2);
  });
});
