/** Model discovery: `GET {baseURL}/models` through egress, for presets that have it. */

import { presetById } from '../providers/catalog.ts';
import { dialectOf, type ModelsShape } from '../providers/dialects.ts';
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

/** Anthropic pages its list (default 20 a page, at most 1000): ask for the most, follow `last_id` a few times. */
const ANTHROPIC_PAGE = 1000;
const MAX_PAGES = 10;

function idsOf(body: unknown, shape: ModelsShape = 'openai'): string[] {
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
    // Gemini lists `models/gemini-2.5-flash`; its chat endpoint wants `gemini-2.5-flash`.
    .map((id) => (shape === 'gemini' && id?.startsWith('models/') ? id.slice('models/'.length) : id))
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
  const shape = dialectOf(target.providerId).modelsShape;
  if (shape !== 'anthropic') return idsOf(await modelsPage(egress, target, '/models'), shape);
  // Anthropic: `{ data: [{ id, display_name }], has_more, last_id }`, paged with `after_id`.
  const ids: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = `?limit=${ANTHROPIC_PAGE}${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
    const body = (await modelsPage(egress, target, `/models${query}`)) as {
      has_more?: unknown;
      last_id?: unknown;
    };
    ids.push(...idsOf(body, shape));
    if (body?.has_more !== true || typeof body.last_id !== 'string' || body.last_id === after) break;
    after = body.last_id;
  }
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}

/** One `GET {baseURL}{path}` of the model list, parsed. */
async function modelsPage(egress: Egress, target: DiscoveryTarget, path: string): Promise<unknown> {
  let response: Response;
  try {
    response = await egress.request({
      providerId: target.providerId,
      baseURL: target.baseURL,
      path,
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
  return body;
}
