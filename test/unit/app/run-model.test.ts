import { describe, expect, it } from 'vitest';
import { applyEvent, finalStepIndex, liveTotals, newRunView } from '../../../src/app/run-model.ts';

describe('run view from executor events', () => {
  it('follows a step from queued to done, with timings, usage and cost', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(
      view,
      { type: 'step-queued', index: 0, step: { worker: 'w1', task: 't', sees: [] }, depth: 0 },
      10,
    );
    expect(view.phase).toBe('running');
    expect(view.steps[0]).toMatchObject({ state: 'queued', timings: { queuedAt: 10 } });
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 1 }, 20);
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'He', answer: 'He' }, 30);
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'llo', answer: 'Hello' }, 40);
    expect(view.steps[0]).toMatchObject({
      state: 'running',
      text: 'Hello',
      timings: { startedAt: 20, firstTokenAt: 30 },
    });
    view = applyEvent(
      view,
      {
        type: 'step-done',
        index: 0,
        answer: 'Hello',
        usage: { promptTokens: 5, completionTokens: 2 },
        cost: 0.5,
      },
      50,
    );
    expect(view.steps[0]).toMatchObject({ state: 'done', timings: { endedAt: 50 }, cost: 0.5 });
    expect(liveTotals(view.steps)).toMatchObject({
      promptTokens: 5,
      completionTokens: 2,
      cost: 0.5,
      done: 1,
    });
  });

  it('clears the partial answer when a retry starts over, and keeps the retry reason meanwhile', () => {
    let view = newRunView('r', 'q', 'conductor', 0);
    view = applyEvent(view, {
      type: 'step-queued',
      index: 0,
      step: { worker: 'w1', task: 't', sees: [] },
      depth: 0,
    });
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 1 });
    view = applyEvent(view, { type: 'step-delta', index: 0, text: 'par', answer: 'par' });
    view = applyEvent(view, { type: 'step-retrying', index: 0, attempt: 1, delayMs: 1500, reason: '429' });
    expect(view.steps[0]!.error).toBe('Retrying in 1.5 s: 429');
    view = applyEvent(view, { type: 'step-started', index: 0, attempt: 2 });
    expect(view.steps[0]).toMatchObject({ text: '', attempts: 2, error: undefined });
  });

  it('ignores events for unknown steps and finds the final step (not the conductor itself)', () => {
    const view = newRunView('r', 'q', 'router', 0);
    expect(applyEvent(view, { type: 'step-started', index: 3, attempt: 1 })).toBe(view);
    expect(finalStepIndex([{ worker: 'w1' }, { worker: 'w2' }, { worker: 'self' }])).toBe(1);
    expect(finalStepIndex([])).toBeUndefined();
  });
});
