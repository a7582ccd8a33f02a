/**
 * "Test connection": the cheapest request that proves the key, the base URL, CORS and the model work,
 * through egress, with a specific message for each way it can fail.
 */

import { isLoopback, type ProviderPreset, presetById } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import { errorDetail, listModels } from './discovery.ts';
import type { Egress } from './egress.ts';

export type ConnectionProblem =
  | 'no-key'
  | 'bad-key'
  | 'forbidden'
  | 'cors'
  | 'local-cors'
  | 'unreachable'
  | 'unreachable-or-cors'
  | 'unknown-model'
  | 'refused'
  | 'rate-limit'
  | 'server'
  | 'bad-request'
  | 'aborted';

export type ConnectionResult =
  | { ok: true; message: string; models?: string[] }
  | { ok: false; problem: ConnectionProblem; message: string; hint?: string; status?: number };

export interface ConnectionTarget {
  providerId: string;
  baseURL: string;
  /** When given, a one-token chat request checks that the model exists (unless /models lists it). */
  model?: string;
  signal?: AbortSignal;
  /** Put in the CORS hints (`OLLAMA_ORIGINS=<origin>`); defaults to the page's origin. */
  pageOrigin?: string;
}

class NetworkFailure extends Error {}

function hintFor(preset: ProviderPreset | undefined, pageOrigin: string): string | undefined {
  return preset?.corsHint?.replaceAll('<this page origin>', pageOrigin);
}

function fromStatus(
  status: number,
  detail: string,
  name: string,
  during: 'models' | 'chat',
  model?: string,
): ConnectionResult {
  const suffix = detail ? ` The provider said: "${detail}"` : '';
  if (status === 401)
    return { ok: false, problem: 'bad-key', status, message: `${name} rejected the key (401).${suffix}` };
  if (status === 403)
    return {
      ok: false,
      problem: 'forbidden',
      status,
      message: `${name} accepted the key but refused access (403): check the key's permissions or billing.${suffix}`,
    };
  if (status === 404)
    return during === 'chat'
      ? {
          ok: false,
          problem: 'unknown-model',
          status,
          message: `${name} does not know the model "${model}" (404).${suffix}`,
        }
      : {
          ok: false,
          problem: 'unknown-model',
          status,
          message: `Nothing at the base URL's /models (404): is the base URL right?${suffix}`,
        };
  if (status === 429)
    return {
      ok: false,
      problem: 'rate-limit',
      status,
      message: `The key works, but ${name} is rate limiting it (429).${suffix}`,
    };
  if (status >= 500)
    return {
      ok: false,
      problem: 'server',
      status,
      message: `${name} had an error (${status}); try again later.${suffix}`,
    };
  return {
    ok: false,
    problem: 'bad-request',
    status,
    message: `${name} rejected the test request (${status}).${suffix}`,
  };
}

export async function testConnection(egress: Egress, target: ConnectionTarget): Promise<ConnectionResult> {
  const preset = presetById(target.providerId);
  const name = preset?.name ?? target.providerId;
  const pageOrigin =
    target.pageOrigin ?? (typeof location !== 'undefined' ? location.origin : '<this page origin>');
  const signal = target.signal;

  const classify = async (error: unknown): Promise<ConnectionResult> => {
    if (error instanceof ProviderError && error.status === 401) return unauthorized('', 'chat');
    if (error instanceof ProviderError) {
      if (error.kind === 'aborted') return { ok: false, problem: 'aborted', message: 'Cancelled.' };
      if (error.kind === 'auth' && error.status === undefined)
        return { ok: false, problem: 'no-key', message: error.message };
      if (error.kind === 'refused') return { ok: false, problem: 'refused', message: error.message };
      if (error.kind !== 'connection') return { ok: false, problem: 'bad-request', message: error.message };
    }
    if (error instanceof Error && error.name === 'AbortError')
      return { ok: false, problem: 'aborted', message: 'Cancelled.' };
    // The browser does not say whether CORS or the network failed. A no-cors probe does: it gets an
    // (opaque) answer from any host that is up, CORS or not. Except on a cross-origin isolated page
    // (COEP require-corp, which wllama's threads need): there a no-cors answer without a
    // Cross-Origin-Resource-Policy header is blocked too, so a failed probe proves nothing.
    const conclusive = !(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
    let reachable = false;
    try {
      reachable = await egress.probe({ providerId: target.providerId, baseURL: target.baseURL }, signal);
    } catch {
      reachable = false;
    }
    const local = preset?.kind === 'local' || isLoopback(target.baseURL);
    const hint = hintFor(preset, pageOrigin);
    if (reachable) {
      return local
        ? {
            ok: false,
            problem: 'local-cors',
            message: `The server at ${new URL(target.baseURL).host} is running but does not allow requests from this page (CORS).`,
            ...(hint ? { hint } : {}),
          }
        : {
            ok: false,
            problem: 'cors',
            message: `${name} answered, but the browser blocked the answer (CORS): this endpoint does not accept requests from web pages, or rejected a header.`,
            ...(hint ? { hint } : {}),
          };
    }
    if (!conclusive) {
      return {
        ok: false,
        problem: 'unreachable-or-cors',
        message: local
          ? `No readable answer from ${new URL(target.baseURL).host}: either nothing is running there, or the server does not allow requests from this page (CORS).`
          : `Could not get a readable answer from ${new URL(target.baseURL).host}: the host is unreachable, or it refuses requests from web pages (CORS). Check the base URL and your connection.`,
        ...(hint ? { hint } : {}),
      };
    }
    return {
      ok: false,
      problem: 'unreachable',
      message: local
        ? `Nothing answers at ${new URL(target.baseURL).host}: is the server running, on this port?`
        : `Could not reach ${new URL(target.baseURL).host}: check the base URL and your connection (or this app's Content-Security-Policy, for a custom host).`,
      ...(local && hint ? { hint } : {}),
    };
  };

  try {
    new URL(target.baseURL);
  } catch {
    return { ok: false, problem: 'refused', message: 'The base URL is not a valid URL.' };
  }

  // A 401 after a request that carried no key means no key is saved for this host, not a bad key.
  const unauthorized = async (detail: string, during: 'models' | 'chat'): Promise<ConnectionResult> => {
    if (!(await egress.hasKey(target))) {
      const host = new URL(target.baseURL).host;
      return {
        ok: false,
        problem: 'no-key',
        status: 401,
        message: `${name} at ${host} asks for a key (401), and no key is saved for ${host}: add one in Settings → API keys.`,
      };
    }
    return fromStatus(401, detail, name, during, target.model);
  };

  let models: string[] | undefined;
  if (preset?.hasModelsEndpoint !== false) {
    try {
      models = await listModels(egress, {
        providerId: target.providerId,
        baseURL: target.baseURL,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      // A redirect or a web page: its own message says what it was and what to change.
      if (error instanceof ProviderError && error.kind === 'unexpected-response')
        return { ok: false, problem: 'bad-request', message: error.message };
      if (error instanceof ProviderError && error.status !== undefined) {
        const detail = error.message.replace(/^[^:]*\(\d{3}\): ?/, '');
        if (error.status === 401) return unauthorized(detail, 'models');
        return fromStatus(error.status, detail, name, 'models');
      }
      if (error instanceof ProviderError && error.kind === 'connection')
        return classify(new NetworkFailure());
      return classify(error);
    }
    if (!target.model) return { ok: true, message: `Connected to ${name}: ${models.length} models.`, models };
    if (models.includes(target.model)) {
      return { ok: true, message: `Connected to ${name}; "${target.model}" is available.`, models };
    }
  }
  if (!target.model) return { ok: true, message: `${name} is configured.` };

  // The model is not listed (aliases often are not) or there is no list: one tiny chat request.
  let response: Response;
  try {
    response = await egress.request({
      providerId: target.providerId,
      baseURL: target.baseURL,
      path: '/chat/completions',
      purpose: 'connection-test',
      body: { model: target.model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1 },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return classify(error);
  }
  if (!response.ok) {
    const detail = await errorDetail(response);
    if (response.status === 401) return unauthorized(detail, 'chat');
    return fromStatus(response.status, detail, name, 'chat', target.model);
  }
  await response.text().catch(() => '');
  return {
    ok: true,
    message: `Connected to ${name}; "${target.model}" answered.`,
    ...(models ? { models } : {}),
  };
}
