import { useEffect, useState } from 'preact/hooks';
import type { Bench } from '../../app/bench/bench.ts';
import { modelLabel } from '../../app/conductor.ts';
import type { PlannerComparison } from '../../app/planner-comparison.ts';
import { transports } from '../../app/services.ts';
import type { StatsConductor } from '../../evaluation/compare-planners-run.ts';
import type { Planner } from '../../evaluation/strategies.ts';
import type { WorkerSpec } from '../../pool/types.ts';
import type { ChatTransport } from '../../providers/transport.ts';
import { useAppState } from '../app-context.ts';
import { BenchScreen } from './BenchScreen.tsx';
import { plannerFromConductor } from './planner.ts';

interface Services {
  bench: Bench;
  comparison: PlannerComparison;
  transport: (worker: WorkerSpec) => ChatTransport;
  planner?: Planner;
  conductor?: StatsConductor;
}

/**
 * The bench wired to the app's services: the enabled pool, per-worker transports (egress-backed cloud
 * transport with the vault's keys, or the on-device model for `local`), and the conductor bridge as the
 * planner once a model is loaded. Import it lazily (`import('./bench/BenchRoute.tsx')`).
 */
export function BenchRoute() {
  const state = useAppState();
  const workers = state.pool.enabledPool.value;
  const conductorState = state.conductor.state.value;
  const ready = conductorState.status === 'ready';
  const model = conductorState.model ? (conductorState.label ?? modelLabel(conductorState.model)) : undefined;
  const [services, setServices] = useState<Services | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let stale = false;
    const app = { ...state.services, bridge: state.conductor.bridge };
    Promise.all([
      transports(workers, app),
      ready ? app.bridge() : undefined,
      state.benches.bench(),
      state.benches.plannerComparison(),
    ]).then(
      ([transport, bridge, bench, comparison]) => {
        if (stale) return;
        setServices({
          bench,
          comparison,
          transport,
          ...(bridge
            ? {
                planner: plannerFromConductor(
                  { plan: (request, options) => bridge.plan({ ...request, ...options }) },
                  workers,
                ),
                conductor: { plan: (request) => bridge.plan(request) },
              }
            : {}),
        });
      },
      (e: unknown) => setError((e as Error).message),
    );
    return () => {
      stale = true;
    };
  }, [workers, ready, state]);
  if (error)
    return (
      <p class="alert" data-kind="error" role="alert">
        The bench could not start: {error}
      </p>
    );
  if (!services) return <p class="muted">Loading the bench…</p>;
  return (
    <BenchScreen
      pool={workers}
      transport={services.transport}
      bench={services.bench}
      comparison={services.comparison}
      {...(services.planner ? { planner: services.planner } : {})}
      {...(services.conductor && ready && model ? { conductor: { model, service: services.conductor } } : {})}
    />
  );
}

export default BenchRoute;
