/**
 * The message in a provider's error body, whatever its shape: the one parser the chat transport and model
 * discovery share, so no provider's error reaches the user as "status code (no body)". Shapes seen:
 * - OpenAI, Groq, DeepSeek, xAI, OpenRouter: `{ error: { message, type, code } }`
 *   (https://platform.openai.com/docs/guides/error-codes)
 * - Anthropic: `{ type: 'error', error: { type, message } }` (https://docs.anthropic.com/en/api/errors)
 * - Gemini: a JSON array, `[{ error: { code, message, status } }]`
 *   (https://ai.google.dev/gemini-api/docs/troubleshooting)
 * - Mistral 422: `{ object: 'error', message: { detail: [{ type, loc, msg }] }, type }`; Mistral 401:
 *   `{ message, request_id }`; Mistral 404 and FastAPI servers (vLLM): `{ detail: 'Not Found' }`
 *   (https://docs.mistral.ai/api/; bodies quoted in dnakov/anon-kode#53 and BerriAI/litellm#8978)
 * - some servers: `{ error: 'text' }`, or a plain-text body.
 */
import { redactKeyLike } from './errors.ts';

/** Longest message kept: enough for a validation error, short enough for a step card. */
const MAX_CHARS = 300;

/** One pydantic/FastAPI validation item: `body.stream_options.include_usage: Extra inputs are not permitted`. */
function validationItem(item: Record<string, unknown>): string | undefined {
  if (typeof item.msg !== 'string') return undefined;
  const where = Array.isArray(item.loc)
    ? item.loc.filter((part) => part !== 'body' && (typeof part === 'string' || typeof part === 'number'))
    : [];
  return where.length ? `${where.join('.')}: ${item.msg}` : item.msg;
}

function messageIn(value: unknown, depth: number): string | undefined {
  if (depth > 4 || value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) {
    const parts = value.map((item) => messageIn(item, depth + 1)).filter((m): m is string => Boolean(m));
    return parts.length ? [...new Set(parts)].join('; ') : undefined;
  }
  if (typeof value !== 'object') return undefined;
  const body = value as Record<string, unknown>;
  return (
    validationItem(body) ??
    messageIn(body.error, depth + 1) ??
    messageIn(body.message, depth + 1) ??
    messageIn(body.detail, depth + 1)
  );
}

/** The message of an already parsed error body (or error object), or undefined when it holds none. */
export function errorMessageOf(body: unknown): string | undefined {
  const message = messageIn(body, 0);
  return message === undefined ? undefined : clean(message);
}

/** The message of an error body as received: JSON of any shape above, else the text itself. '' when empty. */
export function errorMessageOfText(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return clean(text);
  }
  return errorMessageOf(body) ?? clean(text);
}

/** One line, short, with anything key-shaped removed: it is untrusted text shown to the user. */
function clean(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return redactKeyLike(line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS)}…` : line);
}
