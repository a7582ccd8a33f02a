import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PlanEditor as PlanEditorView } from './PlanEditor.tsx';
import type { RunMachinery as RunMachineryView } from './RunMachinery.tsx';

/**
 * A component whose code is loaded when it is first shown, so what a user does not see first is not
 * first-load JS (P4): other screens, a run's machinery, plan review. Once loaded it is shown at once the next
 * time (no "Loading" flash); a failed load says so and is tried again on the next showing.
 */
export function lazyComponent<P extends object>(
  what: string,
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function Lazy(props: P) {
    const [shown, setShown] = useState<{ Component: ComponentType<P> } | { error: string } | undefined>(
      loaded && { Component: loaded },
    );
    useEffect(() => {
      if (loaded) return;
      let mounted = true;
      loading ??= load();
      loading.then(
        (Component) => {
          loaded = Component;
          if (mounted) setShown({ Component });
        },
        (error: unknown) => {
          loading = undefined;
          if (mounted)
            setShown({
              error: `${what[0]?.toUpperCase()}${what.slice(1)} could not be loaded: ${(error as Error).message}. Reload the page to try again.`,
            });
        },
      );
      return () => {
        mounted = false;
      };
    }, []);
    if (!shown) return <p aria-busy="true">Loading {what}…</p>;
    if ('error' in shown) return <p role="alert">{shown.error}</p>;
    return <shown.Component {...props} />;
  };
}

// A run's plan, graph, timeline and step cards are one click away (answer first): loaded when first opened.
export const RunMachinery = lazyComponent<Parameters<typeof RunMachineryView>[0]>('the steps', () =>
  import('./RunMachinery.tsx').then((m) => m.RunMachinery),
);

// Plan review is shown only when a plan is reviewed before it runs.
export const PlanEditor = lazyComponent<Parameters<typeof PlanEditorView>[0]>('plan review', () =>
  import('./PlanEditor.tsx').then((m) => m.PlanEditor),
);
