import {
  BROWSER_MODEL_LANGUAGES,
  BROWSER_MODEL_NAME,
  type BrowserModelAvailability,
  type BrowserModelHost,
  type BrowserModelRequest,
  type BrowserModelResult,
} from '../shared/browser-model.ts';
import type { ChatMessage } from '../shared/chat.ts';
import { EngineError } from '../shared/engine-errors.ts';
import type { LoadProgress } from '../shared/model.ts';

/**
 * The browser's own model through Chrome's Prompt API (`LanguageModel`), on the page: the API is exposed to
 * windows only, not to workers. That costs the page nothing while it plans: inference runs in the browser's
 * own process, and here the page only awaits a stream. Followed from the explainer
 * (github.com/webmachinelearning/prompt-api) and developer.chrome.com/docs/ai/prompt-api.
 *
 * Prefix reuse: a session is created once with the planner's system prompt and few-shot turns as
 * `initialPrompts`, kept, and `clone()`d for each question, so a second question to the same pool
 * processes only itself.
 */

/** A message as the Prompt API takes it (text only). */
interface LanguageModelMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface ExpectedIO {
  type: 'text';
  languages?: readonly string[];
}

export interface LanguageModelCreateOptions {
  initialPrompts?: LanguageModelMessage[];
  expectedInputs?: ExpectedIO[];
  expectedOutputs?: ExpectedIO[];
  signal?: AbortSignal;
  monitor?: (monitor: EventTarget) => void;
}

interface PromptOptions {
  responseConstraint?: Record<string, unknown>;
  /** Leaves the constraint's description out of the input: the decoding still follows it. */
  omitResponseConstraintInput?: boolean;
  signal?: AbortSignal;
}

/** A session, as Chrome 148 names its members; the names before it (`inputQuota`...) are read too. */
export interface LanguageModelSession {
  readonly contextUsage?: number;
  readonly contextWindow?: number;
  readonly inputUsage?: number;
  readonly inputQuota?: number;
  promptStreaming(input: string | LanguageModelMessage[], options?: PromptOptions): ReadableStream<string>;
  measureContextUsage?(input: string | LanguageModelMessage[], options?: PromptOptions): Promise<number>;
  measureInputUsage?(input: string | LanguageModelMessage[], options?: PromptOptions): Promise<number>;
  clone(options?: { signal?: AbortSignal }): Promise<LanguageModelSession>;
  destroy(): void;
}

export interface LanguageModelStatic {
  availability(options?: LanguageModelCreateOptions): Promise<Exclude<BrowserModelAvailability, 'no-api'>>;
  create(options?: LanguageModelCreateOptions): Promise<LanguageModelSession>;
}

/** What the Start screen says of the model's needs (developer.chrome.com/docs/ai/prompt-api, Chrome 148). */
export const BROWSER_MODEL_NEEDS =
  'Chrome 148 or later on Windows, macOS, Linux or a Chromebook Plus, 22 GB of free disk for the model, ' +
  'and 16 GB of memory with 4 CPU cores or a GPU with more than 4 GB';

const EXPECTED = {
  expectedInputs: [{ type: 'text' as const, languages: BROWSER_MODEL_LANGUAGES }],
  expectedOutputs: [{ type: 'text' as const, languages: BROWSER_MODEL_LANGUAGES }],
};

function globalLanguageModel(): LanguageModelStatic | undefined {
  return (globalThis as { LanguageModel?: LanguageModelStatic }).LanguageModel;
}

const contextUsage = (s: LanguageModelSession) => s.contextUsage ?? s.inputUsage;
const contextWindow = (s: LanguageModelSession) => s.contextWindow ?? s.inputQuota;

function measure(
  session: LanguageModelSession,
  input: string | LanguageModelMessage[],
  options: PromptOptions,
): Promise<number | undefined> {
  const measureFn = session.measureContextUsage ?? session.measureInputUsage;
  return measureFn ? measureFn.call(session, input, options) : Promise.resolve(undefined);
}

/** The planner's prompts carry no tokens in the Prompt API: about four characters a token, as for English. */
const approxTokens = (text: string) => Math.ceil(text.length / 4);

function tooLong(requested: number | undefined, window: number | undefined): EngineError {
  const sizes =
    requested !== undefined && window !== undefined
      ? `: they need ${requested} tokens and it takes ${window}`
      : window !== undefined
        ? `: it takes ${window} tokens`
        : '';
  return new EngineError(
    'InputTooLongError',
    `The question and the planner's instructions do not fit ${BROWSER_MODEL_NAME}${sizes}.`,
  );
}

/** Maps what the Prompt API threw to an engine error by meaning (its DOMException names are documented). */
function toEngineError(error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  const e = error as {
    name?: string;
    message?: string;
    requested?: number;
    quota?: number;
    contextWindow?: number;
  };
  const detail = e.message ? `: ${e.message}` : '';
  switch (e.name) {
    case 'QuotaExceededError':
      return tooLong(e.requested, e.contextWindow ?? e.quota);
    case 'NotSupportedError':
      return new EngineError(
        'UnsupportedLanguageError',
        `${BROWSER_MODEL_NAME} does not take this input${detail} (it reads English, Spanish and Japanese).`,
      );
    case 'NetworkError':
      return new EngineError('ModelFetchError', `Chrome could not download its model${detail}.`);
    case 'NotAllowedError':
      return new EngineError(
        'BrowserModelUnavailableError',
        `Chrome did not allow its model to start${detail}: it downloads only after a click on this page.`,
      );
    case 'AbortError':
    case 'InvalidStateError':
      return new EngineError(
        'SessionLostError',
        `Chrome ended the model's session while it answered${detail}.`,
      );
    default:
      return new EngineError('EngineFailure', `${BROWSER_MODEL_NAME} failed${detail}`);
  }
}

/** The system prompt and earlier turns a kept session holds, and the session. */
interface KeptPrefix {
  key: string;
  count: number;
  session: Promise<LanguageModelSession>;
}

export interface PromptApiHost extends BrowserModelHost {
  /**
   * Has Chrome download its model, reporting progress. Only from the user's click: Chrome starts a
   * download only with a user activation, and Baton never starts a multi-GB download unasked.
   */
  download(onProgress: (progress: LoadProgress) => void): Promise<void>;
}

export function createPromptApiHost(
  api: LanguageModelStatic | undefined = globalLanguageModel(),
): PromptApiHost {
  const calls = new Map<string, AbortController>();
  let kept: KeptPrefix | undefined;

  function dropKept(): void {
    const old = kept;
    kept = undefined;
    void old?.session.then((s) => s.destroy()).catch(() => {});
  }

  async function availability(): Promise<BrowserModelAvailability> {
    if (!api) return 'no-api';
    try {
      return await api.availability(EXPECTED);
    } catch {
      return 'unavailable';
    }
  }

  /**
   * A session holding every message before the last user turn that starts `messages`, reused when the
   * same prefix comes again, and the messages after it (what a call prompts with).
   */
  function prefixFor(messages: readonly ChatMessage[]): { base: KeptPrefix; rest: ChatMessage[] } {
    if (!api)
      throw new EngineError('BrowserModelUnavailableError', `${BROWSER_MODEL_NAME} is not in this browser.`);
    if (kept && kept.count < messages.length) {
      const head = JSON.stringify(messages.slice(0, kept.count));
      if (head === kept.key) return { base: kept, rest: messages.slice(kept.count) };
    }
    // The prefix: everything before the last user message (system prompt, few-shot turns).
    let last = messages.length - 1;
    while (last > 0 && messages[last]?.role !== 'user') last--;
    const initial = messages.slice(0, last);
    const key = JSON.stringify(initial);
    dropKept();
    const session = api.create({ ...EXPECTED, initialPrompts: initial.map((m) => ({ ...m })) });
    session.catch(() => {});
    kept = { key, count: initial.length, session };
    return { base: kept, rest: messages.slice(last) };
  }

  return {
    availability,

    async ready(onProgress) {
      const state = await availability();
      if (state === 'available') {
        void onProgress?.({ phase: 'init', fraction: 1, text: `${BROWSER_MODEL_NAME} is ready` });
        return;
      }
      if (state === 'no-api') {
        throw new EngineError(
          'BrowserModelUnavailableError',
          `This browser has no built-in model (the Prompt API needs ${BROWSER_MODEL_NEEDS}).`,
        );
      }
      if (state === 'unavailable') {
        throw new EngineError(
          'BrowserModelUnavailableError',
          `Chrome says its built-in model is unavailable on this device (it needs ${BROWSER_MODEL_NEEDS}).`,
        );
      }
      throw new EngineError(
        'BrowserModelUnavailableError',
        `Chrome has not downloaded its model yet${state === 'downloading' ? ' (a download is under way)' : ''}: ` +
          `start it with "Download Chrome's model" on Start.`,
      );
    },

    async download(onProgress) {
      if (!api)
        throw new EngineError(
          'BrowserModelUnavailableError',
          `${BROWSER_MODEL_NAME} is not in this browser.`,
        );
      try {
        const session = await api.create({
          ...EXPECTED,
          monitor(monitor) {
            monitor.addEventListener('downloadprogress', (event) => {
              const loaded = (event as ProgressEvent).loaded;
              onProgress({
                phase: 'download',
                fraction: loaded,
                text: `Chrome is downloading its model: ${Math.round(loaded * 100)}%`,
              });
            });
          },
        });
        session.destroy();
      } catch (error) {
        throw toEngineError(error);
      }
    },

    async generate(request: BrowserModelRequest, onText): Promise<BrowserModelResult> {
      const controller = new AbortController();
      calls.set(request.id, controller);
      const { signal } = controller;
      let session: LanguageModelSession | undefined;
      let text = '';
      let finishReason: BrowserModelResult['finishReason'] = 'stop';
      try {
        const { base, rest } = prefixFor(request.messages);
        let baseSession: LanguageModelSession;
        try {
          baseSession = await base.session;
        } catch (error) {
          if (kept === base) kept = undefined;
          throw error;
        }
        session = await baseSession.clone({ signal });
        const cached = contextUsage(session) ?? 0;
        const input: string | LanguageModelMessage[] =
          rest.length === 1 && rest[0]?.role === 'user' ? rest[0].content : rest.map((m) => ({ ...m }));
        const options: PromptOptions = { signal };
        if (request.jsonSchema) {
          options.responseConstraint = request.jsonSchema;
          // Chrome adds a description of the constraint to each prompt's input unless it is omitted (MDN,
          // LanguageModel.promptStreaming()): that would be prefilled again for every question, outside the
          // kept prefix. The prefix already says what to write ("Reply with JSON only", the example plans).
          options.omitResponseConstraintInput = true;
        }
        const needed = await measure(session, input, options);
        const window = contextWindow(session);
        // A clone holds only its initial prompts, which are never evicted: a prompt beyond the window is
        // refused (QuotaExceededError). Measured first, it is refused before anything is generated.
        if (needed !== undefined && window !== undefined && cached + needed > window) {
          throw tooLong(cached + needed, window);
        }
        const reader = session.promptStreaming(input, options).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += value;
          void Promise.resolve(onText(value)).catch(() => {});
          if (approxTokens(text) >= request.maxTokens) {
            finishReason = 'length';
            controller.abort();
            break;
          }
        }
        const used = contextUsage(session);
        const prompt = cached + (needed ?? approxTokens(JSON.stringify(input)));
        return {
          text,
          promptTokens: prompt,
          cachedPromptTokens: cached,
          completionTokens: used !== undefined && used > prompt ? used - prompt : approxTokens(text),
          finishReason,
        };
      } catch (error) {
        if (signal.aborted) {
          return {
            text,
            promptTokens: 0,
            cachedPromptTokens: 0,
            completionTokens: approxTokens(text),
            finishReason: finishReason === 'length' ? 'length' : 'abort',
          };
        }
        const mapped = toEngineError(error);
        // A session that went away cannot be cloned again: the next call creates the prefix anew.
        if (mapped.name === 'SessionLostError') dropKept();
        throw mapped;
      } finally {
        calls.delete(request.id);
        session?.destroy();
      }
    },

    cancel(id) {
      calls.get(id)?.abort();
    },

    reset() {
      for (const controller of calls.values()) controller.abort();
      dropKept();
    },
  };
}
