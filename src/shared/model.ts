/** Which on-device model to load, and how loading goes: named by the page, loaded by the thread. */

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
      /** llama.cpp threads (default: half the logical cores when cross-origin isolated, else 1). */
      threads?: number;
    }
  | {
      /**
       * The browser's own model (Chrome's Prompt API, `LanguageModel`: Gemini Nano). Chrome downloads and runs
       * it in its own process; Baton downloads nothing. The page drives it (the API is not exposed in workers)
       * on the thread's behalf (src/conductor/prompt-api.ts).
       */
      engine: 'prompt-api';
    }
  | {
      /**
       * An OpenAI-compatible server on this machine (Ollama, LM Studio, llama.cpp server, vLLM), for a
       * planner bigger than the page can hold. Planning still never leaves the device: the engine refuses
       * any base URL that is not loopback (src/shared/loopback.ts).
       */
      engine: 'local-server';
      /** Base URL ending before `/chat/completions`, e.g. `http://localhost:11434/v1`. */
      baseURL: string;
      /** The model id the server knows (e.g. `qwen2.5:14b`). */
      model: string;
      /** Which server it is (a catalog preset id), for its CORS hint. */
      server?: LocalServerKind;
    };

/** The local servers the setup screen offers, by their catalog preset ids. */
export const LOCAL_SERVER_KINDS = ['ollama', 'lmstudio', 'llamacpp', 'vllm'] as const;
export type LocalServerKind = (typeof LOCAL_SERVER_KINDS)[number];

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
