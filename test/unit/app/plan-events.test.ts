import { describe, expect, it } from 'vitest';
import { conductorWriting } from '../../../src/app/runs/conductor-output.ts';
import { applyEvent, applyPlanEvent, newRunView, type RunView } from '../../../src/app/runs/run-model.ts';
import { estimatePlan } from '../../../src/executor/estimate.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';

const pool: WorkerSpec[] = [
  {
    id: 'w1',
    label: 'Writer',
    strengths: '',
    providerId: 'test',
    baseURL: 'http://127.0.0.1:1/v1',
    model: 'm',
    maxConcurrency: 1,
    enabled: true,
    price: { inputPerM: 1, outputPerM: 2 },
  },
];
const estimateOf = (steps: readonly Step[]) => estimatePlan({ question: 'q?', steps, pool });
const step = (task: string, sees: Step['sees'] = []): Step => ({ worker: 'w1', task, sees });

function planned(events: Parameters<typeof applyPlanEvent>[1][]): RunView {
  return events.reduce((v, e) => applyPlanEvent(v, e, estimateOf), newRunView('r', 'q?', 'conductor', 0));
}

describe('applyPlanEvent (the planning shown as the conductor streams it)', () => {
  it('appends tokens to the plan text, without pricing anything', () => {
    const view = planned([
      { kind: 'token', text: '{"steps"' },
      { kind: 'token', text: ': [' },
    ]);
    expect(view.planText).toBe('{"steps": [');
    expect(view.estimate).toBeUndefined();
  });

  it('puts each step at its index and prices the steps planned so far', () => {
    const first = planned([{ kind: 'step', index: 0, step: step('a'), attempt: 0 }]);
    const two = applyPlanEvent(
      first,
      { kind: 'step', index: 1, step: step('b', [0]), attempt: 0 },
      estimateOf,
    );
    expect(two.plannedSteps.map((s) => s.task)).toEqual(['a', 'b']);
    expect(first.estimate?.steps).toHaveLength(1);
    expect(two.estimate?.steps).toHaveLength(2);
    expect(two.estimate?.cost).toBeGreaterThan(first.estimate?.cost ?? Number.POSITIVE_INFINITY);
    // Pure: the earlier view is not changed.
    expect(first.plannedSteps).toHaveLength(1);
  });

  it('on a restart keeps the steps that stand, says so in the text, and prices what is left', () => {
    const view = planned([
      { kind: 'step', index: 0, step: step('a'), attempt: 0 },
      { kind: 'step', index: 1, step: step('b'), attempt: 0 },
      { kind: 'restart', attempt: 1, reason: 'invalid JSON', kept: 1 },
    ]);
    expect(view.plannedSteps.map((s) => s.task)).toEqual(['a']);
    expect(view.planText).toContain('[invalid JSON: trying again]');
    expect(view.estimate?.steps).toHaveLength(1);
  });

  it('drops every streamed step on a restart that keeps none', () => {
    const view = planned([
      { kind: 'step', index: 0, step: step('a'), attempt: 0 },
      { kind: 'restart', attempt: 1, reason: 'fallback' },
    ]);
    expect(view.plannedSteps).toEqual([]);
  });

  it('leaves the view as it is for the generation statistics', () => {
    const view = newRunView('r', 'q?', 'conductor', 0);
    const stats = { kind: 'stats', stats: { ms: 5 } } as const;
    expect(applyPlanEvent(view, stats as Parameters<typeof applyPlanEvent>[1], estimateOf)).toBe(view);
  });
});

describe('conductorWriting (whether the conductor output is shown)', () => {
  it('holds from the question until the plan is written, past the first streamed step that started', () => {
    const asked = newRunView('r', 'q?', 'conductor', 0);
    expect(conductorWriting(asked)).toBe(true);
    // The tokens and the first step arrive, and the executor queues it, before anything is drawn.
    const streamed = planned([
      { kind: 'token', text: '{"steps": [{"worker": "w1", "task": "a", "sees": []}' },
      { kind: 'step', index: 0, step: step('a'), attempt: 1 },
    ]);
    const running = applyEvent(streamed, {
      type: 'step-queued',
      step: step('a'),
      depth: 0,
      index: 0,
      status: {
        index: 0,
        worker: 'w1',
        task: 'a',
        sees: [],
        depth: 0,
        state: 'queued',
        text: '',
        timings: {},
        attempts: 0,
      },
    });
    expect(running.phase).toBe('running');
    expect(conductorWriting(running)).toBe(true);
    // The plan written (its figures shown): the graph and the steps show it.
    expect(conductorWriting({ ...running, planStats: { ms: 900, tokens: 40 } })).toBe(false);
    // A run opened or resumed from the store has no conductor output to show.
    expect(conductorWriting({ ...asked, phase: 'running' })).toBe(false);
    expect(conductorWriting({ ...running, phase: 'done' })).toBe(false);
  });
});
