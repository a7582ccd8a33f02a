import type { StepState } from '../records/run-types.ts';
import type { Sees, Step } from '../shared/plan/index.ts';

/** The indices a step at `index` sees: "all" is every earlier step; a list is kept as given (sorted, unique). */
export function resolveSees(sees: Sees | readonly number[], index: number): number[] {
  if (sees === 'all') return Array.from({ length: index }, (_, i) => i);
  return [...new Set(sees)].filter((i) => i < index).sort((a, b) => a - b);
}

/** `deps[i]`: the steps step i waits for. */
export function dependencies(steps: readonly Pick<Step, 'sees'>[]): number[][] {
  return steps.map((step, index) => resolveSees(step.sees, index));
}

/** `out[i]`: the steps that see step i directly. */
export function dependents(deps: readonly number[][]): number[][] {
  const out: number[][] = deps.map(() => []);
  deps.forEach((list, index) => {
    for (const d of list) out[d]?.push(index);
  });
  return out;
}

/** Every step that depends on `index`, directly or through others, in ascending order. */
export function downstream(deps: readonly number[][], index: number): number[] {
  const direct = dependents(deps);
  const seen = new Set<number>();
  const stack = [index];
  while (stack.length > 0) {
    const next = stack.pop() as number;
    for (const d of direct[next] ?? []) {
      if (!seen.has(d)) {
        seen.add(d);
        stack.push(d);
      }
    }
  }
  return [...seen].sort((a, b) => a - b);
}

/** Queued steps whose every dependency is done, in index order. */
export function readySteps(deps: readonly number[][], states: readonly StepState[]): number[] {
  const ready: number[] = [];
  deps.forEach((list, index) => {
    if (states[index] === 'queued' && list.every((d) => states[d] === 'done')) ready.push(index);
  });
  return ready;
}

/**
 * The order steps start in when every step takes the same time and nothing limits parallelism:
 * a list of waves, each the steps that become ready together.
 */
export function waves(deps: readonly number[][]): number[][] {
  const states: StepState[] = deps.map(() => 'queued');
  const out: number[][] = [];
  for (;;) {
    const ready = readySteps(deps, states);
    if (ready.length === 0) return out;
    out.push(ready);
    for (const i of ready) states[i] = 'done';
  }
}

/**
 * The longest chain of dependent steps, weighted by `durations[i]` (ms): the least time any executor
 * needs for the whole plan. Returns its length and the steps on it, in order.
 */
export function criticalPath(
  deps: readonly number[][],
  durations: readonly number[],
): { length: number; path: number[] } {
  const finish: number[] = [];
  const via: (number | undefined)[] = [];
  deps.forEach((list, index) => {
    let start = 0;
    let from: number | undefined;
    for (const d of list) {
      const f = finish[d] ?? 0;
      if (from === undefined || f > start) {
        start = f;
        from = d;
      }
    }
    finish[index] = start + (durations[index] ?? 0);
    via[index] = from;
  });
  let end = -1;
  let length = 0;
  finish.forEach((f, i) => {
    if (f >= length) {
      length = f;
      end = i;
    }
  });
  const path: number[] = [];
  for (let i: number | undefined = end; i !== undefined && i >= 0; i = via[i]) path.unshift(i);
  return { length, path };
}
