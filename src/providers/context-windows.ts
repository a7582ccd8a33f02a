/**
 * Context windows (input tokens) of the catalog's models, as their providers document them. A follow-up's
 * history budget is a share of its worker's window (src/app/history-budget.ts); a model not listed here
 * gets a fixed budget instead.
 *
 * OpenAI https://platform.openai.com/docs/models (GPT-5 and GPT-5 mini 400,000; GPT-4.1 mini 1,047,576);
 * Anthropic https://docs.claude.com/en/docs/about-claude/models/overview (200,000);
 * Google https://ai.google.dev/gemini-api/docs/models (Gemini 2.5 Flash and Pro 1,048,576);
 * Mistral https://docs.mistral.ai/getting-started/models/models_overview/ (Large and Small 128k, Codestral 256k);
 * DeepSeek https://api-docs.deepseek.com/quick_start/pricing (128K); xAI https://docs.x.ai/docs/models
 * (Grok 4 256,000, Grok 3 mini 131,072); OpenRouter lists each model's own window; Together's Qwen2.5
 * Coder 32B serves 32,768.
 */
const WINDOWS: Record<string, number> = {
  'gpt-5': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-4.1-mini': 1_047_576,
  'claude-sonnet-4-5': 200_000,
  'claude-haiku-4-5': 200_000,
  'gemini-2.5-flash': 1_048_576,
  'gemini-2.5-pro': 1_048_576,
  'openai/gpt-5-mini': 400_000,
  'deepseek/deepseek-chat': 163_840,
  'openai/gpt-oss-120b': 131_072,
  'mistral-large-latest': 131_072,
  'mistral-small-latest': 131_072,
  'codestral-latest': 256_000,
  'deepseek-chat': 131_072,
  'Qwen/Qwen2.5-Coder-32B-Instruct': 32_768,
  'grok-4': 256_000,
  'grok-3-mini': 131_072,
};

/** The model's context window in tokens, when the catalog knows it. */
export function contextWindowOf(model: string): number | undefined {
  return WINDOWS[model];
}
