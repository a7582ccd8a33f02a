import { describe, expect, it } from 'vitest';
import type { BenchItemResult } from '../../../src/evaluation/bench-item.ts';
import type { Strategy } from '../../../src/evaluation/strategies.ts';
import { compareWithBestSingle, summarize } from '../../../src/evaluation/summary.ts';

const strategies: Strategy[] = [
  { id: 'single:a', label: 'A', config: { kind: 'single', worker: 'a' } },
  { id: 'single:b', label: 'B', config: { kind: 'single', worker: 'b' } },
  { id: 'conductor', label: 'Conductor', config: { kind: 'conductor' } },
];

/**
 * One result per character: '1' right, '0' wrong, 'u' answered but not scorable here (no Python runtime),
 * ' ' no result for that item.
 */
function results(strategyId: string, pattern: string): BenchItemResult[] {
  return [...pattern].flatMap((c, i) =>
    c === ' '
      ? []
      : [
          {
            taskId: `t${i}`,
            strategyId,
            status: c === 'u' ? ('unscored' as const) : ('done' as const),
            ...(c === 'u' ? { notScored: "Python's runtime could not be downloaded" } : {}),
            correct: c === '1',
            parsed: true,
            promptTokens: 0,
            completionTokens: 0,
            tokensByWorker: {},
            cost: 0,
            latencyMs: 1,
            plan: { steps: [] },
            steps: [],
            finishedAt: 1,
          },
        ],
  );
}

describe('fairness figures', () => {
  it('gives each strategy a 95% Wilson interval for its accuracy', () => {
    const [row] = summarize(results('single:a', '1111111000'));
    expect(row!.accuracy).toBe(0.7);
    expect(row!.accuracyInterval!.low).toBeCloseTo(0.3968, 4);
    expect(row!.accuracyInterval!.high).toBeCloseTo(0.8922, 4);
  });

  it('leaves items that could not be scored out of accuracy and its interval, and counts them apart', () => {
    const [row] = summarize(results('single:a', '1111111000uuu'));
    expect(row).toMatchObject({ items: 13, scored: 10, correct: 7, unscored: 3, failures: 0 });
    // The same figures as ten scored items alone: the three unscored ones are not wrong answers.
    expect(row!.accuracy).toBe(0.7);
    expect(row!.accuracyInterval!.low).toBeCloseTo(0.3968, 4);
    expect(row!.notScoredCauses).toEqual([{ cause: "Python's runtime could not be downloaded", items: 3 }]);

    const [none] = summarize(results('single:a', 'uu'));
    expect(none).toMatchObject({ items: 2, scored: 0, correct: 0, unscored: 2 });
    expect(none!.accuracy).toBeUndefined();
    expect(none!.accuracyInterval).toBeUndefined();
  });

  it('pairs only items both have a verdict for, and never names a worker with no scored item best', () => {
    const all = [
      ...results('single:a', 'uuuu'),
      ...results('single:b', '10u0'),
      ...results('conductor', '1u10'),
    ];
    const comparison = compareWithBestSingle(all, strategies)!;
    expect(comparison.bestId).toBe('single:b');
    // t1 and t2 have no verdict on one side: two shared items, t0 both right, t3 both wrong.
    expect(comparison.against.get('conductor')).toMatchObject({ items: 2, wins: 0, losses: 0 });
    expect(comparison.against.has('single:a')).toBe(false);
    expect(compareWithBestSingle(results('single:a', 'uu'), strategies)).toBeUndefined();
  });

  it('compares every strategy with the best single worker on the items both answered', () => {
    const all = [
      ...results('single:a', '1100000000'),
      ...results('single:b', '1111100000'),
      // t9 has no result for the conductor yet: it is left out of the pairing.
      ...results('conductor', '111111100 '),
    ];
    const comparison = compareWithBestSingle(all, strategies)!;
    expect(comparison.bestId).toBe('single:b');
    const conductor = comparison.against.get('conductor')!;
    expect(conductor).toMatchObject({ items: 9, wins: 2, losses: 0 });
    expect(conductor.difference).toBeCloseTo(2 / 9, 10);
    expect(comparison.against.get('single:a')).toMatchObject({ items: 10, wins: 0, losses: 3 });
    expect(comparison.against.has('single:b')).toBe(false);
  });

  it('has nothing to compare with when no single worker ran', () => {
    expect(compareWithBestSingle(results('conductor', '10'), strategies)).toBeUndefined();
  });
});
