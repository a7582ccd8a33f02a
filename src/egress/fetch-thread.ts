/**
 * Starts egress's fetch worker (src/shared/fetch-relay.ts says why it exists). Inlined as a `blob:` worker
 * on purpose: a worker loaded from a URL takes its Content-Security-Policy from its own response headers,
 * which a static host does not send, while a `blob:` worker inherits the page's, connect-src included.
 */
import FetchWorker from '../../workers/fetch.worker.ts?worker&inline';
import { relayFetch } from '../shared/fetch-relay.ts';

/** The `fetch` egress sends with: through the worker where there are workers, else the page's own. */
export function fetchThread(): typeof fetch {
  const direct = globalThis.fetch.bind(globalThis);
  if (typeof Worker === 'undefined') return direct;
  return relayFetch(new FetchWorker({ name: 'baton-fetch' }), direct);
}
