import { describe, expect, it } from 'vitest';
import { newRunView, type RunView } from '../../../src/app/runs/run-model.ts';
import { progressLine, summaryLine, turnLine } from '../../../src/app/turn-line.ts';
import type { StepState, StepStatus } from '../../../src/records/run-types.ts';

function step(index: number, worker: string, state: StepState, cost = 0.0001): StepStatus {
  return {
    index,
    worker,
    task: `task ${index}`,
    sees: [],
    depth: 0,
    state,
    text: '',
    attempts: 1,
    ...(state === 'done' ? { cost, usage: { promptTokens: 10, completionTokens: 5 } } : {}),
    timings: { queuedAt: 0, startedAt: 0, ...(state === 'running' ? {} : { endedAt: 1000 }) },
  } as StepStatus;
}

function ended(phase: RunView['phase'], steps: StepStatus[]): RunView {
  return {
    ...newRunView('r1', 'q', 'conductor', 0),
    phase,
    steps,
    endedAt: 6000,
    workerLabels: { a: 'Walker general', b: 'Writer' },
  };
}

describe('the quiet line under an answer', () => {
  it('counts the steps and the workers, the spend and the time', () => {
    const view = ended('done', [step(0, 'a', 'done'), step(1, 'b', 'done'), step(2, 'a', 'done')]);
    expect(turnLine(view, 10_000)).toBe('3 steps · 2 workers · $0.00030 · 1.0 s');
  });

  it('names the one worker of a one-step run, directly', () => {
    expect(turnLine(ended('done', [step(0, 'a', 'done')]), 10_000)).toBe(
      'Walker general, directly · $0.00010 · 1.0 s',
    );
  });

  it('says a cost it cannot know in words', () => {
    const view = ended('done', [step(0, 'a', 'done')]);
    expect(turnLine({ ...view, totals: { cost: 0, unpriced: 1 } } as RunView, 10_000)).toBe(
      'Walker general, directly · cost unknown · 1.0 s',
    );
  });

  it('does not count the conductor checking its own work as a worker', () => {
    const view = ended('done', [step(0, 'a', 'done'), step(1, 'self', 'done', 0)]);
    expect(turnLine(view, 10_000)).toMatch(/^2 steps · 1 worker · /);
  });

  it('says in words that the run was stopped, and at which step', () => {
    const view = ended('cancelled', [step(0, 'a', 'done'), step(1, 'b', 'cancelled')]);
    expect(turnLine(view, 10_000)).toBe('2 steps · 2 workers · $0.00010 · 1.0 s · stopped at step 2');
  });

  it('says which step failed in a run that ended with some answer', () => {
    const view = ended('partial', [step(0, 'a', 'failed'), step(1, 'b', 'done')]);
    expect(turnLine(view, 10_000)).toMatch(/· done, some steps failed: step 1$/);
  });

  it('says only how it ended of a run that ended before any step ran', () => {
    expect(turnLine(ended('failed', []), 10_000)).toBe('No step ran · failed');
    expect(turnLine(ended('cancelled', []), 10_000)).toBe('No step ran · stopped');
  });

  it('says a failed run failed', () => {
    expect(turnLine(ended('failed', [step(0, 'a', 'failed')]), 10_000)).toMatch(/· failed at step 1$/);
  });
});

describe('the progress line of a live run', () => {
  it('says the run is planning, and how many steps stand so far', () => {
    const view = { ...newRunView('r1', 'q', 'conductor', 0), plannedSteps: [{ worker: 'a', task: 't' }] };
    expect(progressLine(view as RunView, 2000)).toBe('Planning on this device · 1 step planned · 2.0 s');
  });

  it('names the steps running now by their workers, and what is done', () => {
    const view: RunView = {
      ...ended('running', [step(0, 'a', 'done'), step(1, 'b', 'running'), step(2, 'a', 'running')]),
      endedAt: undefined,
    } as RunView;
    expect(progressLine(view, 4000)).toBe(
      'Step 2: Writer, step 3: Walker general · 1 of 3 steps done · $0.00010 · 4.0 s',
    );
  });

  it('counts a failed step while the others go on', () => {
    const view = { ...ended('running', [step(0, 'a', 'failed'), step(1, 'b', 'queued')]) } as RunView;
    expect(progressLine(view, 4000)).toContain('Waiting · 0 of 2 steps done · 1 failed');
  });
});

describe('the quiet line of an earlier turn', () => {
  it('says steps and spend, and how the turn ended when not well', () => {
    expect(summaryLine({ steps: 3, cost: 0.0003, status: 'done' })).toBe('3 steps · $0.00030');
    expect(summaryLine({ steps: 1, cost: 0, status: 'cancelled', estimated: true })).toBe(
      '1 step · ≈$0 · stopped',
    );
    expect(summaryLine({ steps: 1, cost: 0, unpriced: true, status: 'done' })).toBe('1 step · cost unknown');
  });
});
