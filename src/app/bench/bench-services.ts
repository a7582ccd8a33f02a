/**
 * The bench wired to the app's services: per-worker transports for the enabled pool (egress-backed cloud
 * transports with the vault's keys, the on-device model for `local`), the bench and Compare planners
 * (made on first use), and the conductor bridge as the planner once a model is loaded.
 */
import type { ConductorBridge } from '../../conductor/bridge.ts';
import type { StatsConductor } from '../../evaluation/compare-planners-run.ts';
import type { Planner } from '../../evaluation/strategies.ts';
import type { ChatTransport } from '../../providers/transport.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { createBenchState } from '../bench-state.ts';
import type { PlannerComparison } from '../planner-comparison.ts';
import { type SendingServices, transports } from '../services.ts';
import type { Bench } from './bench.ts';
import { plannerFromConductor } from './planner.ts';

export interface BenchServices {
  bench: Bench;
  comparison: PlannerComparison;
  transport: (worker: WorkerSpec) => ChatTransport;
  /** Present once a conductor model is loaded. */
  planner?: Planner;
  conductor?: StatsConductor;
}

export async function benchServices(
  workers: readonly WorkerSpec[],
  app: Pick<SendingServices, 'egress' | 'codeSandbox'> & {
    bridge: () => Promise<ConductorBridge>;
    benches: ReturnType<typeof createBenchState>;
  },
  conductorReady: boolean,
): Promise<BenchServices> {
  const [transport, bridge, bench, comparison] = await Promise.all([
    transports(workers, app),
    conductorReady ? app.bridge() : undefined,
    app.benches.bench(),
    app.benches.plannerComparison(),
  ]);
  if (!bridge) return { bench, comparison, transport };
  return {
    bench,
    comparison,
    transport,
    planner: plannerFromConductor(
      { plan: (request, options) => bridge.plan({ ...request, ...options }) },
      workers,
    ),
    conductor: { plan: (request) => bridge.plan(request) },
  };
}
