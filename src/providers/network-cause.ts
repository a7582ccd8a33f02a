/**
 * Names the cause of a request that failed without an answer, where the browser knows it but `fetch` only
 * says "Failed to fetch": the device is offline, or the app's own Content-Security-Policy blocked the host
 * (the page sees a `securitypolicyviolation` event for it; src/shared/csp-violations.ts remembers it).
 */
import { cspBlocked, violationsDelivered } from '../shared/csp-violations.ts';
import { ProviderError } from './errors.ts';

export { watchCspViolations } from '../shared/csp-violations.ts';

function offline(): boolean {
  const nav = (globalThis as { navigator?: { onLine?: boolean } }).navigator;
  return nav?.onLine === false;
}

/**
 * What a failed `fetch` to `url` means, when the browser can tell: a ProviderError naming the cause, or
 * `undefined` when the cause is not known (then the original error stands).
 */
export async function explainFetchFailure(url: string, error: unknown): Promise<ProviderError | undefined> {
  if (error instanceof ProviderError) return undefined;
  if (error instanceof Error && error.name === 'AbortError') return undefined;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return undefined;
  }
  await violationsDelivered();
  if (cspBlocked(origin)) {
    return new ProviderError(
      'refused',
      `This app's Content-Security-Policy does not allow connections to ${origin}, so the browser blocked ` +
        `the request before it left. To use this host, build the app with it listed: ` +
        `BATON_CONNECT_SRC="${origin}" npm run build (see "Allowing a custom host" in the README).`,
    );
  }
  if (offline()) {
    return new ProviderError(
      'connection',
      `This device is offline, so ${new URL(url).host} could not be reached. Reconnect, then try again.`,
    );
  }
  return undefined;
}
