/**
 * What a provider answered a streaming chat request with, read as the chunks of its event stream, or as a
 * ProviderError that names what it was instead: a web page, a JSON error or a whole non-streamed
 * completion would otherwise all look like "a stream that ended early".
 */
import { createParser } from 'eventsource-parser';
import { APIError } from 'openai';
import { EmptyAnswerError, ProviderError, redactKeyLike } from './errors.ts';

/** What the stream carried beside its chunks: the `[DONE]` terminator. */
export interface StreamSeen {
  done: boolean;
}

/** A non-streamed body larger than this is no chat completion we can use. */
const MAX_WHOLE_BODY_CHARS = 8_000_000;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A redirect answered instead of the API: never followed, since the key belongs to the origin it was
 * sent to and a 301/302 turns the POST into a GET. `location` is hidden from the page by the browser
 * (an `opaqueredirect` response), and known in node.
 */
export function redirectError(response: Response): ProviderError | undefined {
  const opaque = response.type === 'opaqueredirect';
  if (!opaque && !REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get('location');
  const status = opaque ? 'a redirect' : `a redirect (${response.status})`;
  const where = location ? ` to ${redactKeyLike(location.slice(0, 200))}` : '';
  return new ProviderError(
    'unexpected-response',
    `The provider answered with ${status}${where} instead of an answer. Baton does not follow redirects ` +
      `for API requests: set the worker's base URL to the address the API really answers at${
        location ? '' : ' (open the base URL in a tab to see where it leads)'
      }.`,
    opaque ? undefined : response.status,
  );
}

/** Untrusted text for an error message: one line, short, with anything key-shaped removed. */
function quote(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return redactKeyLike(line.length > max ? `${line.slice(0, max)}…` : line);
}

function htmlError(text: string, labelledAs: string): ProviderError {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const titled = title?.trim() ? ` titled "${quote(title)}"` : '';
  return new ProviderError(
    'unexpected-response',
    `The provider answered with a web page (labelled ${labelledAs})${titled}, not a chat completion: ` +
      `check the worker's base URL (an OpenAI-compatible API usually ends in /v1).`,
  );
}

interface Completion {
  id?: unknown;
  model?: unknown;
  created?: unknown;
  choices: { message?: { content?: unknown } | null; finish_reason?: unknown }[];
  usage?: unknown;
}

/** A whole `chat.completion` as the chunks a streaming answer would have sent, usage included. */
function completionAsChunks(completion: Completion): unknown[] {
  const head = { id: completion.id ?? 'completion', object: 'chat.completion.chunk', created: 0, model: '' };
  const choices = completion.choices.map((choice, index) => {
    const content = choice.message?.content;
    return {
      index,
      delta: { role: 'assistant', content: typeof content === 'string' ? content : '' },
      finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop',
    };
  });
  const usage = completion.usage && typeof completion.usage === 'object' ? completion.usage : undefined;
  return [{ ...head, choices }, ...(usage ? [{ ...head, choices: [], usage }] : [])];
}

/** A body that is not an event stream: a whole completion is accepted (as its chunks), anything else is named. */
function wholeBody(text: string, type: string): unknown[] {
  const labelled = type || 'no content type';
  const trimmed = text.trim();
  if (trimmed === '') {
    return fail(
      new EmptyAnswerError(`The provider answered 200 with an empty body (${labelled}): no answer text.`),
    );
  }
  if (trimmed.startsWith('<')) return fail(htmlError(trimmed, labelled));
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return fail(
      new ProviderError(
        'unexpected-response',
        `The provider answered with ${labelled}, not a chat completion: "${quote(trimmed)}"`,
      ),
    );
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const body = json as Record<string, unknown>;
    if (Array.isArray(body.choices)) return completionAsChunks(body as unknown as Completion);
    const error = body.error as { message?: unknown } | string | undefined;
    if (error) {
      const message = typeof error === 'string' ? error : String(error.message ?? JSON.stringify(error));
      return fail(new ProviderError('server', `The provider reported an error: ${quote(message, 300)}`));
    }
    const keys = Object.keys(body)
      .slice(0, 5)
      .map((key) => quote(key, 30));
    return fail(
      new ProviderError(
        'unexpected-response',
        `The provider answered with JSON that is not a chat completion (no "choices"; it has ${
          keys.length ? keys.join(', ') : 'no fields'
        }): check the worker's base URL and model.`,
      ),
    );
  }
  return fail(
    new ProviderError(
      'unexpected-response',
      `The provider answered with JSON that is not a chat completion.`,
    ),
  );
}

function fail(error: ProviderError): never {
  throw error;
}

/**
 * The `data` of each event of an event stream fed to it as text, as the openai SDK reads them: an event is
 * dispatched at its blank line, and one the stream ends inside is not, unless it is the `[DONE]`
 * terminator (noted in `seen`). The parsing is eventsource-parser's, as for Anthropic's stream.
 */
function eventData(seen: StreamSeen, dispatch: (data: string) => void) {
  let ending = false;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data.startsWith('[DONE]')) seen.done = true;
      if (!ending) dispatch(data);
    },
  });
  return {
    push: (text: string) => parser.feed(text),
    end: () => {
      ending = true;
      // What is left is an event the stream ended inside: it is read only for the terminator.
      parser.feed('\n\n');
    },
  };
}

/**
 * The chunks of an answer to a streaming chat request, each batch as one read of the body brought them,
 * read in one pass: an event stream is decoded once and each event's JSON parsed once, with no stream
 * between the body and this reader. An event that holds `error` is thrown as the SDK throws it
 * (`APIError` without a status); the `[DONE]` terminator is noted in `seen`, and whatever follows it is
 * not read as chunks. Anything that is not an event stream is read whole: a non-streamed completion
 * gives its chunks, a web page or anything else a ProviderError naming it. The body is cancelled if the
 * reader stops early.
 */
export async function* answerChunks(response: Response, seen: StreamSeen): AsyncGenerator<unknown[]> {
  const body = response.body;
  if (!body) return;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    let text = '';
    let ended = false;
    // Up to the first character that is not white space: enough to tell a page or JSON from SSE fields.
    while (text.trim() === '') {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        break;
      }
      text += decoder.decode(next.value, { stream: true });
    }
    const first = text.trimStart()[0];
    if (type === 'text/event-stream' && first !== '<' && first !== '{') {
      let batch: unknown[] = [];
      // Thrown once the chunks before it have been given.
      let failure: { error: unknown } | undefined;
      const lines = eventData(seen, (data) => {
        if (seen.done || failure) return;
        try {
          const chunk = JSON.parse(data) as { error?: unknown } | null;
          if (chunk?.error) throw new APIError(undefined, chunk.error, undefined, response.headers);
          batch.push(chunk);
        } catch (error) {
          failure = { error };
        }
      });
      lines.push(text);
      for (;;) {
        if (batch.length > 0) {
          const ready = batch;
          batch = [];
          yield ready;
        }
        if (failure) throw failure.error;
        if (ended) break;
        const next = await reader.read();
        if (next.done) {
          ended = true;
          lines.push(decoder.decode());
          lines.end();
        } else lines.push(decoder.decode(next.value, { stream: true }));
      }
      finished = true;
      return;
    }
    while (!ended) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
      if (text.length > MAX_WHOLE_BODY_CHARS) {
        throw new ProviderError(
          'unexpected-response',
          `The provider answered with ${type || 'no content type'} of more than 8 MB, not a chat completion.`,
        );
      }
    }
    finished = true;
    text += decoder.decode();
    if (first === '<') throw htmlError(text, type || 'no content type');
    const chunks = wholeBody(text, type === 'text/event-stream' ? 'text/event-stream' : type);
    seen.done = true;
    yield chunks;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * A redirect answered instead of the API is thrown (never followed); any other answer passes, error
 * statuses untouched for their error body to be read.
 */
export async function refusingRedirects(response: Response): Promise<Response> {
  const redirect = redirectError(response);
  if (redirect) {
    await response.body?.cancel().catch(() => {});
    throw redirect;
  }
  return response;
}
