/**
 * Why a model file could not be downloaded, for people: the host, what its HTTP status means, or — when
 * the request got no answer at all — whether the device is offline, the app's CSP does not list the host,
 * or the host is unreachable or refuses downloads from web pages (CORS). Shared by both engines.
 */

import { cspBlocked } from '../../src/shared/csp-violations.ts';
import { EngineError } from '../../src/shared/engine-errors.ts';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** A download answered with an error status. */
export function downloadStatusError(model: string, url: string, status: number): EngineError {
  const host = hostOf(url);
  const why =
    status === 404 || status === 410
      ? `${host} has no file at ${new URL(url).pathname} (HTTP ${status}): check the model URL.`
      : status === 401 || status === 403
        ? `${host} refused it (HTTP ${status}): the file is private or gated (on Hugging Face, accept the ` +
          "model's terms or use a public copy)."
        : status === 429 || status >= 500
          ? `${host} is busy or failing (HTTP ${status}): try again later.`
          : `${host} answered HTTP ${status}.`;
  return new EngineError('ModelFetchError', `Could not download ${model}: ${why}`);
}

/** A download that got no answer (`fetch` rejected). */
export function downloadNetworkError(model: string, url: string, error: unknown): EngineError {
  const host = hostOf(url);
  const detail = error instanceof Error ? error.message : String(error);
  const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
  const why =
    online === false
      ? 'this device is offline. Connect, then try again (once downloaded, the model works offline).'
      : cspBlocked(originOf(url))
        ? `this app's Content-Security-Policy does not allow ${originOf(url)}. Build the app with it ` +
          `listed: BATON_CONNECT_SRC="${originOf(url)}" npm run build (see "Allowing a custom host" in the README).`
        : `${host} could not be reached, or it does not allow downloads from web pages (CORS) (${detail}). ` +
          'Check the URL and the connection, and try again.';
  return new EngineError('ModelFetchError', `Could not download ${model}: ${why}`, { cause: error });
}
