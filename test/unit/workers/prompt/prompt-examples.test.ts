import { describe, expect, it } from 'vitest';
import type { PlanExample } from '../../../../src/shared/conductor-api.ts';
import { buildPlanMessages, type PromptWorker } from '../../../../workers/prompt/prompt.ts';

const POOL: PromptWorker[] = [
  { id: 'mini', label: 'GPT mini', strengths: 'Fast and cheap.', costTier: 'low' },
  { id: 'coder', label: 'Codestral', strengths: 'Writes code.', costTier: 'medium' },
];

const EXAMPLE: PlanExample = {
  question: 'Write a Rust function that parses ISO dates.',
  plan: {
    thought: 'Code, then check.',
    steps: [
      { worker: 'coder', task: 'Write the function with tests.', sees: [] },
      { worker: 'mini', task: 'Check it for edge cases and give the final code.', sees: [0] },
    ],
  },
};

describe('buildPlanMessages with workflow memory', () => {
  it('adds past workflows after the built-in examples, just before the question', () => {
    const input = {
      question: 'Parse RFC dates in Rust?',
      pool: POOL,
      mode: 'conductor' as const,
      maxSteps: 3,
      maxDepth: 0,
    };
    const without = buildPlanMessages(input);
    const withExamples = buildPlanMessages({ ...input, examples: [EXAMPLE] });

    expect(withExamples.slice(0, without.length - 1)).toEqual(without.slice(0, -1));
    expect(withExamples.slice(without.length - 1)).toEqual([
      { role: 'user', content: EXAMPLE.question },
      { role: 'assistant', content: JSON.stringify(EXAMPLE.plan) },
      { role: 'user', content: 'Parse RFC dates in Rust?' },
    ]);
  });

  it('gives router mode its examples without a thought, as the router writes none', () => {
    const single: PlanExample = {
      question: 'Capital of Peru?',
      plan: { thought: 'A fact.', steps: [{ worker: 'mini', task: 'Answer.', sees: [] }] },
    };
    const messages = buildPlanMessages({
      question: 'Capital of Chile?',
      pool: POOL,
      mode: 'router',
      maxSteps: 1,
      maxDepth: 0,
      examples: [single],
    });
    expect(messages.at(-2)).toEqual({
      role: 'assistant',
      content: '{"steps":[{"worker":"mini","task":"Answer.","sees":[]}]}',
    });
  });

  it('shortens a long past question, keeping its start and end', () => {
    const long: PlanExample = { ...EXAMPLE, question: `${'x'.repeat(1000)} end` };
    const messages = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'conductor',
      maxSteps: 3,
      maxDepth: 0,
      examples: [long],
    });
    const quoted = messages.at(-3)!.content;
    expect(quoted.length).toBeLessThanOrEqual(300);
    expect(quoted.endsWith(' end')).toBe(true);
  });
});
