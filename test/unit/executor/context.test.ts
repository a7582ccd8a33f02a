import { describe, expect, it } from 'vitest';
import { assembleMessages } from '../../../src/executor/context.ts';
import type { Step } from '../../../src/shared/plan/index.ts';

const steps: Step[] = [
  { worker: 'w1', task: 'Plan it.', sees: [] },
  { worker: 'w2', task: 'Research it.', sees: [] },
  { worker: 'self', task: 'Check.', sees: 'all' },
  { worker: 'w3', task: 'Write the answer.', sees: [1, 0, 2] },
];
const answers = ['The plan.', 'The research.', undefined, undefined];

describe('assembleMessages', () => {
  it('puts the system prompt, the question, each seen (task, answer) pair in order, then the task', () => {
    expect(
      assembleMessages({
        question: 'Why is the sky blue?',
        systemPrompt: 'Be brief.',
        steps,
        answers,
        index: 3,
      }),
    ).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Why is the sky blue?' },
      { role: 'user', content: 'Plan it.' },
      { role: 'assistant', content: 'The plan.' },
      { role: 'user', content: 'Research it.' },
      { role: 'assistant', content: 'The research.' },
      { role: 'user', content: 'Write the answer.' },
    ]);
  });

  it('leaves out the question when asked, and the system prompt when there is none', () => {
    expect(assembleMessages({ question: 'Q', includeQuestion: false, steps, answers, index: 0 })).toEqual([
      { role: 'user', content: 'Plan it.' },
    ]);
    expect(assembleMessages({ question: 'Q', systemPrompt: '  ', steps, answers, index: 1 })).toEqual([
      { role: 'user', content: 'Q' },
      { role: 'user', content: 'Research it.' },
    ]);
  });

  it("sends the thread's instructions after the worker's system prompt, in one system message", () => {
    const messages = assembleMessages({
      question: 'Q',
      systemPrompt: 'Be brief.',
      instructions: '  Answer in French.  ',
      steps,
      answers,
      index: 0,
    });
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.\n\nAnswer in French.' });
    expect(messages.filter((m) => m.role === 'system')).toHaveLength(1);
    // A worker without a system prompt still gets the thread's instructions.
    expect(
      assembleMessages({ question: 'Q', instructions: 'Answer in French.', steps, answers, index: 1 })[0],
    ).toEqual({ role: 'system', content: 'Answer in French.' });
  });

  it('shows only the steps a step sees', () => {
    const only: Step[] = [...steps.slice(0, 2), { worker: 'w3', task: 'Use the research.', sees: [1] }];
    expect(assembleMessages({ question: 'Q', steps: only, answers, index: 2 }).map((m) => m.content)).toEqual(
      ['Q', 'Research it.', 'The research.', 'Use the research.'],
    );
  });

  // A run step's answer is what code printed; the next run step must not run it.
  it('gives a run step the answers of the model steps it sees, never another run step’s answer', () => {
    const run: Step[] = [
      { worker: 'w1', task: 'Write it.', sees: [] },
      { worker: 'run', task: 'Run it.', sees: [0] },
      { worker: 'w2', task: 'Fix it.', sees: [0, 1] },
      { worker: 'run', task: 'Run the fix.', sees: 'all' },
    ];
    const said = [
      '```python\nprint(1)\n```',
      'Result: raised Error\n```python\nprint(2)\n```',
      'fixed',
      undefined,
    ];
    expect(
      assembleMessages({ question: 'Q', steps: run, answers: said, index: 3 }).map((m) => m.content),
    ).toEqual(['Q', 'Write it.', said[0], 'Fix it.', 'fixed', 'Run the fix.']);
    // A model step reads the run's answer as before.
    expect(
      assembleMessages({ question: 'Q', steps: run, answers: said, index: 2 }).map((m) => m.content),
    ).toEqual(['Q', 'Write it.', said[0], 'Run it.', said[1], 'Fix it.']);
  });

  it('rejects an index with no step', () => {
    expect(() => assembleMessages({ question: 'Q', steps, answers, index: 9 })).toThrow(RangeError);
  });
});
