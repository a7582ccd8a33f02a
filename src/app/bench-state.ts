/**
 * The bench and "Compare planners" as members of the app state: each made on first use (their code and
 * their databases load only when the Bench screen opens), then kept for the page's life, so leaving the
 * screen and coming back shows the same benches, results and progress.
 */
import type { Bench } from './bench/bench.ts';
import type { BenchOptions } from './bench/bench-core.ts';
import type { PlannerComparison } from './planner-comparison.ts';
import { once, type PageServices } from './services.ts';

export function createBenchState(
  services: Pick<PageServices, 'benchStore' | 'plannerCompareStore'>,
  wiring: Pick<BenchOptions, 'recordOutcome' | 'ensureUnlocked' | 'failover'>,
) {
  const bench = once(async (): Promise<Bench> => {
    const [{ createBench }, { createSandboxRunner }] = await Promise.all([
      import('./bench/bench.ts'),
      import('../sandbox/code-runner.ts'),
    ]);
    const made = createBench({
      openStore: services.benchStore,
      ownsStore: false,
      codeRunner: () => createSandboxRunner(),
      ...wiring,
    });
    await made.open();
    return made;
  });

  const plannerComparison = once(async (): Promise<PlannerComparison> => {
    const { createPlannerComparison } = await import('./planner-comparison.ts');
    const made = createPlannerComparison({ openStore: services.plannerCompareStore, ownsStore: false });
    await made.open();
    return made;
  });

  return { bench, plannerComparison };
}
