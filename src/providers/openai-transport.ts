import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { answerChunks, refusingRedirects } from './answer-response.ts';
import { type Dialect, dialectOf } from './dialects.ts';
import { errorMessageOf, errorMessageOfText } from './error-body.ts';
import { EmptyAnswerError, errorFromStatus, ProviderError, redactKeyLike } from './errors.ts';
import { finishEvent } from './finish-reason.ts';
import { OpenAIToolCalls, openaiToolFields, openaiToolTurns } from './openai-tools.ts';
import { chatBody, deltaParts, usageOf } from './openai-wire.ts';
import { callRound, loopedPastRounds, RoundUsage } from './tool-use.ts';
import {
  type BatonRequestInit,
  type ChatEvent,
  type ChatRequest,
  type ChatTransport,
  type EgressContext,
  egressContextOf,
  refuseImagesFor,
} from './transport.ts';
import { chunkCitations, openaiSearchRequest } from './web-search.ts';

export interface OpenAITransportOptions {
  /**
   * The fetch every request goes through: the egress module, which attaches the key for the request's
   * origin and waits for the request's `ready`. Required: nothing reaches a provider around it.
   */
  fetch: typeof fetch;
  /**
   * `strip` removes the SDK's `x-stainless-*` headers, which strict CORS preflights reject (Mistral,
   * Gemini's OpenAI endpoint, Fireworks). Default `keep`.
   */
  sdkHeaders?: 'keep' | 'strip';
  /** Extra headers on every request (for example Anthropic's browser opt-in). */
  headers?: Record<string, string>;
  /** How the provider's API behaves (src/providers/dialects.ts). Default: the worker's provider's. */
  dialect?: Dialect;
}

/**
 * The SDK refuses to start without a key, so it gets this placeholder. It never reaches the network:
 * the client is told to omit `Authorization` entirely, and the fetch wrapper removes the placeholder
 * should it appear anyway.
 */
export const PLACEHOLDER_API_KEY = 'baton-placeholder-key';

/** Removes what must not leave the page, then hands the request to the injected fetch. */
function wrapFetch(inner: typeof fetch, sdkHeaders: 'keep' | 'strip', baton: EgressContext): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get('authorization') === `Bearer ${PLACEHOLDER_API_KEY}`) headers.delete('authorization');
    if (sdkHeaders === 'strip') {
      for (const name of [...headers.keys()]) {
        if (name.startsWith('x-stainless-')) headers.delete(name);
      }
    }
    // A redirect is reported, not followed (egress refuses to follow one anyway).
    const next: BatonRequestInit = { ...init, headers, baton, redirect: 'manual' };
    const response = await refusingRedirects(await inner(input, next));
    // The error body is read here, not by the SDK: it keeps only `body.error`, so Mistral's
    // `{message: {detail}}`, FastAPI's `{detail}` and Gemini's `[{error}]` would reach the user as
    // "status code (no body)".
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw errorFromStatus(response.status, errorMessageOfText(text), response.headers);
    }
    return response;
  };
}

/** A streamed chunk as the wire has it: what the transport reads of it (usage and sources apart). */
interface WireChunk {
  choices?: { delta?: unknown; finish_reason?: string | null }[];
}

/** The message of an error the SDK built (one sent inside the event stream: `data: {"error": …}`). */
function messageOf(error: APIError): string {
  return errorMessageOf(error.error) ?? redactKeyLike(error.message.replace(/^\d{3} /, ''));
}

/** Maps anything the SDK (or the wire) throws to a ProviderError. `started`: the response had begun. */
export function toProviderError(error: unknown, signal: AbortSignal, started: boolean): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal.aborted || error instanceof APIUserAbortError) {
    return new ProviderError('aborted', 'The request was cancelled.');
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    // Egress refusals (key bound elsewhere, vault locked, missing key) are thrown from inside fetch, so the
    // SDK wraps them: keep their kind, or a refusal would look like a retryable network failure.
    if (cause instanceof ProviderError) return cause;
    const detail = cause instanceof Error ? `: ${redactKeyLike(cause.message)}` : '';
    return new ProviderError('connection', `Could not reach the provider${detail}`);
  }
  if (error instanceof APIError) {
    if (error.status === undefined) {
      // An error object sent inside the event stream.
      return new ProviderError('server', `The provider reported an error mid-answer: ${messageOf(error)}`);
    }
    return errorFromStatus(error.status, messageOf(error), error.headers ?? undefined);
  }
  if (error instanceof SyntaxError) {
    return new ProviderError('stream', `The provider sent malformed data: ${redactKeyLike(error.message)}`);
  }
  const message = error instanceof Error ? redactKeyLike(error.message) : String(error);
  return started
    ? new ProviderError('stream', `The answer stream broke off: ${message}`)
    : new ProviderError('connection', `Could not reach the provider: ${message}`);
}

/** Why an answer that ended properly holds no text, in the provider's own terms. */
function emptyAnswerReason(
  finishReason: string | undefined,
  chunks: number,
  choicesSeen: boolean,
  reasoned: boolean,
): string {
  if (reasoned) {
    const why = finishReason === 'length' ? ': it ran out of tokens while thinking' : '';
    return `The model only reasoned and wrote no answer text${why}.`;
  }
  if (chunks === 0) return 'The provider sent no answer text: the stream held only its end ([DONE]).';
  if (!choicesSeen) return 'The provider sent no answer text: its stream carried no choices at all.';
  if (finishReason === undefined)
    return 'The provider sent no answer text: the stream ended ([DONE]) without any.';
  const why =
    finishReason === 'length'
      ? ': it ran out of tokens before writing any'
      : finishReason === 'content_filter'
        ? ": the provider's content filter stopped it"
        : '';
  return `The model sent no answer text (finish_reason "${redactKeyLike(finishReason.slice(0, 40))}")${why}.`;
}

/**
 * A ChatTransport for any OpenAI-compatible endpoint, built on the `openai` SDK, speaking the worker's
 * dialect: streaming with usage and reasoning, no SDK retries (the executor owns retries), the request's
 * AbortSignal passed through.
 */
export function createOpenAITransport(options: OpenAITransportOptions): ChatTransport {
  const sdkHeaders = options.sdkHeaders ?? 'keep';
  return {
    async *stream(worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
      const { signal } = request;
      const dialect = options.dialect ?? dialectOf(worker.providerId);
      if (signal.aborted) throw new ProviderError('aborted', 'The request was cancelled.');
      refuseImagesFor(worker, request);
      const seen = { done: false };
      const client = new OpenAI({
        apiKey: PLACEHOLDER_API_KEY,
        baseURL: worker.baseURL,
        maxRetries: 0,
        dangerouslyAllowBrowser: true,
        // Errors are thrown as ProviderError; the SDK must not print response bodies to the console.
        logLevel: 'off',
        // The key is the egress module's business: the SDK sends none.
        defaultHeaders: { Authorization: null, ...options.headers },
        fetch: wrapFetch(options.fetch, sdkHeaders, egressContextOf(request, worker)),
      });
      let started = false;
      let finishReason: string | undefined;
      let answered = false;
      let reasoned = false;
      let choicesSeen = false;
      let chunks = 0;
      // A step granted tools runs rounds: the model asks for calls, the page makes them, the results go
      // back in the next request (openai-tools.ts); without tools there is one round, as always.
      const tools = request.tools;
      const turns: Record<string, unknown>[] = [];
      const usageSum = new RoundUsage();
      for (let round = 0; ; round++) {
        const calls = new OpenAIToolCalls();
        let roundText = '';
        try {
          // The body is built from the dialect; the SDK's types know no `reasoning_content`, OpenRouter's server
          // tool or annotations on a delta, so the body is cast and chunks are read as the wire has them
          // (src/providers/openai-wire.ts, web-search.ts).
          const search = openaiSearchRequest(worker, dialect);
          const body = chatBody(search.model, request.messages, dialect, search.fields);
          if (tools) {
            Object.assign(body, openaiToolFields(tools, round < tools.maxRounds));
            body.messages.push(...(turns as unknown as typeof body.messages));
          }
          // The SDK builds and sends the request and reads an error status; the answer's body is read here,
          // in one pass from egress's counted body (answer-response.ts), not through the SDK's stream of
          // streams.
          const response = await client.chat.completions
            .create(body as Parameters<typeof client.chat.completions.create>[0] & { stream: true }, {
              signal,
            })
            .asResponse();
          started = true;
          seen.done = false;
          finishReason = undefined;
          for await (const batch of answerChunks(response, seen))
            for (const chunk of batch as WireChunk[]) {
              chunks++;
              for (const choice of chunk.choices ?? []) {
                choicesSeen = true;
                const { text, reasoning } = deltaParts(choice.delta, dialect);
                if (reasoning) {
                  reasoned = true;
                  yield { type: 'reasoning', text: reasoning };
                }
                if (text) {
                  if (text.trim()) answered = true;
                  roundText += text;
                  yield { type: 'delta', text };
                }
                if (tools) for (const name of calls.add(choice.delta)) yield { type: 'tool-call', name };
                if (choice.finish_reason) finishReason = choice.finish_reason;
              }
              // Sources come on a delta or after the text (OpenAI, OpenRouter), or on every chunk (Perplexity).
              for (const citation of chunkCitations(chunk)) yield { type: 'citation', ...citation };
              // Whichever chunk carries it (the last one, the finish chunk, or every chunk as a running total):
              // each replaces the one before.
              const usage = usageOf(chunk, dialect);
              if (usage) yield usageSum.add(usage);
            }
        } catch (error) {
          throw toProviderError(error, signal, started);
        }
        // The SDK ends the iteration quietly when the signal aborts it.
        if (signal.aborted) throw new ProviderError('aborted', 'The request was cancelled.');
        const asked = calls.list();
        if (!tools || asked.length === 0) break;
        if (finishReason === undefined && !seen.done) break;
        loopedPastRounds(tools, round);
        const outcomes = await callRound(tools, asked, round, signal);
        for (const { note } of outcomes) if (note) yield { type: 'tool-used', ...note };
        turns.push(...openaiToolTurns(roundText, asked, outcomes));
        usageSum.endRound();
      }
      if (finishReason === undefined && !seen.done) {
        throw new ProviderError('stream', 'The answer stream ended before the answer was complete.');
      }
      if (!answered)
        throw new EmptyAnswerError(emptyAnswerReason(finishReason, chunks, choicesSeen, reasoned));
      yield* finishEvent(finishReason);
    },
  };
}
