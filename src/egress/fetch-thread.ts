/**
 * Starts egress's fetch worker (src/shared/fetch-relay.ts says why it exists), as the page starts its other
 * threads: from its URL, so no code of the thread's is imported into the page. A worker loaded from a URL
 * takes its Content-Security-Policy from its own response headers (`vite preview` and the dev server send
 * the app's); egress checks every destination on the page before the worker sends anything.
 */
import { relayFetch } from '../shared/fetch-relay.ts';

/** The `fetch` egress sends with: through the worker where there are workers, else the page's own. */
export function fetchThread(): typeof fetch {
  const direct = globalThis.fetch.bind(globalThis);
  if (typeof Worker === 'undefined') return direct;
  const worker = new Worker(new URL('../../workers/fetch.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-fetch',
  });
  return relayFetch(worker, direct);
}
