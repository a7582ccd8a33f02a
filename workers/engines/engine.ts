import type { ChatMessage } from '../../src/shared/chat.ts';
import type { LoadProgress, ModelRef } from '../../src/shared/model.ts';

// The engine interface speaks these; thread code may import them from here or from src/shared/model.ts.
export type { LoadProgress, ModelRef };

/** Whether two refs name the same loaded model: same engine and files (wllama: and threads; a local server: URL and model). */
export function sameModel(a: ModelRef | undefined, b: ModelRef): boolean {
  if (!a) return false;
  if (a.engine === 'wllama') return b.engine === 'wllama' && a.url === b.url && a.threads === b.threads;
  if (a.engine === 'prompt-api') return b.engine === 'prompt-api';
  if (a.engine === 'local-server') {
    return b.engine === 'local-server' && a.baseURL === b.baseURL && a.model === b.model;
  }
  return (
    b.engine === 'webllm' &&
    a.modelId === b.modelId &&
    a.modelUrl === b.modelUrl &&
    a.modelLibUrl === b.modelLibUrl
  );
}

export interface GenerateRequest {
  messages: ChatMessage[];
  /** A JSON Schema the output must follow (constrained decoding). */
  jsonSchema?: Record<string, unknown>;
  maxTokens: number;
  temperature: number;
  signal: AbortSignal;
  /** Called with each decoded piece of text as it is produced. */
  onToken: (text: string) => void;
}

export interface GenerateResult {
  text: string;
  promptTokens: number;
  /** Prompt tokens the engine did not prefill again: a kept prefix (llama.cpp's cache, a cloned session). */
  cachedPromptTokens?: number;
  completionTokens: number;
  prefillTokensPerSec?: number;
  decodeTokensPerSec?: number;
  finishReason: 'stop' | 'length' | 'abort';
}

/**
 * One interface for every engine (WebLLM on WebGPU, wllama on the CPU, a local server on loopback), as web-llm's
 * MLCEngineInterface is one interface for its in-process and worker engines: callers do not care which.
 */
export interface ConductorEngine {
  readonly kind: ModelRef['engine'];
  load(model: ModelRef, onProgress: (progress: LoadProgress) => void): Promise<void>;
  /** The model currently loaded, if any. */
  loaded(): ModelRef | undefined;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Stops the current generation as soon as the engine allows. */
  interrupt(): void;
  unload(): Promise<void>;
  /** Whether the model's files are already in the browser cache (so loading needs no network). */
  isCached?(model: ModelRef): Promise<boolean>;
  /** Deletes the model's cached files. */
  deleteCached?(model: ModelRef): Promise<void>;
}
