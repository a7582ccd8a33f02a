/**
 * A worker of the user's pool as everything that sends to it sees it (the pool stores them: src/pool/).
 * Its reserved ids are in worker-ids.ts.
 */
/** Prices in US dollars per million tokens. */
export interface Price {
  inputPerM: number;
  outputPerM: number;
  /**
   * The input price of prompt tokens the provider read from its cache, where it bills them apart
   * (DeepSeek: `prompt_cache_hit_tokens`); without it every prompt token is priced at `inputPerM`.
   */
  cachedInputPerM?: number;
}

/**
 * One worker of the pool as the executor sees it: everything needed to send it a step.
 * Keys are not here: the egress module attaches them by the provider's origin.
 */
export interface WorkerSpec {
  /** Id used in plans ("w1", "gpt", ...). `self`, `local` and `run` are reserved (src/shared/worker-ids.ts). */
  id: string;
  label: string;
  /** One line the conductor reads when choosing workers. */
  strengths: string;
  /** Provider preset id ("openai", "anthropic", "custom", ...): the per-provider concurrency limit is keyed on it. */
  providerId: string;
  /** OpenAI-compatible base URL, ending before `/chat/completions` (for example https://api.openai.com/v1). */
  baseURL: string;
  model: string;
  systemPrompt?: string;
  /** Most requests in flight at once for this worker. */
  maxConcurrency: number;
  price?: Price;
  costTier?: 'low' | 'medium' | 'high';
  /**
   * The worker searches the web on its provider's servers (default off): its requests carry the provider's
   * search request (src/providers/web-search.ts) and the conductor is told it searches.
   */
  webSearch?: boolean;
  /**
   * Takes image input: a preset model's `vision` (from its provider's documentation), or what the user
   * says of a custom or local worker. Absent: text only, so an image is never sent to it.
   */
  vision?: boolean;
  enabled: boolean;
}
