import { describe, expect, it } from 'vitest';
import { singleStrategy, singleWorkerOf } from '../../../src/learning/outcome.ts';

// The one format and parse of a direct call's strategy id, which outcomes, auto mode and the bench share.

describe('single strategy ids', () => {
  it('reads back the worker it was made for, ids with colons included', () => {
    for (const id of ['w1', 'local', 'a:b']) expect(singleWorkerOf(singleStrategy(id))).toBe(id);
    expect(singleStrategy('w1')).toBe('single:w1');
  });

  it('finds no worker in a strategy that plans', () => {
    for (const strategy of ['conductor', 'router', 'moa', 'singles', 'w1:single:x']) {
      expect(singleWorkerOf(strategy)).toBeUndefined();
    }
  });
});
