import { describe, expect, it } from 'vitest';
import {
  criticalPath,
  dependencies,
  dependents,
  downstream,
  readySteps,
  resolveSees,
  waves,
} from '../../../src/executor/dag.ts';
import type { StepState } from '../../../src/records/run-types.ts';

const s = (sees: 'all' | number[]) => ({ sees });

describe('dag', () => {
  it('resolves "all" to every earlier step and a list to sorted unique earlier steps', () => {
    expect(resolveSees('all', 0)).toEqual([]);
    expect(resolveSees('all', 3)).toEqual([0, 1, 2]);
    expect(resolveSees([2, 0, 2], 3)).toEqual([0, 2]);
    expect(resolveSees([], 4)).toEqual([]);
  });

  it('builds dependencies and their inverse', () => {
    const deps = dependencies([s([]), s([]), s([0, 1]), s('all'), s([1])]);
    expect(deps).toEqual([[], [], [0, 1], [0, 1, 2], [1]]);
    expect(dependents(deps)).toEqual([[2, 3], [2, 3, 4], [3], [], []]);
    expect(downstream(deps, 0)).toEqual([2, 3]);
    expect(downstream(deps, 1)).toEqual([2, 3, 4]);
    expect(downstream(deps, 4)).toEqual([]);
  });

  it('finds ready steps: queued, with every dependency done', () => {
    const deps = dependencies([s([]), s([]), s([0, 1]), s([0])]);
    const states: StepState[] = ['done', 'running', 'queued', 'queued'];
    expect(readySteps(deps, states)).toEqual([3]);
    expect(readySteps(deps, ['done', 'done', 'queued', 'running'])).toEqual([2]);
    expect(readySteps(deps, ['failed', 'done', 'queued', 'queued'])).toEqual([]);
    expect(readySteps(deps, ['queued', 'queued', 'queued', 'queued'])).toEqual([0, 1]);
  });

  it('orders a plan into waves of steps that can run together', () => {
    // 0 and 1 are independent; 2 needs 0; 3 needs 1; 4 needs both branches.
    const deps = dependencies([s([]), s([]), s([0]), s([1]), s([2, 3])]);
    expect(waves(deps)).toEqual([[0, 1], [2, 3], [4]]);
    expect(waves(dependencies([s([]), s('all'), s('all')]))).toEqual([[0], [1], [2]]);
  });

  it('computes the critical path by duration, not by step count', () => {
    const deps = dependencies([s([]), s([]), s([0]), s([1]), s([2, 3])]);
    expect(criticalPath(deps, [100, 100, 100, 500, 50])).toEqual({ length: 650, path: [1, 3, 4] });
    expect(criticalPath(deps, [300, 100, 300, 100, 50])).toEqual({ length: 650, path: [0, 2, 4] });
    expect(criticalPath(dependencies([s([]), s([])]), [10, 40])).toEqual({ length: 40, path: [1] });
  });
});
