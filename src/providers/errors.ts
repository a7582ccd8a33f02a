/**
 * Errors by meaning, made from the HTTP status in one place (`errorFromStatus`), as openai-node does.
 * Messages are for people and must never contain a key.
 */
import { removeKeyShapes } from './key-shapes.ts';

export type ProviderErrorKind =
  | 'auth' // 401: bad or missing key
  | 'forbidden' // 403
  | 'not-found' // 404: unknown model or wrong base URL
  | 'bad-request' // 400/422
  | 'timeout' // 408, or our own first-token / step timeout
  | 'conflict' // 409
  | 'rate-limit' // 429
  | 'server' // 5xx
  | 'connection' // network failure, CORS rejection, unreachable host
  | 'stream' // stream cut or malformed mid-answer
  | 'empty' // the answer ended properly but holds no text (EmptyAnswerError): retried once
  | 'unexpected-response' // a redirect, a web page, JSON that is no chat completion: retrying cannot help
  | 'aborted' // cancelled by the user
  | 'refused'; // egress refused to send (key bound to another origin, host not allowed)

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** From `retry-after-ms` / `retry-after`, when the provider sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /**
   * 408, 409, 429, 5xx, dropped connections, cut streams and empty answers are worth another try; the
   * rest are not.
   */
  get retryable(): boolean {
    return (
      this.kind === 'timeout' ||
      this.kind === 'conflict' ||
      this.kind === 'rate-limit' ||
      this.kind === 'server' ||
      this.kind === 'connection' ||
      this.kind === 'stream' ||
      this.kind === 'empty'
    );
  }

  /**
   * The most attempts (the first included) a step failing this way deserves, when fewer than the retry
   * policy's own; `undefined`: the policy decides.
   */
  get maxAttempts(): number | undefined {
    return undefined;
  }
}

/**
 * The provider ended its answer properly, but it holds no text. One more try can help (a model that
 * sometimes answers nothing); a provider that does it twice will keep doing it, so it gets one retry only.
 */
export class EmptyAnswerError extends ProviderError {
  override name = 'EmptyAnswerError';
  constructor(message: string) {
    super('empty', message);
  }

  override get maxAttempts(): number {
    return 2;
  }
}

/**
 * Scrubs anything key-shaped from text a provider sent back (some quote part of the key): prefixed keys
 * (`sk-`, `gsk_`, `xai-`, Gemini's `AIza…`) and any 32+ character token (Together, Mistral): the
 * documented shapes (key-shapes.ts) first, then looser ones, since a quoted key may be cut or masked.
 */
export function redactKeyLike(text: string): string {
  return removeKeyShapes(text, '[redacted]')
    .replace(/\b(?:(?:sk|pk|rk|gsk|xai|key)[-_]|AIza)[-_A-Za-z0-9*.]{6,}/gi, '[redacted]')
    .replace(/\b[A-Za-z0-9_-]{32,}\b/g, '[redacted]');
}

/** Parses `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function errorFromStatus(status: number, detail: string, headers?: Headers): ProviderError {
  const retryAfter = headers ? retryAfterMs(headers) : undefined;
  const suffix = detail ? `: ${detail}` : '';
  if (status === 401) return new ProviderError('auth', `The key was rejected (401)${suffix}`, status);
  if (status === 403) return new ProviderError('forbidden', `Access denied (403)${suffix}`, status);
  if (status === 404)
    return new ProviderError('not-found', `Unknown model or endpoint (404)${suffix}`, status);
  if (status === 408)
    return new ProviderError('timeout', `The provider timed out (408)${suffix}`, status, retryAfter);
  if (status === 409) return new ProviderError('conflict', `Conflict (409)${suffix}`, status, retryAfter);
  if (status === 429)
    return new ProviderError('rate-limit', `Rate limited (429)${suffix}`, status, retryAfter);
  if (status >= 500)
    return new ProviderError('server', `Provider error (${status})${suffix}`, status, retryAfter);
  return new ProviderError('bad-request', `Request rejected (${status})${suffix}`, status);
}
