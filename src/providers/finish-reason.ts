import type { ChatEvent } from './transport.ts';

/**
 * The words each wire uses for "the answer stopped at the output limit", as each provider documents them:
 * - OpenAI Chat Completions: `finish_reason: "length"`
 *   (https://platform.openai.com/docs/api-reference/chat/object), as Groq
 *   (https://console.groq.com/docs/api-reference#chat-create), DeepSeek
 *   (https://api-docs.deepseek.com/api/create-chat-completion), Together
 *   (https://docs.together.ai/reference/chat-completions-1), xAI
 *   (https://docs.x.ai/docs/api-reference#chat-completions) and OpenRouter, which normalises every model's
 *   reason to these (https://openrouter.ai/docs/api-reference/overview#finish-reason), send it; so do the
 *   local servers' OpenAI-compatible APIs (Ollama, llama.cpp, LM Studio, vLLM).
 * - Mistral: `length`, or `model_length` when the model's context window ran out
 *   (https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post).
 * - Gemini: its OpenAI-compatible endpoint (https://ai.google.dev/gemini-api/docs/openai) sends OpenAI's
 *   `length` for its own `finishReason: "MAX_TOKENS"` (https://ai.google.dev/api/generate-content#FinishReason),
 *   which a gateway may pass through unchanged: both are read.
 * - Anthropic Messages: `stop_reason: "max_tokens"`, or `model_context_window_exceeded`
 *   (https://docs.anthropic.com/en/api/handling-stop-reasons).
 */
const OUTPUT_LIMIT_REASONS: ReadonlySet<string> = new Set([
  'length',
  'model_length',
  'max_tokens',
  'model_context_window_exceeded',
]);

/** Whether a provider's finish or stop reason says the answer was cut at the output limit (any case). */
export function cutAtOutputLimit(reason: string): boolean {
  return OUTPUT_LIMIT_REASONS.has(reason.toLowerCase());
}

/** The `finish` event a transport ends a whole answer with, when the provider said why it ended. */
export function finishEvent(reason: string | undefined): ChatEvent[] {
  return reason ? [{ type: 'finish', reason, cut: cutAtOutputLimit(reason) }] : [];
}
