import type { ChatMessage } from './chat.ts';
import type { LoadProgress, ModelRef } from './model.ts';

/**
 * The browser's own model (Chrome's Prompt API) as the conductor thread sees it. The API exists only on the
 * page (not in workers), so the page holds the model (src/conductor/prompt-api.ts) and the thread's engine
 * (workers/engines/prompt-api.ts) asks it to generate: planning, validation and repair stay in one place,
 * the thread's engine host, whatever runs the model. Inference itself runs in the browser's process.
 */

/** Chrome's model, named for people. */
export const BROWSER_MODEL_NAME = "Chrome's built-in model (Gemini Nano)";

export const BROWSER_MODEL: Extract<ModelRef, { engine: 'prompt-api' }> = { engine: 'prompt-api' };

/**
 * The languages the planner's prompts are written in, asked of `LanguageModel.availability()` and
 * `create()`. Chrome's model takes English, Spanish and Japanese (Chrome 140 and later).
 */
export const BROWSER_MODEL_LANGUAGES = ['en'] as const;

/** `LanguageModel.availability()`, or `no-api` where the browser has no `LanguageModel` at all. */
export type BrowserModelAvailability =
  | 'no-api'
  | 'unavailable'
  | 'downloadable'
  | 'downloading'
  | 'available';

export interface BrowserModelRequest {
  /** Names the call for `cancel`. */
  id: string;
  messages: ChatMessage[];
  /** The JSON Schema the answer must follow (`responseConstraint`). */
  jsonSchema?: Record<string, unknown>;
  /** The Prompt API has no output limit: the page stops reading after about this many tokens. */
  maxTokens: number;
}

export interface BrowserModelResult {
  text: string;
  promptTokens: number;
  /** Tokens of the kept session the call was cloned from (its prompt prefix, not processed again). */
  cachedPromptTokens: number;
  completionTokens: number;
  finishReason: 'stop' | 'length' | 'abort';
}

/** The page's half: what the thread's engine calls (through comlink) to use the browser's model. */
export interface BrowserModelHost {
  availability(): Promise<BrowserModelAvailability>;
  /** Makes sure a session can be created; refuses (never starts) a download, which needs the user's click. */
  ready(onProgress?: (progress: LoadProgress) => unknown): Promise<void>;
  generate(request: BrowserModelRequest, onText: (text: string) => unknown): Promise<BrowserModelResult>;
  cancel(id: string): void;
  /** Destroys the kept sessions (the model is unloaded, or the thread that used them is gone). */
  reset(): void;
}
