/**
 * Provider presets: one source of truth for base URLs, auth styles, the headers a direct browser call
 * needs or must not send, default models with editable price estimates, and the hosts the CSP allows.
 * Pure data and small helpers: no DOM, no network (the worker and the Vite config may import it).
 */
import type { Price } from '../shared/worker-spec.ts';

/**
 * How the key travels: `Authorization: Bearer <key>`, `x-api-key: <key>`, or not at all; a backup
 * target's (src/egress/backup-endpoints.ts): `basic` (the key is `user:password`, WebDAV) or `sigv4` (the
 * key is `accessKeyId:secretAccessKey`, and egress signs the request with it, S3-compatible).
 */
export type AuthStyle = 'bearer' | 'x-api-key' | 'basic' | 'sigv4' | 'none';

export type ProviderKind = 'cloud' | 'local' | 'custom';

export interface ModelPreset {
  id: string;
  label: string;
  /** One line for the conductor ("fast, cheap, good at ..."). */
  strengths: string;
  /** US dollars per million tokens: an estimate from the provider's price page, editable per worker. */
  price: Price;
  costTier: 'low' | 'medium' | 'high';
  /**
   * The model searches the web on the provider's servers (see WEB SEARCH below): a worker made from it has
   * `webSearch` on, and its requests carry its provider's search request (src/providers/web-search.ts).
   */
  webSearch?: true;
  /** Takes image input, as its provider documents it (`VISION_MODELS`). */
  vision: boolean;
}

export interface ProviderPreset {
  id: string;
  name: string;
  kind: ProviderKind;
  /**
   * Base URL, ending before `/chat/completions` (OpenAI-compatible) or `/messages` (Anthropic's native
   * API, by the preset's dialect); `/models` hangs off it too. Empty for `custom`.
   */
  baseURL: string;
  /** Local servers and custom endpoints may live on any host; cloud presets are pinned to their origin. */
  baseURLEditable: boolean;
  auth: AuthStyle;
  /** False for local servers (a key is optional: vLLM / llama.cpp `--api-key`), and for custom. */
  needsKey: boolean;
  /** Added to every request to this provider. */
  headers: Readonly<Record<string, string>>;
  /**
   * Send only `Content-Type` and `Accept` of the headers the openai SDK builds, dropping `x-stainless-*`
   * (OS, architecture, runtime and SDK version), `User-Agent`, `OpenAI-Organization`/`-Project` and the
   * retry headers. Strict providers (Mistral, Gemini's OpenAI endpoint, Fireworks) reject a preflight that
   * asks for those headers. We strip them for every preset: no provider needs them, and they are a
   * fingerprint of the user's machine, which a privacy-minded client should not send anywhere.
   */
  stripSdkHeaders: boolean;
  /** `GET {baseURL}/models` lists the models. */
  hasModelsEndpoint: boolean;
  models: readonly ModelPreset[];
  /** Where the user gets a key. */
  keyURL?: string;
  /** How to let the page call a local server (CORS). */
  corsHint?: string;
}

const free: Price = { inputPerM: 0, outputPerM: 0 };

/**
 * Preset models that take image input, by provider, each from its provider's model documentation. Every
 * other preset model reads text only (a local model: the user says so per worker, since the server's
 * loaded model is not known here).
 */
export const VISION_MODELS: Readonly<Record<string, readonly string[]>> = {
  // "Input: text, image": https://platform.openai.com/docs/models/gpt-5,
  // https://platform.openai.com/docs/models/gpt-5-mini, https://platform.openai.com/docs/models/gpt-4.1-mini
  openai: ['gpt-5-mini', 'gpt-5', 'gpt-4.1-mini'],
  // Every current Claude model takes images: https://docs.anthropic.com/en/docs/about-claude/models/overview
  // ("Vision" row), https://docs.anthropic.com/en/docs/build-with-claude/vision
  anthropic: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  // "Inputs: audio, images, video, text, and PDF": https://ai.google.dev/gemini-api/docs/models#gemini-2.5-flash,
  // https://ai.google.dev/gemini-api/docs/models#gemini-2.5-pro
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro'],
  // Input modalities per model on https://openrouter.ai/models (text+image for both; DeepSeek V3 text only).
  openrouter: ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4.5'],
  // Groq's vision models are the Llama 4 ones (https://console.groq.com/docs/vision); Llama 3.3 70B and
  // gpt-oss 120B read text only (https://console.groq.com/docs/models).
  groq: [],
  // Mistral Small (3.1 and later) and Large (3 and later) take images, Codestral does not:
  // https://docs.mistral.ai/capabilities/vision/, https://docs.mistral.ai/getting-started/models/
  mistral: ['mistral-large-latest', 'mistral-small-latest'],
  // deepseek-chat and deepseek-reasoner read text only (https://api-docs.deepseek.com/quick_start/pricing:
  // no image input); an image part is refused ("unknown variant `image_url`, expected `text`").
  deepseek: [],
  // Both Together presets are text models: https://docs.together.ai/docs/serverless-models
  together: [],
  // "grok-4: text and image input"; grok-3-mini reads text only: https://docs.x.ai/docs/models
  xai: ['grok-4'],
};

/** Whether a preset model takes image input (false for any model not in `VISION_MODELS`). */
export function presetTakesImages(providerId: string, modelId: string): boolean {
  return VISION_MODELS[providerId]?.includes(modelId) ?? false;
}

/** A model as the list below writes it; `vision` comes from `VISION_MODELS`. */
type ModelEntry = Omit<ModelPreset, 'vision'>;
type PresetEntry = Omit<ProviderPreset, 'models'> & { models: readonly ModelEntry[] };

function withVision(presets: readonly PresetEntry[]): ProviderPreset[] {
  return presets.map((preset) => ({
    ...preset,
    models: preset.models.map((m) => ({ ...m, vision: presetTakesImages(preset.id, m.id) })),
  }));
}

function model(
  id: string,
  label: string,
  strengths: string,
  inputPerM: number,
  outputPerM: number,
  costTier: ModelPreset['costTier'],
  cachedInputPerM?: number,
): ModelEntry {
  const price: Price = { inputPerM, outputPerM };
  if (cachedInputPerM !== undefined) price.cachedInputPerM = cachedInputPerM;
  return { id, label, strengths, price, costTier };
}

/**
 * WEB SEARCH: which providers' models search the web server-side from a browser, in their documented way
 * (checked December 2026). Kept: those a page can call with the wires Baton speaks (dialects.ts).
 *
 * | provider   | how                                                        | kept | why                                                                                   |
 * | ---------- | ---------------------------------------------------------- | ---- | ------------------------------------------------------------------------------------- |
 * | OpenAI     | search models (`gpt-4o(-mini)-search-preview`) on Chat     | yes  | `web_search_options: {}` on Chat Completions; `annotations` of type `url_citation`    |
 * |            | Completions, with `web_search_options`                     |      | (platform.openai.com/docs/guides/tools-web-search?api-mode=chat); other models 400    |
 * | OpenRouter | server tool `tools: [{type: 'openrouter:web_search'}]`,    | yes  | any model; `url_citation` annotations (openrouter.ai/docs/guides/features/server-tools |
 * |            | the `web` plugin and `:online` suffix it replaces          |      | /web-search). Plugin and `:online` are deprecated: the suffix names the preset, the    |
 * |            |                                                            |      | request sends the tool without it (docs/guides/routing/model-variants/online)          |
 * | Anthropic  | server tool `web_search_20250305` on the Messages API      | yes  | same endpoint and browser opt-in header; `web_search_tool_result` blocks and          |
 * |            |                                                            |      | `citations` on text (docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-   |
 * |            |                                                            |      | tool). An organisation admin must enable web search in the Console. $10 per 1,000     |
 * |            |                                                            |      | searches on top of tokens, which the price table does not count                       |
 * | Perplexity | Sonar models (`sonar`, `sonar-pro`) on Chat Completions    | no   | Perplexity retired Sonar Chat Completions on 2026-09-27 for its Agent API, a          |
 * |            | with `citations` / `search_results`                        |      | Responses-style wire Baton does not speak (docs.perplexity.ai/docs/agent-api/migrate- |
 * |            |                                                            |      | from-sonar; vercel/ai @ai-sdk/perplexity 3.1.0). Its fields are still read from any   |
 * |            |                                                            |      | OpenAI-compatible stream that carries them (a custom endpoint, a gateway)             |
 * | Gemini     | grounding with Google Search                               | no   | only on the native `generateContent` API (ai.google.dev/gemini-api/docs/grounding);   |
 * |            |                                                            |      | the OpenAI-compatible endpoint has no way to ask for it                               |
 * | xAI        | Live Search (`search_parameters`)                          | no   | answers 410 Gone since 2026 ("Live search is deprecated", vercel/ai#15713); its       |
 * |            |                                                            |      | `web_search` tool is on the Responses endpoint only                                   |
 */
function searching(preset: ModelEntry): ModelEntry {
  return { ...preset, webSearch: true };
}

const localModel = (id: string, label: string): ModelEntry => ({
  id,
  label,
  strengths: 'runs on this machine: private, free, slower and weaker than frontier models',
  price: free,
  costTier: 'low',
});

const cloud = {
  kind: 'cloud',
  baseURLEditable: false,
  auth: 'bearer',
  needsKey: true,
  headers: {},
  stripSdkHeaders: true,
  hasModelsEndpoint: true,
} as const;

const local = {
  kind: 'local',
  baseURLEditable: true,
  auth: 'bearer',
  needsKey: false,
  headers: {},
  stripSdkHeaders: true,
  hasModelsEndpoint: true,
} as const;

/** Prices: list prices per million tokens as of 2025, marked in the UI as editable estimates. */
const PRESETS: readonly PresetEntry[] = [
  {
    ...cloud,
    id: 'openai',
    name: 'OpenAI',
    baseURL: 'https://api.openai.com/v1',
    keyURL: 'https://platform.openai.com/api-keys',
    models: [
      model('gpt-5-mini', 'GPT-5 mini', 'fast general reasoning and code at low cost', 0.25, 2, 'low'),
      model('gpt-5', 'GPT-5', 'strong reasoning, code and long answers', 1.25, 10, 'high'),
      model('gpt-4.1-mini', 'GPT-4.1 mini', 'fast instruction following, long context', 0.4, 1.6, 'low'),
      searching(
        model(
          'gpt-4o-mini-search-preview',
          'GPT-4o mini Search',
          'recent events and facts, with sources',
          0.15,
          0.6,
          'low',
        ),
      ),
      searching(
        model(
          'gpt-4o-search-preview',
          'GPT-4o Search',
          'recent events and facts, with sources',
          2.5,
          10,
          'high',
        ),
      ),
    ],
  },
  {
    ...cloud,
    id: 'anthropic',
    name: 'Anthropic',
    // The native Messages API (dialects.ts): POST /v1/messages, GET /v1/models, the key in x-api-key.
    baseURL: 'https://api.anthropic.com/v1',
    auth: 'x-api-key',
    // Every request names the API version; a browser's request without the opt-in header gets 401 with
    // no CORS headers, which the page sees as an opaque network failure.
    headers: { 'anthropic-dangerous-direct-browser-access': 'true', 'anthropic-version': '2023-06-01' },
    keyURL: 'https://console.anthropic.com/settings/keys',
    corsHint:
      'Anthropic answers a web page only when the request opts in with the header anthropic-dangerous-direct-browser-access: true (Baton sends it). An organisation admin can turn direct browser access off for the whole organisation: if so, ask them, or reach Claude through OpenRouter.',
    models: [
      model('claude-sonnet-4-5', 'Claude Sonnet 4.5', 'careful code, writing and review', 3, 15, 'high'),
      model('claude-haiku-4-5', 'Claude Haiku 4.5', 'fast, cheap, good at short tasks', 1, 5, 'medium'),
      // The same model under its dated id, so the searching preset has an id of its own.
      searching(
        model(
          'claude-haiku-4-5-20251001',
          'Claude Haiku 4.5 + web search',
          'recent events and facts, with sources',
          1,
          5,
          'medium',
        ),
      ),
    ],
  },
  {
    ...cloud,
    id: 'gemini',
    name: 'Google Gemini',
    baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai',
    keyURL: 'https://aistudio.google.com/apikey',
    models: [
      model('gemini-2.5-flash', 'Gemini 2.5 Flash', 'fast, long context, good at math', 0.3, 2.5, 'low'),
      model('gemini-2.5-pro', 'Gemini 2.5 Pro', 'strong reasoning and long documents', 1.25, 10, 'high'),
    ],
  },
  {
    ...cloud,
    id: 'openrouter',
    name: 'OpenRouter',
    baseURL: 'https://openrouter.ai/api/v1',
    keyURL: 'https://openrouter.ai/keys',
    models: [
      model('openai/gpt-5-mini', 'GPT-5 mini (OpenRouter)', 'fast general reasoning', 0.25, 2, 'low'),
      model(
        'anthropic/claude-sonnet-4.5',
        'Claude Sonnet 4.5 (OpenRouter)',
        'careful code and writing',
        3,
        15,
        'high',
      ),
      model('deepseek/deepseek-chat', 'DeepSeek V3 (OpenRouter)', 'cheap, good at code', 0.3, 0.85, 'low'),
      searching(
        model(
          'openai/gpt-5-mini:online',
          'GPT-5 mini + web search (OpenRouter)',
          'recent events and facts, with sources',
          0.25,
          2,
          'low',
        ),
      ),
    ],
  },
  {
    ...cloud,
    id: 'groq',
    name: 'Groq',
    baseURL: 'https://api.groq.com/openai/v1',
    keyURL: 'https://console.groq.com/keys',
    models: [
      model(
        'llama-3.3-70b-versatile',
        'Llama 3.3 70B (Groq)',
        'very fast drafts and summaries',
        0.59,
        0.79,
        'low',
      ),
      model('openai/gpt-oss-120b', 'gpt-oss 120B (Groq)', 'very fast reasoning', 0.15, 0.75, 'low'),
    ],
  },
  {
    ...cloud,
    id: 'mistral',
    name: 'Mistral',
    baseURL: 'https://api.mistral.ai/v1',
    keyURL: 'https://console.mistral.ai/api-keys',
    models: [
      model('mistral-large-latest', 'Mistral Large', 'multilingual writing and reasoning', 2, 6, 'medium'),
      model('mistral-small-latest', 'Mistral Small', 'cheap, fast, short tasks', 0.1, 0.3, 'low'),
      model('codestral-latest', 'Codestral', 'code completion and code edits', 0.3, 0.9, 'low'),
    ],
  },
  {
    ...cloud,
    id: 'deepseek',
    name: 'DeepSeek',
    baseURL: 'https://api.deepseek.com/v1',
    keyURL: 'https://platform.deepseek.com/api_keys',
    // https://api-docs.deepseek.com/quick_start/pricing: input $0.28 per million tokens on a cache miss,
    // $0.028 on a cache hit (usage `prompt_cache_hit_tokens`, https://api-docs.deepseek.com/guides/kv_cache),
    // output $0.42, for both models.
    models: [
      model('deepseek-chat', 'DeepSeek V3', 'cheap, good at code and math', 0.28, 0.42, 'low', 0.028),
      model(
        'deepseek-reasoner',
        'DeepSeek R (thinking)',
        'step-by-step reasoning, slower',
        0.28,
        0.42,
        'low',
        0.028,
      ),
    ],
  },
  {
    ...cloud,
    id: 'together',
    name: 'Together AI',
    baseURL: 'https://api.together.xyz/v1',
    keyURL: 'https://api.together.ai/settings/api-keys',
    models: [
      model(
        'meta-llama/Llama-3.3-70B-Instruct-Turbo',
        'Llama 3.3 70B (Together)',
        'solid open model for drafts',
        0.88,
        0.88,
        'medium',
      ),
      model('Qwen/Qwen2.5-Coder-32B-Instruct', 'Qwen2.5 Coder 32B', 'code', 0.8, 0.8, 'low'),
    ],
  },
  {
    ...cloud,
    id: 'xai',
    name: 'xAI',
    baseURL: 'https://api.x.ai/v1',
    keyURL: 'https://console.x.ai',
    models: [
      model('grok-4', 'Grok 4', 'strong reasoning', 3, 15, 'high'),
      model('grok-3-mini', 'Grok 3 mini', 'cheap quick reasoning', 0.3, 0.5, 'low'),
    ],
  },
  {
    ...local,
    id: 'ollama',
    name: 'Ollama',
    baseURL: 'http://localhost:11434/v1',
    // Ollama ignores keys.
    auth: 'none',
    models: [
      localModel('llama3.2', 'Llama 3.2 (Ollama)'),
      localModel('qwen2.5-coder', 'Qwen2.5 Coder (Ollama)'),
    ],
    corsHint:
      'Ollama answers only the origins it is told to trust: quit Ollama, then start it with OLLAMA_ORIGINS=<this page origin> ollama serve (on macOS: launchctl setenv OLLAMA_ORIGINS "<this page origin>" and restart the app).',
  },
  {
    ...local,
    id: 'lmstudio',
    name: 'LM Studio',
    baseURL: 'http://localhost:1234/v1',
    models: [localModel('local-model', 'Loaded model (LM Studio)')],
    corsHint:
      'Enable CORS for LM Studio\'s server: Developer tab → Settings → "Enable CORS", or start it with lms server start --cors.',
  },
  {
    ...local,
    id: 'llamacpp',
    name: 'llama.cpp server',
    baseURL: 'http://localhost:8080/v1',
    models: [localModel('default', 'Loaded model (llama.cpp)')],
    corsHint:
      'llama-server answers CORS requests by default; check the host and port (--host, --port) and, if you set --api-key, save the same key here.',
  },
  {
    ...local,
    id: 'vllm',
    name: 'vLLM',
    baseURL: 'http://localhost:8000/v1',
    models: [localModel('default', 'Served model (vLLM)')],
    corsHint: 'Start vLLM with --allowed-origins \'["<this page origin>"]\' (or \'["*"]\').',
  },
  {
    id: 'custom',
    name: 'Custom (OpenAI-compatible)',
    kind: 'custom',
    baseURL: '',
    baseURLEditable: true,
    auth: 'bearer',
    needsKey: false,
    headers: {},
    stripSdkHeaders: true,
    hasModelsEndpoint: true,
    models: [],
    corsHint:
      'The server must answer CORS preflights from this page, and the built app must allow its host (see "Allowing a custom host" in the README).',
  },
];

export const CATALOG: readonly ProviderPreset[] = withVision(PRESETS);

const byId = new Map(CATALOG.map((p) => [p.id, p]));

export function presetById(id: string): ProviderPreset | undefined {
  return byId.get(id);
}

/** `https://api.openai.com` for `https://api.openai.com/v1`; throws on a URL that does not parse. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Origins of the cloud presets (for the CSP's connect-src); local servers are covered by localhost. */
export function cloudOrigins(catalog: readonly ProviderPreset[] = CATALOG): string[] {
  return [...new Set(catalog.filter((p) => p.kind === 'cloud').map((p) => originOf(p.baseURL)))];
}

/** Whether a URL points at this machine (where a local server without CORS is the usual failure). */
export { isLoopback } from '../shared/loopback.ts';
