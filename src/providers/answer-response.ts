/**
 * What a provider answered a streaming chat request with, made into the event stream the openai SDK reads,
 * or into a ProviderError that names what it was instead. The SDK parses any body as SSE when it asked
 * for a stream, so a web page, a JSON error or a whole non-streamed completion would otherwise all look
 * like "a stream that ended early".
 */
import { EmptyAnswerError, ProviderError, redactKeyLike } from './errors.ts';

/** What the stream carried that the SDK does not pass on: the `[DONE]` terminator. */
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

const encoder = new TextEncoder();
const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

interface Completion {
  id?: unknown;
  model?: unknown;
  created?: unknown;
  choices: { message?: { content?: unknown } | null; finish_reason?: unknown }[];
  usage?: unknown;
}

/** A whole `chat.completion` as the chunks a streaming answer would have sent, usage and `[DONE]` included. */
function completionAsEvents(completion: Completion): string {
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
  return `${sse({ ...head, choices })}${usage ? sse({ ...head, choices: [], usage }) : ''}${sse('[DONE]')}`;
}

/** A body that is not an event stream: a whole completion is accepted, anything else is named. */
function wholeBody(text: string, type: string): string {
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
    if (Array.isArray(body.choices)) return completionAsEvents(body as unknown as Completion);
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

/** Replays the chunks already read, then the rest of the body. */
function replay(
  head: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = head[index];
      if (chunk) {
        index++;
        controller.enqueue(chunk);
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

const LF = 0x0a;
const CR = 0x0d;

/** Whether the byte `b`, after `p1`, `p2`, `p3` (the bytes before it, nearest first), ends an event. */
function endsEvent(b: number, p1: number, p2: number, p3: number): boolean {
  // The blank line the openai SDK splits events at: "\n\n", "\r\r" or "\r\n\r\n".
  return (
    (b === LF && p1 === LF) || (b === CR && p1 === CR) || (b === LF && p1 === CR && p2 === LF && p3 === CR)
  );
}

/** `parts` joined into one array (copied once). */
function joined(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Passes an event stream on one whole event at a time, watching for `data: [DONE]`, which the SDK
 * swallows. The openai SDK joins every chunk to the bytes it holds and searches them all again for an
 * event's end, so an event that came in many chunks (one 5 MB answer chunk) cost it time quadratic in its
 * length; given each event whole, it copies and searches each byte once. Here an unfinished event is
 * kept as its pieces and joined once, when its end comes.
 */
function wholeEvents(body: ReadableStream<Uint8Array>, seen: StreamSeen): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let tail = '';
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  // The last three bytes seen, nearest first: an event's end may straddle two chunks.
  let p1 = -1;
  let p2 = -1;
  let p3 = -1;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = tail + decoder.decode(chunk, { stream: true });
        if (/(^|\n)data: ?\[DONE\]/.test(text)) seen.done = true;
        tail = text.slice(-16);
        let start = 0;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i] as number;
          if (endsEvent(b, p1, p2, p3)) {
            const piece = chunk.subarray(start, i + 1);
            controller.enqueue(joined([...held, piece], heldBytes + piece.length));
            held = [];
            heldBytes = 0;
            start = i + 1;
          }
          p3 = p2;
          p2 = p1;
          p1 = b;
        }
        if (start < chunk.length) {
          held.push(chunk.subarray(start));
          heldBytes += chunk.length - start;
        }
      },
      flush(controller) {
        if (heldBytes > 0) controller.enqueue(joined(held, heldBytes));
      },
    }),
  );
}

/**
 * Looks at the start of a successful answer before the SDK does: an event stream passes through (watched
 * for `[DONE]`); a web page, whatever its label, and a body that is not an event stream are read whole and
 * either accepted (a non-streamed completion, replayed as events) or thrown as a ProviderError naming them.
 * Error statuses pass through untouched: the SDK reads their error body.
 */
export async function asAnswerStream(response: Response, seen: StreamSeen): Promise<Response> {
  const redirect = redirectError(response);
  if (redirect) {
    await response.body?.cancel().catch(() => {});
    throw redirect;
  }
  if (!response.ok || !response.body) return response;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const head: Uint8Array[] = [];
  let text = '';
  let ended = false;
  // Up to the first character that is not white space: enough to tell a page or JSON from SSE fields.
  while (text.trim() === '') {
    const next = await reader.read();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    text += decoder.decode(next.value, { stream: true });
  }
  const first = text.trimStart()[0];
  const eventStream = type === 'text/event-stream';
  if (eventStream && first !== '<' && first !== '{') {
    return new Response(wholeEvents(replay(head, reader), seen), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
  while (!ended) {
    const next = await reader.read();
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
    if (text.length > MAX_WHOLE_BODY_CHARS) {
      await reader.cancel();
      throw new ProviderError(
        'unexpected-response',
        `The provider answered with ${type || 'no content type'} of more than 8 MB, not a chat completion.`,
      );
    }
  }
  text += decoder.decode();
  if (first === '<') throw htmlError(text, type || 'no content type');
  const events = wholeBody(text, eventStream ? 'text/event-stream' : type);
  const headers = new Headers(response.headers);
  headers.set('content-type', 'text/event-stream');
  headers.delete('content-length');
  return new Response(wholeEvents(new Blob([encoder.encode(events)]).stream(), seen), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
