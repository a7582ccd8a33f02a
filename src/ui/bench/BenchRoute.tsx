import { useEffect, useState } from 'preact/hooks';
import { type BenchServices, benchServices } from '../../app/bench/bench-services.ts';
import { modelLabel } from '../../app/conductor.ts';
import { useAppState } from '../app-context.ts';
import { BenchScreen } from './BenchScreen.tsx';

/**
 * The Bench screen over the app's services (src/app/bench/bench-services.ts). Import it lazily
 * (`import('./bench/BenchRoute.tsx')`).
 */
export function BenchRoute() {
  const state = useAppState();
  const workers = state.pool.enabledPool.value;
  const conductorState = state.conductor.state.value;
  const ready = conductorState.status === 'ready';
  const model = conductorState.model ? (conductorState.label ?? modelLabel(conductorState.model)) : undefined;
  const [services, setServices] = useState<BenchServices | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let stale = false;
    benchServices(
      workers,
      { ...state.services, bridge: state.conductor.bridge, benches: state.benches },
      ready,
    ).then(
      (made) => stale || setServices(made),
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
