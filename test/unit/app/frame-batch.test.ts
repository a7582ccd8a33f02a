import { describe, expect, it } from 'vitest';
import { frameBatch } from '../../../src/app/frame-batch.ts';

/** A schedule that runs its callbacks only when the test says a frame has come. */
function frames() {
  const queued: (() => void)[] = [];
  return {
    schedule: (run: () => void) => void queued.push(run),
    frame: () => {
      for (const run of queued.splice(0)) run();
    },
    get pending() {
      return queued.length;
    },
  };
}

describe('frameBatch', () => {
  it('applies the items pushed between two frames once, together, in order', () => {
    const clock = frames();
    const applied: string[][] = [];
    const batch = frameBatch<string>(
      (items) => applied.push(items),
      () => false,
      clock.schedule,
    );
    batch.push('a');
    batch.push('b');
    batch.push('c');
    expect(applied).toEqual([]);
    expect(clock.pending).toBe(1);
    clock.frame();
    expect(applied).toEqual([['a', 'b', 'c']]);
    batch.push('d');
    clock.frame();
    expect(applied).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('applies an urgent item at once, after everything waiting, and a later frame finds nothing', () => {
    const clock = frames();
    const applied: string[][] = [];
    const batch = frameBatch<string>(
      (items) => applied.push(items),
      (item) => item === '!',
      clock.schedule,
    );
    batch.push('a');
    batch.push('!');
    expect(applied).toEqual([['a', '!']]);
    clock.frame();
    expect(applied).toEqual([['a', '!']]);
  });

  it('flush applies what waits without a frame', () => {
    const clock = frames();
    const applied: number[][] = [];
    const batch = frameBatch<number>(
      (items) => applied.push(items),
      () => false,
      clock.schedule,
    );
    batch.push(1);
    batch.flush();
    batch.flush();
    expect(applied).toEqual([[1]]);
  });
});
