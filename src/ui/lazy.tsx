import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PlanEditor as PlanEditorView } from './PlanEditor.tsx';
import type { RunMachinery as RunMachineryView } from './RunMachinery.tsx';

/** A lazy component, and a way to load its code before it is shown. */
export type LazyComponent<P> = ComponentType<P> & {
  /** Loads the code now, quietly: a failure is tried again when the component is shown. */
  preload(): void;
};

/**
 * A component whose code is loaded when it is first shown, so what a user does not see first is not
 * first-load JS (P4): other screens, a run's machinery, plan review. Once loaded it is shown at once the next
 * time (no "Loading" flash); a failed load says so and is tried again on the next showing.
 */
export function lazyComponent<P extends object>(
  what: string,
  load: () => Promise<ComponentType<P>>,
): LazyComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  function start(): Promise<ComponentType<P>> {
    loading ??= load().then(
      (Component) => {
        loaded = Component;
        return Component;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  }
  function Lazy(props: P) {
    const [shown, setShown] = useState<{ Component: ComponentType<P> } | { error: string } | undefined>(
      loaded && { Component: loaded },
    );
    useEffect(() => {
      // Whether it was shown at once is read from the first render: the code may have arrived (preloaded)
      // between that render and this effect, and then it must still be shown.
      if (shown) return;
      let mounted = true;
      start().then(
        (Component) => {
          if (mounted) setShown({ Component });
        },
        (error: unknown) => {
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
  }
  return Object.assign(Lazy, {
    preload() {
      start().catch(() => {});
    },
  });
}

/**
 * Loads every lazy part once the first screen is drawn and the page is idle: they are then shown at once,
 * and go on working when the network goes (a plan made offline is reviewed; the service worker, where there
 * is one, has them too). Not first-load JS: nothing waits for them.
 */
export function preloadWhenIdle(parts: ReadonlyArray<{ preload(): void }>): () => void {
  const preload = () => {
    for (const part of parts) part.preload();
  };
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(preload, { timeout: 5000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(preload, 1000);
  return () => clearTimeout(id);
}

// A run's plan, graph, timeline and step cards are one click away (answer first): loaded when first opened.
export const RunMachinery = lazyComponent<Parameters<typeof RunMachineryView>[0]>('the steps', () =>
  import('./RunMachinery.tsx').then((m) => m.RunMachinery),
);

// Plan review is shown only when a plan is reviewed before it runs.
export const PlanEditor = lazyComponent<Parameters<typeof PlanEditorView>[0]>('plan review', () =>
  import('./PlanEditor.tsx').then((m) => m.PlanEditor),
);
