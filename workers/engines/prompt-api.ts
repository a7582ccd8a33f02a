import type { BrowserModelHost } from '../../src/shared/browser-model.ts';
import { ConductorError } from '../../src/shared/conductor-api.ts';
import { EngineError, isEngineErrorName } from '../../src/shared/engine-errors.ts';
import type { ConductorEngine, GenerateRequest, GenerateResult, LoadProgress, ModelRef } from './engine.ts';

/**
 * The browser's own model (Chrome's Prompt API) as one of the thread's engines. The API is not exposed in
 * workers, so the page runs the model (src/conductor/prompt-api.ts) and this engine asks it to, through the
 * host the bridge hands the thread; the engine host plans with it as with any engine.
 */

export interface PromptApiEngineOptions {
  /** The page's half, or undefined while no page has offered one. */
  host: () => BrowserModelHost | undefined;
  /** Wraps a callback so it can cross to the page (comlink's `proxy` in the thread; tests pass it as is). */
  callback?: <T extends (...args: never[]) => unknown>(fn: T) => T;
}

/** An error from the page arrives by name only (across comlink): rebuilt as the engine error it was. */
function fromPage(error: unknown): Error {
  if (error instanceof EngineError) return error;
  const e = error as { name?: string; message?: string };
  const name = e.name && isEngineErrorName(e.name) ? e.name : 'EngineFailure';
  return new EngineError(name, e.message ?? String(error));
}

export function createPromptApiEngine(options: PromptApiEngineOptions): ConductorEngine {
  const wrap = options.callback ?? (<T>(fn: T) => fn);
  let current: ModelRef | undefined;
  let running: string | undefined;

  function host(): BrowserModelHost {
    const page = options.host();
    if (!page) {
      throw new EngineError(
        'BrowserModelUnavailableError',
        "The page has not offered Chrome's built-in model to the conductor.",
      );
    }
    return page;
  }

  return {
    kind: 'prompt-api',
    loaded: () => current,

    async load(model, onProgress: (progress: LoadProgress) => void) {
      if (model.engine !== 'prompt-api') throw new EngineError('InvalidModelError', 'Not the browser model');
      current = undefined;
      try {
        await host().ready(wrap(onProgress));
      } catch (error) {
        throw fromPage(error);
      }
      current = model;
    },

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      if (!current) throw new ConductorError('ModelNotLoaded', 'No model is loaded');
      const page = host();
      const id = crypto.randomUUID();
      running = id;
      const onAbort = () => page.cancel(id);
      request.signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (request.signal.aborted)
          return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'abort' };
        const result = await page.generate(
          {
            id,
            messages: request.messages,
            maxTokens: request.maxTokens,
            ...(request.jsonSchema ? { jsonSchema: request.jsonSchema } : {}),
          },
          wrap((text: string) => request.onToken(text)),
        );
        return result;
      } catch (error) {
        throw fromPage(error);
      } finally {
        request.signal.removeEventListener('abort', onAbort);
        if (running === id) running = undefined;
      }
    },

    interrupt() {
      if (running) options.host()?.cancel(running);
    },

    async unload() {
      current = undefined;
      options.host()?.reset();
    },
  };
}
