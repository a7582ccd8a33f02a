import { describe, expect, it } from 'vitest';
import { labelOf, labelsOf } from '../../../src/shared/worker-ids.ts';

// How a message names a worker of the pool: the user's label, the id only while there is none.

describe('labelOf', () => {
  it("is the worker's label when it has one, else its id", () => {
    expect(labelOf({ id: 'w1', label: 'Claude' })).toBe('Claude');
    expect(labelOf({ id: 'w2', label: '' })).toBe('w2');
  });
});

describe('labelsOf', () => {
  it("maps each worker's id to its label, as the pool gives it", () => {
    expect(
      labelsOf([
        { id: 'w1', label: 'Claude' },
        { id: 'w2', label: '' },
      ]),
    ).toEqual({ w1: 'Claude', w2: '' });
  });
});
