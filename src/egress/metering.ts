/**
 * Egress metering: what a request costs, as the ledger records it. Bytes out (the body as sent), bytes
 * in and tokens (read from the answer as it streams through, without holding it), and the ledger
 * entry's updates in order. No decisions about what may be sent: that is policy.ts.
 */
import { ProviderError } from '../providers/errors.ts';
import { createSecretScrubber, redactSecrets } from '../vault/redact.ts';
import type { Ledger, LedgerEntry, LedgerPurpose } from './ledger.ts';
import { fromBinary, toBinary } from './policy.ts';

export function purposeOf(path: string): LedgerPurpose {
  if (path.endsWith('/chat/completions') || path.endsWith('/messages')) return 'chat';
  if (path.endsWith('/models')) return 'models';
  return 'other';
}

const encoder = new TextEncoder();

/** A body whose size is known, and that size. Unusual bodies (FormData, streams) are materialised once. */
export async function sizedBody(
  url: string,
  method: string,
  body: BodyInit | null | undefined,
  headers: Headers,
): Promise<{ body: BodyInit | undefined; bytes: number }> {
  if (body === undefined || body === null) return { body: undefined, bytes: 0 };
  if (typeof body === 'string') return { body, bytes: encoder.encode(body).byteLength };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { body, bytes: body.byteLength };
  if (typeof Blob !== 'undefined' && body instanceof Blob) return { body, bytes: body.size };
  if (body instanceof URLSearchParams) {
    const text = body.toString();
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return { body: text, bytes: encoder.encode(text).byteLength };
  }
  const request = new Request(url, { method, body, duplex: 'half' } as RequestInit);
  const buffer = await request.arrayBuffer();
  const type = request.headers.get('content-type');
  if (type && !headers.has('content-type')) headers.set('content-type', type);
  return { body: buffer, bytes: buffer.byteLength };
}

/** An error for the ledger: short, with the key scrubbed in every form it may be echoed in. */
export function errorText(error: unknown, key: string | undefined): string {
  // Our own errors are worded for people already ("Nothing is listening at …"); a platform error keeps
  // its name ("TypeError: …"), which says what kind of failure it was.
  const text =
    error instanceof ProviderError
      ? error.message
      : error instanceof Error
        ? error.name === 'AbortError'
          ? 'Aborted'
          : `${error.name}: ${error.message}`
        : String(error);
  return redactSecrets(text, [key]).slice(0, 300);
}

const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/** Reads `usage` from an OpenAI-style body (JSON or SSE) as it passes, without holding it all. */
export class UsageSniffer {
  promptTokens?: number;
  completionTokens?: number;
  private readonly decoder = new TextDecoder();
  private pending = '';
  private json = '';
  private jsonOverflow = false;

  constructor(private readonly sse: boolean) {}

  push(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.sse) {
      // Only the new text is searched for a line's end: splitting all that is pending on every chunk was
      // quadratic in a long line (one 5 MB event).
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        this.pending += text;
        return;
      }
      const lines = (this.pending + text.slice(0, end)).split('\n');
      this.pending = text.slice(end + 1);
      for (const line of lines) this.line(line);
    } else if (!this.jsonOverflow) {
      this.json += text;
      if (this.json.length > 4_000_000) {
        this.jsonOverflow = true;
        this.json = '';
      }
    }
  }

  end(): void {
    if (this.sse) {
      this.line(this.pending + this.decoder.decode());
    } else if (!this.jsonOverflow) {
      this.json += this.decoder.decode();
      this.take(this.json);
    }
  }

  private line(line: string): void {
    // With include_usage every chunk carries `"usage":null` and only the last one an object: parse just that
    // one, not every token's chunk a second time (the client parses them too). An unescaped `"usage"` cannot
    // occur inside a JSON string, so answer text does not match.
    if (!line.startsWith('data:') || !USAGE_OBJECT.test(line)) return;
    this.take(line.slice(5));
  }

  private take(text: string): void {
    try {
      type Usage = Record<string, unknown> | null;
      const parsed = JSON.parse(text) as { usage?: Usage; message?: { usage?: Usage } | null };
      // Anthropic's `message_start` nests its usage in `message`.
      const usage = parsed?.usage ?? parsed?.message?.usage;
      if (!usage) return;
      const prompt = usage.prompt_tokens ?? anthropicInput(usage);
      const completion = usage.completion_tokens ?? usage.output_tokens;
      if (typeof prompt === 'number') this.promptTokens = prompt;
      if (typeof completion === 'number') this.completionTokens = completion;
    } catch {
      // Not JSON (a malformed chunk): the client will report it; the ledger just has no tokens.
    }
  }
}

/** Anthropic's prompt: `input_tokens` counts only the uncached part; cache reads and writes are apart. */
function anthropicInput(usage: Record<string, unknown>): number | undefined {
  if (typeof usage.input_tokens !== 'number') return undefined;
  const cached = [usage.cache_read_input_tokens, usage.cache_creation_input_tokens];
  return cached.reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), usage.input_tokens);
}

/**
 * One request's ledger entry after it was added: each change is written after the one before (a slow
 * write never lands after a later one), and a failed write is logged, never thrown at the request.
 */
export class EntryWriter {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: Pick<Ledger, 'update'>,
    private entry: LedgerEntry,
  ) {}

  write(changes: Partial<LedgerEntry>): Promise<void> {
    this.entry = { ...this.entry, ...changes };
    const snapshot = this.entry;
    this.writes = this.writes
      .then(() => this.ledger.update(snapshot))
      .catch((error) => console.error('ledger write failed', error));
    return this.writes;
  }

  /** Every write so far has landed (or failed and been logged). */
  settled(): Promise<void> {
    return this.writes;
  }
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Whether an answer has no body to count (opaque, a redirect, a null-body status). */
export function hasNoBody(response: Response): boolean {
  return (
    !response.body ||
    response.type === 'opaque' ||
    response.type === 'opaqueredirect' ||
    NULL_BODY_STATUSES.has(response.status)
  );
}

export interface CountOptions {
  writer: EntryWriter;
  /** When the request started (Date.now()), for the entry's duration. */
  started: number;
  /** The key sent with the request: scrubbed from any error text the ledger records. */
  key: string | undefined;
  /** Saved keys taken out of the answer as it streams in (a provider that echoes one does not show it). */
  answerSecrets: string[];
  /**
   * Called at the body's last byte; what it returns is called a task after the end has reached the
   * reader, by when whatever the end set off (the next step's request) has begun. Egress counts the
   * time between as a request on its way out (its `idle`).
   */
  ending?: () => () => void;
}

/**
 * Chunks the counted body reads ahead of its reader. Read only as fast as the reader took them (one
 * chunk), the end of a body was seen, and its final ledger write begun, only once the reader had worked
 * through every event before it: that write then sat between a step's last byte and the next request.
 */
export const READ_AHEAD_CHUNKS = 64;

/**
 * `response` with its body counted as it arrives (up to READ_AHEAD_CHUNKS ahead of the reader): bytes
 * in, tokens from `usage`, keys removed. The end of the body reaches the reader only after the final
 * ledger write, so once a client has read a response its ledger entry is complete. A pull-through stream
 * rather than a TransformStream so a cancel by the reader is recorded too.
 */
export function countedResponse(response: Response, options: CountOptions): Response {
  const { writer, started, key, answerSecrets, ending } = options;
  const body = response.body;
  if (!body) return response;
  void writer.write({ state: 'streaming', status: response.status });

  const contentType = response.headers.get('content-type') ?? '';
  const sniffer =
    response.ok && (contentType.includes('event-stream') || contentType.includes('json'))
      ? new UsageSniffer(contentType.includes('event-stream'))
      : undefined;
  // Only a key that arrives whole in the bytes is caught: one a model spells out token by token across
  // stream events is not, and is stopped on its way out instead (policy's scrubBody).
  const scrubber = answerSecrets.length > 0 ? createSecretScrubber(answerSecrets) : undefined;
  let bytesIn = 0;
  let finished = false;
  const finish = (changes: Partial<LedgerEntry>) => {
    if (finished) return writer.settled();
    finished = true;
    sniffer?.end();
    return writer.write({
      bytesIn,
      durationMs: Date.now() - started,
      ...(sniffer?.promptTokens !== undefined ? { promptTokens: sniffer.promptTokens } : {}),
      ...(sniffer?.completionTokens !== undefined ? { completionTokens: sniffer.completionTokens } : {}),
      ...(scrubber && scrubber.removed > 0 ? { answerKeysRemoved: scrubber.removed } : {}),
      ...changes,
    });
  };

  const reader = body.getReader();
  let cancelled = false;
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Loops only while the scrubber holds everything read so far back (a possible start of a key):
        // the reader is never handed an empty chunk.
        for (;;) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (error) {
            await finish({ state: 'error', error: errorText(error, key) });
            if (!cancelled) controller.error(error);
            return;
          }
          // Read ahead, a read can end after the reader has cancelled: the cancel is what was recorded.
          if (cancelled) return;
          if (result.done) {
            const ended = ending?.();
            try {
              const tail = scrubber?.end();
              if (tail) controller.enqueue(fromBinary(tail));
              await finish({ state: 'done' });
              if (!cancelled) controller.close();
            } finally {
              if (ended) setTimeout(ended, 0);
            }
            return;
          }
          bytesIn += result.value.byteLength;
          sniffer?.push(result.value);
          if (!scrubber) {
            controller.enqueue(result.value);
            return;
          }
          const ready = scrubber.push(toBinary(result.value));
          if (ready) {
            controller.enqueue(fromBinary(ready));
            return;
          }
        }
      },
      async cancel(reason) {
        cancelled = true;
        await finish({
          state: 'error',
          error: `Cancelled by the reader${reason ? ` (${errorText(reason, key)})` : ''}`,
        });
        await reader.cancel(reason);
      },
    },
    new CountQueuingStrategy({ highWaterMark: READ_AHEAD_CHUNKS }),
  );
  const wrapped = new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(wrapped, 'url', { value: response.url });
  return wrapped;
}
