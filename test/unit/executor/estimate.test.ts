import { describe, expect, it } from 'vitest';
import { assembleMessages } from '../../../src/executor/context.ts';
import {
  answerKey,
  answerLengthsOf,
  DEFAULT_ANSWER_TOKENS,
  estimatePlan,
} from '../../../src/executor/estimate.ts';
import { estimatePromptTokens } from '../../../src/executor/spend.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

function worker(id: string, extra: Partial<WorkerSpec> = {}): WorkerSpec {
  return workerSpec({
    id,
    label: `Worker ${id}`,
    baseURL: 'http://127.0.0.1:9/v1',
    model: `model-${id}`,
    ...extra,
  });
}

const question = 'What is the capital of France? Answer in one word.';
const pool = [
  worker('w1', { price: { inputPerM: 1, outputPerM: 2 } }),
  worker('w2', { price: { inputPerM: 3, outputPerM: 15 }, systemPrompt: 'You check answers.' }),
];
const plan: Step[] = [
  { worker: 'w1', task: 'Answer the question.', sees: [] },
  { worker: 'w1', task: 'Answer it another way.', sees: [] },
  { worker: 'w2', task: 'Pick the better answer.', sees: [0, 1] },
];

describe('estimatePlan', () => {
  it('prices each step from the context the executor will send it, with default answers', () => {
    const estimate = estimatePlan({ question, steps: plan, pool });
    const answer = 'x'.repeat(DEFAULT_ANSWER_TOKENS * 4);
    const expectedInput = plan.map((_, index) =>
      estimatePromptTokens(
        assembleMessages({
          question,
          systemPrompt: pool.find((w) => w.id === plan[index]?.worker)?.systemPrompt,
          steps: plan,
          answers: [answer, answer, answer],
          index,
        }),
      ),
    );
    expect(estimate.steps.map((s) => s.inputTokens)).toEqual(expectedInput);
    // The checker reads both answers: its input is far more than either proposer's.
    expect(expectedInput[2]).toBeGreaterThan(2 * DEFAULT_ANSWER_TOKENS);
    expect(estimate.steps.map((s) => s.outputTokens)).toEqual([400, 400, 400]);
    expect(estimate.steps.every((s) => s.basis === 'default')).toBe(true);
    expect(estimate.defaultAnswerTokens).toBe(DEFAULT_ANSWER_TOKENS);
    const cost0 = (expectedInput[0]! * 1 + 400 * 2) / 1e6;
    const cost2 = (expectedInput[2]! * 3 + 400 * 15) / 1e6;
    expect(estimate.steps[0]?.cost).toBeCloseTo(cost0, 12);
    expect(estimate.steps[2]?.cost).toBeCloseTo(cost2, 12);
    expect(estimate.cost).toBeCloseTo(
      estimate.steps.reduce((sum, s) => sum + (s.cost ?? 0), 0),
      12,
    );
    expect(estimate.inputTokens).toBe(expectedInput.reduce((a, b) => a + b, 0));
    expect(estimate.outputTokens).toBe(1200);
    expect(estimate.unpriced).toEqual([]);
  });

  it("uses each worker's past answer length for its own output and for the context of the steps that read it", () => {
    const lengths = new Map([[answerKey(pool[0]!), { tokens: 50, answers: 3 }]]);
    const withHistory = estimatePlan({ question, steps: plan, pool, answerLengths: lengths });
    const without = estimatePlan({ question, steps: plan, pool });
    expect(withHistory.steps.map((s) => s.outputTokens)).toEqual([50, 50, 400]);
    expect(withHistory.steps.map((s) => s.basis)).toEqual(['history', 'history', 'default']);
    // Step 2 reads two answers of 50 tokens, not of 400: 700 tokens fewer.
    expect((without.steps[2]?.inputTokens ?? 0) - (withHistory.steps[2]?.inputTokens ?? 0)).toBe(700);
    expect(withHistory.cost).toBeLessThan(without.cost);
  });

  it("counts the thread's instructions in every worker step's input, so huge ones show in the price", () => {
    const instructions = 'Always answer in formal English. '.repeat(500);
    const without = estimatePlan({ question, steps: plan, pool });
    const withInstructions = estimatePlan({ question, steps: plan, pool, instructions });
    const extra = withInstructions.steps.map((s, i) => s.inputTokens - (without.steps[i]?.inputTokens ?? 0));
    // About 3,000 tokens more in each of the three steps, not once for the plan.
    for (const tokens of extra) expect(tokens).toBeGreaterThan(2_500);
    expect(withInstructions.cost).toBeGreaterThan(without.cost);
  });

  it('leaves the question out of every input when the question is not sent', () => {
    const sent = estimatePlan({ question, steps: plan, pool });
    const notSent = estimatePlan({ question, steps: plan, pool, includeQuestion: false });
    // The question is a message of its own: its text and that message's overhead (a prompt of one message
    // also counts the reply's priming, which a prompt of several counts once).
    const other = { role: 'user' as const, content: 'x' };
    const questionTokens =
      estimatePromptTokens([other, { role: 'user', content: question }]) - estimatePromptTokens([other]);
    for (const [i, step] of notSent.steps.entries()) {
      expect((sent.steps[i]?.inputTokens ?? 0) - step.inputTokens).toBe(questionTokens);
    }
  });

  it('counts self-checks and the on-device worker as free, and says which workers have no price', () => {
    const estimate = estimatePlan({
      question,
      pool: [...pool, worker('w3'), worker('local', { providerId: 'local' })],
      steps: [
        { worker: 'w3', task: 'Draft.', sees: [] },
        { worker: 'local', task: 'Shorten.', sees: [0] },
        { worker: 'w1', task: 'Polish.', sees: 'all' },
        { worker: 'self', task: 'Check it.', sees: 'all' },
      ],
    });
    expect(estimate.steps[0]?.cost).toBeUndefined();
    expect(estimate.unpriced).toEqual(['w3']);
    expect(estimate.steps[1]?.cost).toBe(0);
    expect(estimate.steps[3]).toMatchObject({ inputTokens: 0, outputTokens: 0, cost: 0, basis: 'conductor' });
    expect(estimate.selfChecks).toBe(true);
    expect(estimate.cost).toBeCloseTo(estimate.steps[2]?.cost ?? -1, 12);
  });
});

describe('answerLengthsOf', () => {
  it("averages each model's answered steps, by model and endpoint rather than by pool id", () => {
    const a = worker('w1');
    const b = worker('w2');
    const lengths = answerLengthsOf([
      {
        pool: [a, b],
        steps: [
          { worker: 'w1', state: 'done', usage: { completionTokens: 100 } },
          { worker: 'w2', state: 'done', usage: { completionTokens: 10 } },
          { worker: 'w1', state: 'failed', usage: { completionTokens: 999 } },
          { worker: 'self', state: 'done' },
        ],
      },
      // Another run, where model-w1 sits under the id w2.
      {
        pool: [{ ...a, id: 'w2' }],
        steps: [{ worker: 'w2', state: 'done', usage: { completionTokens: 200 } }],
      },
    ]);
    expect(lengths.get(answerKey(a))).toEqual({ tokens: 150, answers: 2 });
    expect(lengths.get(answerKey(b))).toEqual({ tokens: 10, answers: 1 });
    expect(lengths.size).toBe(2);
  });
});
