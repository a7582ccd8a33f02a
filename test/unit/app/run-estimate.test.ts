import { describe, expect, it } from 'vitest';
import { estimateRun } from '../../../src/app/runs/run-estimate.ts';
import { answerKey, estimatePlan } from '../../../src/executor/estimate.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import { csvAttachment } from '../../fixtures/attachments.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

// The one place a run's estimate is made: the review, the streamed plan, a direct call and the run all
// price the earlier turns of a follow-up and the question's files as the executor will send them.

const pool = [
  workerSpec({
    id: 'w1',
    label: 'Writer',
    baseURL: 'http://127.0.0.1:9/v1',
    model: 'm1',
    price: { inputPerM: 1, outputPerM: 2 },
  }),
];
const question = 'Sum the second column.';
const steps: Step[] = [{ worker: 'w1', task: 'Answer the question.', sees: [], files: 'all' }];
const turn = {
  link: { threadId: 't1', turn: 2, parentRunId: 'r1' },
  history: {
    turns: [{ question: 'What is in the file?', answer: 'Numbers, '.repeat(200), worker: 'w1' }],
    budgetFor: () => 100_000,
  },
};

describe('estimateRun', () => {
  it('is the plain estimate for a first question without files', () => {
    const lengths = new Map([[answerKey(pool[0]!), { tokens: 30, answers: 2 }]]);
    expect(estimateRun({ question, steps, pool, answerLengths: lengths })).toEqual(
      estimatePlan({ question, steps, pool, answerLengths: lengths }),
    );
  });

  it("counts a follow-up's earlier turns and the question's files in each step's input", async () => {
    const files = [await csvAttachment('data.csv', 'a,b\n1,2\n3,4\n'.repeat(100))];
    const plain = estimateRun({ question, steps, pool }).inputTokens;
    const withTurns = estimateRun({ question, steps, pool, turn }).inputTokens;
    const withFiles = estimateRun({ question, steps, pool, files }).inputTokens;
    expect(withTurns).toBeGreaterThan(plain);
    expect(withFiles).toBeGreaterThan(plain);
    expect(estimateRun({ question, steps, pool, turn, files })).toEqual(
      estimatePlan({ question, steps, pool, history: turn.history, attachments: files }),
    );
  });

  it('counts nothing for an empty file list or a turn whose history is not read yet', () => {
    const plain = estimateRun({ question, steps, pool });
    expect(estimateRun({ question, steps, pool, files: [], turn: { link: turn.link } })).toEqual(plain);
  });
});
