import type { ChatMessage } from '../../src/providers/transport.ts';

/** Which model an engine should load. Every request names it, so a restarted worker can reload itself. */
export type ModelRef =
  | {
      engine: 'webllm';
      /** A prebuilt WebLLM model id (e.g. "Qwen2.5-3B-Instruct-q4f32_1-MLC") or the id of a custom model. */
      modelId: string;
      /** For a custom MLC model: absolute URL of the weights (a Hugging Face repo URL or any host). */
      modelUrl?: string;
      /** For a custom MLC model: absolute URL of the compiled model library (.wasm). */
      modelLibUrl?: string;
    }
  | {
      engine: 'wllama';
      /** Absolute URL of a GGUF file. */
      url: string;
      /** Display name. */
      name?: string;
      /** llama.cpp threads (default: every core when cross-origin isolated, else 1). */
      threads?: number;
    };

/** Whether two refs name the same loaded model: same engine and files (and, for wllama, threads). */
export function sameModel(a: ModelRef | undefined, b: ModelRef): boolean {
  if (!a) return false;
  if (a.engine === 'wllama') return b.engine === 'wllama' && a.url === b.url && a.threads === b.threads;
  return (
    b.engine === 'webllm' &&
    a.modelId === b.modelId &&
    a.modelUrl === b.modelUrl &&
    a.modelLibUrl === b.modelLibUrl
  );
}

export interface LoadProgress {
  phase: 'download' | 'cache' | 'compile' | 'init';
  /** 0..1 */
  fraction: number;
  loadedBytes?: number;
  totalBytes?: number;
  /** Human-readable progress line from the engine. */
  text: string;
  /** Seconds since loading started, as the engine reports it. */
  elapsedSeconds?: number;
  /** Average download speed so far (phase 'download'). */
  bytesPerSecond?: number;
  /** Estimated seconds until the download finishes, at the average speed so far (phase 'download'). */
  secondsLeft?: number;
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
  completionTokens: number;
  prefillTokensPerSec?: number;
  decodeTokensPerSec?: number;
  finishReason: 'stop' | 'length' | 'abort';
}

/**
 * One interface for every on-device engine (WebLLM on WebGPU, wllama on the CPU), as web-llm's
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
