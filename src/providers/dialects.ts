/**
 * How each provider's API really behaves, in one table beside the catalog: the transports,
 * model discovery and the connection test read it; nothing provider-specific lives anywhere else.
 * Pure data: no DOM, no network.
 *
 * Sources (checked 2026): each entry cites the provider's own API reference.
 */

/** The request and stream shape: OpenAI's Chat Completions, or Anthropic's native Messages API. */
export type Wire = 'openai-chat' | 'anthropic-messages';

/** Where `GET /models` puts its ids. */
export type ModelsShape =
  /** `{ data: [{ id }] }` (OpenAI and most compatible servers). */
  | 'openai'
  /** `{ data: [{ id: 'models/gemini-2.5-flash' }] }`: ids prefixed `models/`, which chat requests do not want. */
  | 'gemini'
  /** `{ data: [{ id, display_name }] }`, paged with `has_more` / `last_id` (Anthropic). */
  | 'anthropic';

/**
 * How a worker with `webSearch` asks its provider to search (the catalog's WEB SEARCH table says why):
 * - `web_search_options`: OpenAI's search models, `web_search_options: {}` on Chat Completions;
 * - `openrouter-tool`: OpenRouter's server tool, `tools: [{type: 'openrouter:web_search'}]`;
 * - `anthropic-tool`: Anthropic's server tool `web_search_20250305` on the Messages API;
 * - `model`: nothing to send: the model searches by itself (a custom endpoint the user says searches);
 * - `none`: the provider has no server-side search on the wire Baton speaks to it.
 */
export type WebSearchRequest = 'web_search_options' | 'openrouter-tool' | 'anthropic-tool' | 'model' | 'none';

export interface Dialect {
  id: string;
  wire: Wire;
  /**
   * `ask`: send `stream_options: { include_usage: true }` (OpenAI, Groq, Gemini, DeepSeek, xAI, local
   * servers). `never`: the provider rejects the field or sends usage without being asked (Mistral: 422;
   * OpenRouter: usage always in the last message; Anthropic: usage in `message_start`/`message_delta`).
   */
  streamUsage: 'ask' | 'never';
  /** The field that caps the answer length; Mistral rejects `max_completion_tokens`, Anthropic requires `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Whether `response_format` (json_schema) is honoured rather than ignored or refused. */
  responseFormat: boolean;
  /** Whether the provider reports the request's price itself (`usage.cost`, OpenRouter): then it wins over the price table. */
  reportsCost: boolean;
  /** Delta fields that carry reasoning (never the answer, never sent back as context). */
  reasoningFields: readonly string[];
  /** Rejects fields it does not know (Mistral: 422 `extra_forbidden`), so send only what it documents. */
  strictFields: boolean;
  modelsShape: ModelsShape;
  webSearch: WebSearchRequest;
  /**
   * Whether user and assistant turns must alternate, so consecutive turns of one role are sent as one
   * (a step's question and task are two user turns). DeepSeek's reasoner answers them with a 400
   * "deepseek-reasoner does not support successive user or assistant messages" (quoted in
   * deepseek-ai/DeepSeek-R1#21 and open-webui/open-webui#9266). Anthropic's wire always joins them.
   */
  alternatingTurns: boolean;
}

const openaiCompatible: Dialect = {
  id: 'openai-compatible',
  wire: 'openai-chat',
  streamUsage: 'ask',
  maxTokensField: 'max_tokens',
  responseFormat: true,
  reportsCost: false,
  // DeepSeek and vLLM use `reasoning_content`; Ollama, OpenRouter and LM Studio use `reasoning`.
  reasoningFields: ['reasoning_content', 'reasoning'],
  strictFields: false,
  modelsShape: 'openai',
  alternatingTurns: false,
  // A custom endpoint (a gateway, a search model behind a proxy) that searches does so by itself.
  webSearch: 'model',
};

/** A cloud provider's own API, which has no server-side search Baton can ask for (see the catalog). */
const noSearch = { webSearch: 'none' } as const;

/** Dialect of each provider preset id; presets not listed (local servers, custom) speak `openai-compatible`. */
export const DIALECTS: Readonly<Record<string, Dialect>> = {
  // https://platform.openai.com/docs/api-reference/chat/create; web search:
  // https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat
  openai: {
    ...openaiCompatible,
    id: 'openai',
    maxTokensField: 'max_completion_tokens',
    webSearch: 'web_search_options',
  },
  // https://docs.anthropic.com/en/api/messages-streaming
  anthropic: {
    ...openaiCompatible,
    id: 'anthropic',
    wire: 'anthropic-messages',
    streamUsage: 'never',
    responseFormat: false,
    reasoningFields: [],
    modelsShape: 'anthropic',
    alternatingTurns: true,
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
    webSearch: 'anthropic-tool',
  },
  // https://ai.google.dev/gemini-api/docs/openai
  gemini: { ...openaiCompatible, ...noSearch, id: 'gemini', modelsShape: 'gemini' },
  // https://openrouter.ai/docs/use-cases/usage-accounting
  // Web search: https://openrouter.ai/docs/guides/features/server-tools/web-search
  openrouter: {
    ...openaiCompatible,
    id: 'openrouter',
    streamUsage: 'never',
    reportsCost: true,
    webSearch: 'openrouter-tool',
  },
  // https://console.groq.com/docs/api-reference#chat-create
  groq: { ...openaiCompatible, ...noSearch, id: 'groq' },
  // https://docs.mistral.ai/api/#tag/chat. Magistral's reasoning is no delta field but `thinking` parts of
  // a content array (https://docs.mistral.ai/capabilities/reasoning/), read by src/providers/openai-wire.ts.
  mistral: {
    ...openaiCompatible,
    ...noSearch,
    id: 'mistral',
    streamUsage: 'never',
    strictFields: true,
    reasoningFields: [],
  },
  // https://api-docs.deepseek.com/guides/reasoning_model. `response_format` takes `json_object` only
  // (https://api-docs.deepseek.com/guides/json_mode): `json_schema` is a 400 "This response_format type is
  // unavailable now" (quoted in llm-exe/llm-exe#662 and UKGovernmentBEIS/inspect_ai#4916).
  // Its reasoner refuses successive user or assistant messages (`alternatingTurns`); its multi-round guide
  // (https://api-docs.deepseek.com/guides/multi_round_chat) shows only alternating turns.
  deepseek: {
    ...openaiCompatible,
    ...noSearch,
    id: 'deepseek',
    responseFormat: false,
    alternatingTurns: true,
  },
  // https://docs.together.ai/reference/chat-completions-1
  together: { ...openaiCompatible, ...noSearch, id: 'together' },
  // https://docs.x.ai/docs/api-reference#chat-completions
  xai: { ...openaiCompatible, ...noSearch, id: 'xai' },
};

export function dialectOf(providerId: string): Dialect {
  return DIALECTS[providerId] ?? openaiCompatible;
}
