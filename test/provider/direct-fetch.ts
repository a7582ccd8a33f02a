import type { BatonRequestInit } from '../../src/providers/transport.ts';

/**
 * The fetch a transport is given where there is no egress (unit tests, the bench): the global fetch, looked
 * up at each call so a test may stub it, once the request's `ready` has settled, as egress waits for it. It
 * sends no key.
 */
export const directFetch: typeof fetch = async (input, init) => {
  await (init as BatonRequestInit | undefined)?.baton?.ready;
  return globalThis.fetch(input, init);
};
