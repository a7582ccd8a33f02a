import { signal } from '@preact/signals';

/**
 * Screens of the app. `run` shows one stored run (history → open); `settings` may name one of its
 * sections (`#/settings/planning`), which gets the focus; `ledger` is the egress ledger, a page of its own
 * under Settings (its hundred rows a page would bury the settings below it).
 */
export type Route =
  | { name: 'start' }
  | { name: 'ask' }
  | { name: 'history' }
  | { name: 'settings'; section?: string }
  | { name: 'ledger' }
  | { name: 'bench' }
  | { name: 'run'; id: string };

/** Parses `#/ask`, `#/run/<id>`, ... Anything unknown falls back to `fallback`. */
export function parseHash(hash: string, fallback: Route): Route {
  const path = hash.replace(/^#\/?/, '');
  const [head, ...rest] = path.split('/');
  switch (head) {
    case 'settings': {
      const section = rest.join('/');
      return section ? { name: head, section: decodeURIComponent(section) } : { name: head };
    }
    case 'start':
    case 'ask':
    case 'history':
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
  if (route.name === 'run') return `#/run/${encodeURIComponent(route.id)}`;
  if (route.name === 'settings' && route.section) return `#/settings/${encodeURIComponent(route.section)}`;
  return `#/${route.name}`;
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
