import { signal } from '@preact/signals';

/**
 * Screens of the app. `run` shows one stored run (history → open); `ledger` is the egress ledger, a page
 * of its own under Settings (its hundred rows a page would bury the settings below it).
 */
export type Route =
  | { name: 'start' }
  | { name: 'ask' }
  | { name: 'history' }
  | { name: 'settings' }
  | { name: 'ledger' }
  | { name: 'bench' }
  | { name: 'run'; id: string };

/** Parses `#/ask`, `#/run/<id>`, ... Anything unknown falls back to `fallback`. */
export function parseHash(hash: string, fallback: Route): Route {
  const path = hash.replace(/^#\/?/, '');
  const [head, ...rest] = path.split('/');
  switch (head) {
    case 'start':
    case 'ask':
    case 'history':
    case 'settings':
    case 'ledger':
    case 'bench':
      return { name: head };
    case 'run': {
      const id = decodeURIComponent(rest.join('/'));
      return id ? { name: 'run', id } : fallback;
    }
    default:
      return fallback;
  }
}

export function routeHash(route: Route): string {
  return route.name === 'run' ? `#/run/${encodeURIComponent(route.id)}` : `#/${route.name}`;
}

/** The screen shown, for one app state, and the two ways it changes: a link in the app or the hash. */
export function createRouter() {
  const route = signal<Route>({ name: 'ask' });

  function navigate(to: Route): void {
    const hash = routeHash(to);
    if (location.hash !== hash) location.hash = hash;
    route.value = to;
  }

  /** Follows location.hash. `fallback` is the screen for an empty or unknown hash. */
  function startRouter(fallback: () => Route): () => void {
    const sync = () => {
      route.value = parseHash(location.hash, fallback());
    };
    sync();
    addEventListener('hashchange', sync);
    return () => removeEventListener('hashchange', sync);
  }

  return { route, navigate, startRouter };
}

export type AppRouter = ReturnType<typeof createRouter>;
