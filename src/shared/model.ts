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
      /** llama.cpp threads (default: every core when cross-origin isolated, else 1). */
      threads?: number;
    };

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
