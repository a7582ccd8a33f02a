/** Model discovery: `GET {baseURL}/models` through egress, for presets that have it. */

import { presetById } from '../providers/catalog.ts';
import { errorMessageOfText } from '../providers/error-body.ts';
import { errorFromStatus, ProviderError } from '../providers/errors.ts';
import type { Egress } from './egress.ts';

export interface DiscoveryTarget {
  providerId: string;
  baseURL: string;
  signal?: AbortSignal;
}

/** The message of a provider's error body, whatever its shape (src/providers/error-body.ts), scrubbed and short. */
export async function errorDetail(response: Response): Promise<string> {
  try {
    return errorMessageOfText(await response.text());
  } catch {
    return '';
  }
}

function idsOf(body: unknown): string[] {
  // OpenAI: { data: [{ id }] }; Together: [{ id }]; some servers: { models: [{ id | name }] }.
  const list = Array.isArray(body)
    ? body
    : Array.isArray((body as { data?: unknown })?.data)
      ? (body as { data: unknown[] }).data
      : Array.isArray((body as { models?: unknown })?.models)
        ? (body as { models: unknown[] }).models
        : [];
  const ids = list
    .map((m) => {
      const item = m as { id?: unknown; name?: unknown };
      return typeof item?.id === 'string' ? item.id : typeof item?.name === 'string' ? item.name : undefined;
    })
    .filter((id): id is string => Boolean(id));
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}

/**
 * The model ids the provider lists, sorted. Throws ProviderError: `refused` (egress), the kind of the
 * HTTP status, or `connection` when the request failed (CORS, unreachable).
 */
export async function listModels(egress: Egress, target: DiscoveryTarget): Promise<string[]> {
  const preset = presetById(target.providerId);
  if (preset && !preset.hasModelsEndpoint) {
    throw new ProviderError('not-found', `${preset.name} has no model list: type the model id.`);
  }
  let response: Response;
  try {
    response = await egress.request({
      providerId: target.providerId,
      baseURL: target.baseURL,
      path: '/models',
      purpose: 'models',
      ...(target.signal ? { signal: target.signal } : {}),
    });
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (error instanceof Error && error.name === 'AbortError')
      throw new ProviderError('aborted', 'Cancelled.');
    throw new ProviderError('connection', 'Could not reach the provider (network error or CORS refused).');
  }
  if (!response.ok) throw errorFromStatus(response.status, await errorDetail(response), response.headers);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ProviderError('bad-request', 'The model list is not JSON: is the base URL right?');
  }
  return idsOf(body);
}
