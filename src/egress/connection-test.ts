/**
 * "Test connection": sends what a step sends (a streamed chat request for the model, through the same
 * transport a step uses, so the same dialect, headers and preflight), stopped at its first token, and
 * when it fails tells the causes apart with a specific message each: not running, running without CORS,
 * wrong key, wrong model, wrong path, and the rest. Listing models alone proves little: a server can list
 * a model and still refuse every step (a field it rejects, a header its preflight does not allow).
 */

import { isLoopback, type ProviderPreset, presetById } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import type { BatonRequestInit, ChatTransport } from '../providers/transport.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { chatTransports } from './chat-transports.ts';
import { listModels } from './discovery.ts';
import type { Egress } from './egress.ts';
import { diagnoseUnreachable, UnreachableError } from './unreachable.ts';

export type ConnectionProblem =
  | 'no-key'
  | 'bad-key'
  | 'forbidden'
  | 'cors'
  | 'local-cors'
  | 'unreachable'
  | 'unreachable-or-cors'
  | 'unknown-model'
  | 'wrong-path'
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
  /** When given, a streamed chat request to it is what is tested; else the model list. */
  model?: string;
  signal?: AbortSignal;
  /** Put in the CORS hints (`OLLAMA_ORIGINS=<origin>`); defaults to the page's origin. */
  pageOrigin?: string;
}

export interface ConnectionTestOptions {
  /** The transport a step of this worker would use. Default: `chatTransports(egress)`, as a run's. */
  transportFor?: (worker: WorkerSpec) => ChatTransport;
  /**
   * Whether a no-cors probe that fails proves nothing is listening. False on a page whose COEP is
   * `require-corp` (there an answer without a Cross-Origin-Resource-Policy header fails too); true when
   * the page is not cross-origin isolated or its COEP is `credentialless`. Default: from the page.
   */
  probeConclusive?: boolean;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

/** The preset's own hint for letting this page call it (CORS). */
function corsHintFor(preset: ProviderPreset | undefined, pageOrigin: string): string | undefined {
  return preset?.corsHint?.replaceAll('<this page origin>', pageOrigin);
}

/**
 * Chrome's local-network prompt, where it applies: a page served from a public https origin that calls
 * http://localhost asks the user first (Chrome 142+), and a refused prompt looks like a dead port.
 */
function localNetworkHint(pageOrigin: string, baseURL: string): string | undefined {
  let publicPage = false;
  try {
    const page = new URL(pageOrigin);
    publicPage = page.protocol === 'https:' && !isLoopback(page.href);
  } catch {
    publicPage = false;
  }
  if (!publicPage || !isLoopback(baseURL)) return undefined;
  return (
    'Chrome 142 and later ask before a web page may reach a server on your own computer or network: ' +
    'allow "local network access" for this site when asked (or in the site settings by the address bar).'
  );
}

/** The hints joined, or undefined when there is none. */
function hints(...parts: (string | undefined)[]): string | undefined {
  const given = parts.filter((p): p is string => Boolean(p));
  return given.length > 0 ? given.join(' ') : undefined;
}

/** The egress a connection test's chat request goes through: its own ledger purpose, no run or step. */
function forConnectionTest(egress: Pick<Egress, 'fetchFor'>): Pick<Egress, 'fetchFor'> {
  return {
    fetchFor(target) {
      const inner = egress.fetchFor({ ...target, purpose: 'connection-test' });
      return (input, init) => {
        const { baton: _baton, ...rest } = (init ?? {}) as BatonRequestInit;
        return inner(input, rest);
      };
    },
  };
}

/** Whether a 400's text says the model is unknown (rather than some other field being wrong). */
function namesUnknownModel(detail: string, model: string | undefined): boolean {
  if (/invalid model|not a valid model|unknown model|model[^.]*(not found|does not exist)/i.test(detail))
    return true;
  return model !== undefined && model.length > 0 && detail.includes(model) && /model/i.test(detail);
}

/** What the provider said, without the "Provider error (404): " our messages start with. */
function detailOf(error: ProviderError): string {
  return error.message.replace(/^[^:]*\(\d{3}\):?\s*/, '').trim();
}

const said = (detail: string) => (detail ? ` The provider said: "${detail}"` : '');

/** The chat request a step would send, stopped at its first token. Resolves undefined on success. */
async function sendFirstToken(
  transport: ChatTransport,
  worker: WorkerSpec,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const controller = new AbortController();
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  signal?.addEventListener('abort', forward, { once: true });
  try {
    const events = transport.stream(worker, {
      messages: [{ role: 'user', content: 'Reply with OK.' }],
      signal: controller.signal,
      runId: '',
      stepIndex: 0,
    });
    // The first token (or reasoning) proves the whole path; the rest of the answer is not worth paying for.
    for await (const event of events) if (event.type === 'delta' || event.type === 'reasoning') break;
    return undefined;
  } catch (error) {
    // An answer that ended without text still came back through the whole path.
    if (error instanceof ProviderError && error.kind === 'empty') return undefined;
    return error;
  } finally {
    signal?.removeEventListener('abort', forward);
  }
}

export async function testConnection(
  egress: Egress,
  target: ConnectionTarget,
  options: ConnectionTestOptions = {},
): Promise<ConnectionResult> {
  const preset = presetById(target.providerId);
  const name = preset?.name ?? target.providerId;
  const pageOrigin =
    target.pageOrigin ?? (typeof location !== 'undefined' ? location.origin : '<this page origin>');
  const { signal } = target;
  try {
    new URL(target.baseURL);
  } catch {
    return { ok: false, problem: 'refused', message: 'The base URL is not a valid URL.' };
  }
  const host = hostOf(target.baseURL);
  const hint = hints(corsHintFor(preset, pageOrigin), localNetworkHint(pageOrigin, target.baseURL));
  const withHint = (result: ConnectionResult): ConnectionResult =>
    hint && !result.ok ? { ...result, hint } : result;

  /** The models the base URL lists, or why not (`not-found`: nothing answers there at /models). */
  const modelsHere = async (): Promise<string[] | 'not-found' | 'unknown'> => {
    if (preset?.hasModelsEndpoint === false) return 'unknown';
    try {
      return await listModels(egress, {
        providerId: target.providerId,
        baseURL: target.baseURL,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      return error instanceof ProviderError && error.status === 404 ? 'not-found' : 'unknown';
    }
  };

  /** A 401: no key saved for the host, or the key was rejected. */
  const unauthorized = async (detail: string): Promise<ConnectionResult> => {
    if (!(await egress.hasKey(target))) {
      return {
        ok: false,
        problem: 'no-key',
        status: 401,
        message: `${name} at ${host} asks for a key (401), and no key is saved for ${host}: add one in Settings → API keys.`,
      };
    }
    // Anthropic answers 401 to a browser request that did not opt in: that is about CORS, not the key.
    if (/\bCORS\b|browser-access|browser access/i.test(detail))
      return withHint({
        ok: false,
        problem: 'cors',
        status: 401,
        message: `${name} refused the request because it came from a web page (401).${said(detail)}`,
      });
    return {
      ok: false,
      problem: 'bad-key',
      status: 401,
      message: `${name} rejected the key (401): check that it is the right key for ${host}, and not revoked.${said(detail)}`,
    };
  };

  /** A 404 to the chat route: the model is unknown, or nothing is at that path (the base URL is wrong). */
  const notFound = async (detail: string, status = 404): Promise<ConnectionResult> => {
    const models = await modelsHere();
    const modelNamed = /model/i.test(detail);
    if (Array.isArray(models) || modelNamed || status !== 404) {
      const listed =
        Array.isArray(models) && models.length > 0
          ? ` It lists: ${models.slice(0, 8).join(', ')}${models.length > 8 ? ', …' : ''}.`
          : '';
      return {
        ok: false,
        problem: 'unknown-model',
        status,
        message: `${name} answers at this base URL but does not know the model "${target.model}" (${status}).${listed}${said(detail)}`,
      };
    }
    return {
      ok: false,
      problem: 'wrong-path',
      status: 404,
      message: `Nothing at ${target.baseURL.replace(/\/+$/, '')}/chat/completions (404): the server answers at ${host}, but the base URL's path is wrong (OpenAI-compatible servers usually end it in /v1).${said(detail)}`,
    };
  };

  /**
   * No readable response at all: nothing listening, or an answer the browser hid (no CORS). Egress has
   * said which for its own requests (`UnreachableError`, the same words a step's error has); else it is
   * found out here, the same way. The CORS hint only where CORS may be the cause.
   */
  const unreadable = async (error: ProviderError): Promise<ConnectionResult> => {
    let found: UnreachableError;
    if (error instanceof UnreachableError && options.probeConclusive === undefined) found = error;
    else {
      try {
        found = await diagnoseUnreachable({
          preset,
          providerId: target.providerId,
          baseURL: target.baseURL,
          probe: () => egress.probe({ providerId: target.providerId, baseURL: target.baseURL }, signal),
          ...(options.probeConclusive !== undefined ? { probeConclusive: options.probeConclusive } : {}),
        });
      } catch {
        return { ok: false, problem: 'aborted', message: 'Cancelled.' };
      }
    }
    const shown = hints(
      found.corsMayHelp ? corsHintFor(preset, pageOrigin) : undefined,
      localNetworkHint(pageOrigin, target.baseURL),
    );
    return { ok: false, problem: found.problem, message: found.message, ...(shown ? { hint: shown } : {}) };
  };

  const classify = async (error: unknown): Promise<ConnectionResult> => {
    if (error instanceof Error && error.name === 'AbortError')
      return { ok: false, problem: 'aborted', message: 'Cancelled.' };
    if (!(error instanceof ProviderError))
      return unreadable(
        new ProviderError('connection', error instanceof Error ? error.message : String(error)),
      );
    const detail = detailOf(error);
    if (error.kind === 'aborted') return { ok: false, problem: 'aborted', message: 'Cancelled.' };
    if (error.kind === 'refused') return { ok: false, problem: 'refused', message: error.message };
    // A redirect, a web page: its own message says what came back and what to change.
    if (error.kind === 'unexpected-response')
      return { ok: false, problem: 'bad-request', message: error.message };
    if (error.status === 401) return unauthorized(detail);
    if (error.kind === 'auth' && error.status === undefined)
      return { ok: false, problem: 'no-key', message: error.message };
    if (error.status === 403)
      return withHint({
        ok: false,
        problem: 'forbidden',
        status: 403,
        message: `${name} accepted the key but refused access (403): check the key's permissions, billing or organisation settings.${said(detail)}`,
      });
    if (error.status === 404) return notFound(detail);
    if (error.status === 429)
      return {
        ok: false,
        problem: 'rate-limit',
        status: 429,
        message: `The key works, but ${name} is rate limiting it (429).${said(detail)}`,
      };
    if (error.status !== undefined && error.status >= 500)
      return {
        ok: false,
        problem: 'server',
        status: error.status,
        message: `${name} had an error (${error.status}); try again later.${said(detail)}`,
      };
    // Mistral ("Invalid model: x") and OpenRouter ("x is not a valid model ID") say 400, not 404.
    if (error.status === 400 && namesUnknownModel(detail, target.model)) return notFound(detail, 400);
    if (error.status !== undefined)
      return {
        ok: false,
        problem: 'bad-request',
        status: error.status,
        message: `${name} rejected the request a step would send (${error.status}).${said(detail)}`,
      };
    if (error.kind === 'connection') return unreadable(error);
    // A redirect, a web page, a broken stream: its own message says what came back.
    return { ok: false, problem: 'bad-request', message: error.message };
  };

  if (!target.model) {
    try {
      const models = await listModels(egress, {
        providerId: target.providerId,
        baseURL: target.baseURL,
        ...(signal ? { signal } : {}),
      });
      return { ok: true, message: `Connected to ${name}: ${models.length} models.`, models };
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'not-found' && error.status === undefined)
        return { ok: true, message: `${name} is configured; choose a model to test it.` };
      if (error instanceof ProviderError && error.status === 404)
        return {
          ok: false,
          problem: 'wrong-path',
          status: 404,
          message: `Nothing at ${target.baseURL.replace(/\/+$/, '')}/models (404): is the base URL right?${said(detailOf(error))}`,
        };
      return classify(error);
    }
  }

  const worker: WorkerSpec = {
    id: 'connection-test',
    label: 'Connection test',
    strengths: '',
    providerId: target.providerId,
    baseURL: target.baseURL,
    model: target.model,
    maxConcurrency: 1,
    enabled: true,
  };
  const transportFor = options.transportFor ?? chatTransports(forConnectionTest(egress));
  const failure = await sendFirstToken(transportFor(worker), worker, signal);
  if (failure !== undefined) return classify(failure);
  const models = await modelsHere();
  return {
    ok: true,
    message: `Connected to ${name}: "${target.model}" answered a streamed request, as a step sends it.`,
    ...(Array.isArray(models) ? { models } : {}),
  };
}
