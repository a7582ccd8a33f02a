import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { ConductorError } from '../../src/shared/conductor-api.ts';
import { cspBlocked } from '../../src/shared/csp-violations.ts';
import { EngineError } from '../../src/shared/engine-errors.ts';
import { localServerUrlProblem } from '../../src/shared/loopback.ts';
import {
  type ConductorEngine,
  type GenerateRequest,
  type GenerateResult,
  type LoadProgress,
  type ModelRef,
  sameModel,
} from './engine.ts';

/**
 * A planner on an OpenAI-compatible server on this machine (Ollama, LM Studio, llama.cpp server, vLLM):
 * a 7B–32B model, or a released Conductor checkpoint, where the page holds only 1–4B. It speaks chat
 * completions with the plan's JSON Schema as `response_format: {type: 'json_schema', ...}`, which all four
 * accept (Ollama's OpenAI endpoint turns it into its native `format` since 0.5), streamed.
 *
 * Planning never leaves the device: every URL is checked to be loopback before anything is sent, and the
 * thread gives this engine a `fetch` that reports each request to the page's ledger as local planning.
 */

export type LocalServerModel = Extract<ModelRef, { engine: 'local-server' }>;

export interface LocalServerEngineOptions {
  /** Every request goes through it: the thread's reporting fetch (tests pass their own). */
  fetch: typeof fetch;
  /** Told the tokens of each chat request, with the response `fetch` gave (the ledger shows them). */
  onUsage?: (response: Response, usage: { promptTokens: number; completionTokens: number }) => void;
  /** Give up on the model list after this long (default 10 s): a server that accepts but never answers. */
  connectTimeoutMs?: number;
}

/** The only headers sent: a strict CORS preflight (LM Studio, vLLM) accepts these, and they name nothing of the machine. */
const KEPT_HEADERS = new Set(['content-type', 'accept']);

/** `fetch` with the SDK's own headers (`x-stainless-*`, user agent, retry count) dropped. */
function plainHeaders(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers();
    for (const [name, value] of new Headers(init?.headers))
      if (KEPT_HEADERS.has(name)) headers.set(name, value);
    return inner(input, { ...init, headers });
  };
}

/**
 * `fetch` that never follows a redirect: a loopback server answering 307 to another host would otherwise
 * send the prompt there (the body goes along with a 307).
 */
function noRedirects(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, { ...init, redirect: 'manual' });
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => {});
      const url = new URL(input instanceof Request ? input.url : String(input));
      const status = response.status ? ` (HTTP ${response.status})` : '';
      throw new EngineError(
        'EngineFailure',
        `The planner server at ${url.origin} answered with a redirect${status}: Baton does not follow it, ` +
          'so the prompt stays on this machine. Use the URL the server itself serves.',
      );
    }
    return response;
  };
}

/** Refuses a non-loopback base URL before any request exists. */
function checkLoopback(baseURL: string): void {
  const problem = localServerUrlProblem(baseURL);
  if (problem) throw new EngineError('InvalidModelError', problem);
}

function originOf(baseURL: string): string {
  return new URL(baseURL).origin;
}

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');

/**
 * A request that got no answer: the app's CSP blocked the origin (it lists http://localhost:* and
 * http://127.0.0.1:* only), or the server is not running there, or it does not allow this page (CORS).
 */
async function unreachable(baseURL: string, cause: unknown): Promise<EngineError> {
  const origin = originOf(baseURL);
  // The CSP violation event is queued as its own task: let it arrive before the cause is named.
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (cspBlocked(origin)) {
    return new EngineError(
      'ServerUnreachableError',
      `This app's Content-Security-Policy does not allow ${origin}: use http://localhost or ` +
        `http://127.0.0.1, or build the app with BATON_CONNECT_SRC="${origin}" (see "Allowing a custom host" in the README).`,
      { cause },
    );
  }
  const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new EngineError(
    'ServerUnreachableError',
    `The planner server at ${origin} did not answer${detail}: it is not running there, or it ` +
      'does not allow this page (CORS).',
    { cause },
  );
}

/** The server's own message from an error body (`{error: {message}}`, `{error: "..."}`), short. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | string | undefined;
  const raw =
    typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : error.message;
  return raw.replace(/^\d{3} /, '').slice(0, 300);
}

/** Maps an HTTP failure of the chat request to an engine error that says what to do. */
function statusError(model: LocalServerModel, error: APIError): EngineError {
  const message = serverMessage(error);
  const where = originOf(model.baseURL);
  if (error.status === 404) {
    return new EngineError(
      'InvalidModelError',
      `The planner server at ${where} has no model "${model.model}" (HTTP 404: ${message}).`,
    );
  }
  if (error.status === 401 || error.status === 403) {
    return new EngineError(
      'EngineFailure',
      `The planner server at ${where} wants an API key (HTTP ${error.status}): Baton sends it none, so start it without one.`,
    );
  }
  if (error.status === 400 || error.status === 422) {
    return new EngineError(
      'EngineFailure',
      `The planner server at ${where} refused the request (HTTP ${error.status}: ${message}); ` +
        'it may not support response_format json_schema (Ollama needs 0.5 or later).',
    );
  }
  return new EngineError(
    'EngineFailure',
    `The planner server at ${where} failed (HTTP ${error.status ?? 'error'}: ${message}).`,
  );
}

/** Model ids from `GET /models`: OpenAI's `{data: [{id}]}`, or `{models: [{id | name}]}`. */
function idsOf(body: unknown): string[] {
  const list = Array.isArray((body as { data?: unknown })?.data)
    ? (body as { data: unknown[] }).data
    : Array.isArray((body as { models?: unknown })?.models)
      ? (body as { models: unknown[] }).models
      : [];
  const ids = list.map((m) => {
    const item = m as { id?: unknown; name?: unknown };
    return typeof item?.id === 'string' ? item.id : typeof item?.name === 'string' ? item.name : undefined;
  });
  return [...new Set(ids.filter((id): id is string => Boolean(id)))].sort((a, b) => a.localeCompare(b));
}

/**
 * The model ids a local server lists (`GET {baseURL}/models`), sorted. Refuses a non-loopback URL.
 * Throws `ServerUnreachableError` when the server does not answer, `InvalidModelError` when the base URL
 * answers but is not an OpenAI-compatible API.
 */
export async function listServerModels(
  baseURL: string,
  fetchImpl: typeof fetch,
  timeoutMs = 10_000,
): Promise<string[]> {
  checkLoopback(baseURL);
  const base = trimSlash(baseURL);
  let response: Response;
  try {
    response = await noRedirects(fetchImpl)(`${base}/models`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw await unreachable(base, error);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new EngineError(
      'InvalidModelError',
      `${base}/models answered HTTP ${response.status}: is the base URL right? It usually ends in /v1.`,
    );
  }
  try {
    return idsOf(await response.json());
  } catch {
    throw new EngineError(
      'InvalidModelError',
      `${base}/models did not answer with a model list: is the base URL right? It usually ends in /v1.`,
    );
  }
}

/** Whether the server's list names `model` (Ollama lists `qwen2.5:latest` for `qwen2.5`). */
export function listed(ids: readonly string[], model: string): boolean {
  return ids.includes(model) || (!model.includes(':') && ids.includes(`${model}:latest`));
}

/**
 * Whether `model` can be used now, with nothing to download: the server answers and lists it (or lists
 * nothing, as a server that does not say). What "cached" means for a local server.
 */
export async function serverReady(model: LocalServerModel, fetchImpl: typeof fetch): Promise<boolean> {
  const ids = await listServerModels(model.baseURL, fetchImpl).catch(() => undefined);
  return ids !== undefined && (ids.length === 0 || listed(ids, model.model));
}

/** An OpenAI-compatible server on loopback as the conductor's engine. */
export function createLocalServerEngine(options: LocalServerEngineOptions): ConductorEngine {
  const fetchImpl = noRedirects(options.fetch);
  let current: LocalServerModel | undefined;
  let generation: AbortController | undefined;

  return {
    kind: 'local-server',
    loaded: () => current,

    /** Nothing to download: loading checks that the server answers and knows the model. */
    async load(model, onProgress: (progress: LoadProgress) => void) {
      if (model.engine !== 'local-server') {
        throw new EngineError('InvalidModelError', 'Not a local server model');
      }
      checkLoopback(model.baseURL);
      if (!model.model.trim()) {
        throw new EngineError('InvalidModelError', 'Enter the model id the server knows (e.g. qwen2.5:14b).');
      }
      if (sameModel(current, model)) return;
      current = undefined;
      onProgress({ phase: 'init', fraction: 0, text: `Asking ${originOf(model.baseURL)} for its models` });
      const ids = await listServerModels(model.baseURL, fetchImpl, options.connectTimeoutMs);
      if (ids.length > 0 && !listed(ids, model.model)) {
        const shown = ids.slice(0, 12).join(', ') + (ids.length > 12 ? ', …' : '');
        throw new EngineError(
          'InvalidModelError',
          `The planner server at ${originOf(model.baseURL)} has no model "${model.model}"; it has: ${shown}.`,
        );
      }
      onProgress({ phase: 'init', fraction: 1, text: `Connected to ${originOf(model.baseURL)}` });
      current = model;
    },

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const model = current;
      if (!model) throw new ConductorError('ModelNotLoaded', 'No model is loaded');
      checkLoopback(model.baseURL);
      const controller = new AbortController();
      generation = controller;
      const onAbort = () => controller.abort();
      if (request.signal.aborted) controller.abort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      const client = new OpenAI({
        apiKey: 'none',
        baseURL: trimSlash(model.baseURL),
        maxRetries: 0,
        dangerouslyAllowBrowser: true,
        logLevel: 'off',
        defaultHeaders: { Authorization: null },
        fetch: plainHeaders(fetchImpl),
      });
      let text = '';
      let pieces = 0;
      let finishReason: GenerateResult['finishReason'] = 'stop';
      let usage:
        | {
            prompt_tokens: number;
            completion_tokens: number;
            prompt_tokens_details?: { cached_tokens?: number } | null;
          }
        | undefined;
      const started = performance.now();
      let firstAt: number | undefined;
      try {
        const { data: stream, response } = await client.chat.completions
          .create(
            {
              model: model.model,
              messages: request.messages,
              stream: true,
              stream_options: { include_usage: true },
              max_tokens: request.maxTokens,
              temperature: request.temperature,
              ...(request.jsonSchema
                ? {
                    response_format: {
                      type: 'json_schema' as const,
                      json_schema: { name: 'plan', schema: request.jsonSchema, strict: true },
                    },
                  }
                : {}),
            },
            { signal: controller.signal },
          )
          .withResponse();
        for await (const chunk of stream) {
          if (chunk.usage) {
            usage = chunk.usage;
            options.onUsage?.(response, {
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
            });
          }
          const choice = chunk.choices[0];
          const piece = choice?.delta?.content;
          if (piece) {
            firstAt ??= performance.now();
            text += piece;
            pieces++;
            request.onToken(piece);
          }
          if (choice?.finish_reason === 'length') finishReason = 'length';
        }
        // The SDK's stream ends quietly when its signal aborts.
        if (controller.signal.aborted) finishReason = 'abort';
      } catch (error) {
        if (controller.signal.aborted || error instanceof APIUserAbortError) {
          finishReason = 'abort';
        } else if (error instanceof APIConnectionError) {
          const cause = (error as { cause?: unknown }).cause;
          // A redirect refused by our own fetch: the SDK wraps what fetch throws.
          if (cause instanceof EngineError) throw cause;
          throw await unreachable(model.baseURL, cause ?? error);
        } else if (error instanceof APIError && error.status !== undefined) {
          throw statusError(model, error);
        } else {
          const message = error instanceof Error ? error.message : String(error);
          throw new EngineError(
            'EngineFailure',
            `The planner server at ${originOf(model.baseURL)} broke off its answer: ${message}`,
          );
        }
      } finally {
        request.signal.removeEventListener('abort', onAbort);
        if (generation === controller) generation = undefined;
      }
      const ended = performance.now();
      const result: GenerateResult = {
        text,
        promptTokens: usage?.prompt_tokens ?? 0,
        completionTokens: usage?.completion_tokens ?? pieces,
        finishReason,
      };
      // The server keeps the prompt prefix itself (llama.cpp server's cache_prompt, vLLM's prefix caching,
      // Ollama's and LM Studio's kept context): where it says how much it reused, it is in the stats.
      const cached = usage?.prompt_tokens_details?.cached_tokens;
      if (typeof cached === 'number') result.cachedPromptTokens = cached;
      // Seen from the page: time to the first token includes the server's queue, so prefill is a floor.
      if (firstAt !== undefined && usage?.prompt_tokens && firstAt > started) {
        result.prefillTokensPerSec = usage.prompt_tokens / ((firstAt - started) / 1000);
      }
      if (firstAt !== undefined && result.completionTokens > 1 && ended > firstAt) {
        result.decodeTokensPerSec = (result.completionTokens - 1) / ((ended - firstAt) / 1000);
      }
      return result;
    },

    interrupt() {
      generation?.abort();
    },

    async unload() {
      generation?.abort();
      current = undefined;
    },
  };
}
