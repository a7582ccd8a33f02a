import type { ConductorEvent, ConductorListener } from '../src/shared/conductor-api.ts';

/** Tokens are sent to the page at most once a frame: the page shows them no faster. */
export const TOKEN_BATCH_MS = 16;

/**
 * Sends a generation's tokens to the page in batches. Each event to the page is a comlink call, a message
 * each way, and the page answers it while the thread decodes: one per token cost a tenth of a plan's time
 * (P3, 211 tokens). The first token goes at once (the user sees planning start), later ones together at
 * most every `windowMs`; any other event first sends the tokens before it, so the order stays the page's,
 * and `stats`, always last, leaves nothing behind.
 */
export function batchTokens(listener: ConductorListener, windowMs = TOKEN_BATCH_MS): ConductorListener {
  let pending = '';
  let lastSent = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): unknown {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!pending) return undefined;
    const text = pending;
    pending = '';
    lastSent = performance.now();
    return listener({ kind: 'token', text });
  }

  return (event: ConductorEvent) => {
    if (event.kind !== 'token') {
      void Promise.resolve(flush()).catch(() => {});
      return listener(event);
    }
    pending += event.text;
    const waited = performance.now() - lastSent;
    if (waited >= windowMs) return flush();
    timer ??= setTimeout(flush, windowMs - waited);
    return undefined;
  };
}
