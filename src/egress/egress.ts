/**
 * Egress: the one module through which every request of ours leaves the page. It sends a request only to
 * the origin of the provider it is for, attaches that provider's key (and no other), sends only the
 * headers the provider needs, and writes one ledger entry per request, with bytes and tokens counted as
 * the response streams through.
 */
import { redirectError } from '../providers/answer-response.ts';
import { originOf, type ProviderPreset, presetById } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import { explainFetchFailure, watchCspViolations } from '../providers/network-cause.ts';
import { createSecretScrubber, redactSecrets, removeSecrets } from '../vault/redact.ts';
import type { Ledger, LedgerEntry, LedgerPurpose } from './ledger.ts';

/** What egress needs from the vault (src/vault/vault.ts implements it). */
export interface KeySource {
  /** The key bound to a provider at an origin, if any. */
  keyFor(providerId: string, origin: string): Promise<string | undefined>;
  /** Every saved key bound to another origin: removed from any body going to `origin`. */
  keysNotBoundTo(origin: string): Promise<string[]>;
}

export interface EgressOptions {
  vault: KeySource;
  ledger: Pick<Ledger, 'add' | 'update'>;
  /** Defaults to the catalog. */
  presetFor?: (providerId: string) => ProviderPreset | undefined;
  fetchImpl?: typeof fetch;
}

/** Who a request is for: the provider, the base URL the worker uses, and the run/step for the ledger. */
export interface EgressTarget {
  providerId: string;
  baseURL: string;
  runId?: string;
  stepIndex?: number;
  /** Inferred from the path when absent. */
  purpose?: LedgerPurpose;
}

export interface EgressRequest extends EgressTarget {
  /** Appended to the base URL: `/models`, `/chat/completions`. */
  path: string;
  method?: string;
  /** JSON-serialised when not a string. */
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * What the OpenAI transport (src/providers/openai-transport.ts) passes as an extra `baton` field of the
 * `RequestInit`: who the request is for. Same shape as its `EgressContext`.
 */
export interface BatonContext {
  runId: string;
  stepIndex: number;
  workerId?: string;
  providerId: string;
}

export interface Egress {
  /** A `fetch` for the openai SDK (or any client) that sends through egress on behalf of `target`. */
  fetchFor(target: EgressTarget): typeof fetch;
  /**
   * A `fetch` that reads who the request is for from `init.baton` (see BatonContext) and refuses requests
   * without it. The provider's origin is the request's: cloud presets are pinned to their own origin, and
   * the vault gives a key only for the origin it was saved for.
   */
  fetch: typeof fetch;
  /** One request to `baseURL + path` (model discovery, connection test). */
  request(request: EgressRequest): Promise<Response>;
  /**
   * A `no-cors` GET of `{baseURL}/models` without key or headers: resolves true when the host answered at
   * all (the answer is opaque), false when it could not be reached. Tells "CORS refused" from "unreachable".
   */
  probe(target: EgressTarget, signal?: AbortSignal): Promise<boolean>;
  /**
   * Whether a key is saved for the provider at `target.baseURL`'s origin (true while the vault is locked
   * and one is saved): tells "no key saved" from "the key was rejected" after a 401. Never the key.
   */
  hasKey(target: Pick<EgressTarget, 'providerId' | 'baseURL'>): Promise<boolean>;
}

/** Headers that carry credentials: whatever the client put there is replaced by egress. */
const AUTH_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie']);
/** The only client headers kept when a preset strips the SDK's headers (a strict preflight allows these). */
const KEPT_HEADERS = new Set(['content-type', 'accept']);

/**
 * The headers a request to `preset` carries: the client's (all but credentials, or only Content-Type and
 * Accept when the preset strips SDK headers), then the preset's own, then the key in the preset's style.
 */
export function outgoingHeaders(
  preset: ProviderPreset,
  clientHeaders: HeadersInit | undefined,
  key?: string,
) {
  const out = new Headers();
  for (const [name, value] of new Headers(clientHeaders)) {
    if (AUTH_HEADERS.has(name)) continue;
    if (preset.stripSdkHeaders && !KEPT_HEADERS.has(name)) continue;
    out.set(name, value);
  }
  for (const [name, value] of Object.entries(preset.headers)) out.set(name, value);
  if (key !== undefined && key !== '') {
    if (preset.auth === 'bearer') out.set('authorization', `Bearer ${key}`);
    else if (preset.auth === 'x-api-key') out.set('x-api-key', key);
  }
  return out;
}

function purposeOf(path: string): LedgerPurpose {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/models')) return 'models';
  return 'other';
}

const encoder = new TextEncoder();

/** A body whose size is known, and that size. Unusual bodies (FormData, streams) are materialised once. */
async function sizedBody(
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

/**
 * `body` with every one of `secrets` replaced by the redaction marker. Text bodies are edited as text;
 * binary ones byte for byte (keys are ASCII, so a byte-level match is exact and other bytes are kept).
 */
async function scrubBody(
  sized: { body: BodyInit; bytes: number },
  secrets: string[],
): Promise<{ body: BodyInit; bytes: number; removed: number }> {
  const { body } = sized;
  if (typeof body === 'string') {
    const { text, removed } = removeSecrets(body, secrets);
    return { body: text, bytes: encoder.encode(text).byteLength, removed };
  }
  let bytes: Uint8Array;
  if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  else if (typeof Blob !== 'undefined' && body instanceof Blob)
    bytes = new Uint8Array(await body.arrayBuffer());
  else return { ...sized, removed: 0 }; // sizedBody leaves no other kind
  const { text, removed } = removeSecrets(toBinary(bytes), secrets);
  if (removed === 0) return { body, bytes: bytes.byteLength, removed };
  const out = fromBinary(text);
  return { body: out, bytes: out.byteLength, removed };
}

/** Bytes as a string of char codes 0–255 (keys are ASCII, so matching them here is byte-exact). */
function toBinary(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return binary;
}

function fromBinary(binary: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** An error for the ledger: short, with the key scrubbed in every form it may be echoed in. */
function errorText(error: unknown, key: string | undefined): string {
  const text =
    error instanceof Error
      ? error.name === 'AbortError'
        ? 'Aborted'
        : `${error.name}: ${error.message}`
      : String(error);
  return redactSecrets(text, [key]).slice(0, 300);
}

const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/** Reads `usage` from an OpenAI-style body (JSON or SSE) as it passes, without holding it all. */
class UsageSniffer {
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
      const lines = (this.pending + text).split('\n');
      this.pending = lines.pop() ?? '';
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
      const usage = (JSON.parse(text) as { usage?: Record<string, unknown> | null })?.usage;
      if (!usage) return;
      const prompt = usage.prompt_tokens ?? usage.input_tokens;
      const completion = usage.completion_tokens ?? usage.output_tokens;
      if (typeof prompt === 'number') this.promptTokens = prompt;
      if (typeof completion === 'number') this.completionTokens = completion;
    } catch {
      // Not JSON (a malformed chunk): the client will report it; the ledger just has no tokens.
    }
  }
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function createEgress(options: EgressOptions): Egress {
  const presetFor = options.presetFor ?? presetById;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const { vault, ledger } = options;
  watchCspViolations();

  async function refuse(base: Omit<LedgerEntry, 'id'>, error: ProviderError): Promise<never> {
    try {
      await ledger.add({ ...base, sent: false, state: 'error', error: error.message, durationMs: 0 });
    } catch (writeError) {
      console.error('ledger write failed', writeError);
    }
    throw error;
  }

  async function send(
    target: EgressTarget,
    input: RequestInfo | URL,
    init: RequestInit = {},
    mode: 'cors' | 'probe' = 'cors',
  ): Promise<Response> {
    const started = Date.now();
    let urlText: string;
    let method = (init.method ?? 'GET').toUpperCase();
    let clientHeaders: HeadersInit | undefined = init.headers;
    let rawBody: BodyInit | null | undefined = init.body;
    let signal = init.signal ?? undefined;
    if (typeof Request !== 'undefined' && input instanceof Request) {
      urlText = input.url;
      if (init.method === undefined) method = input.method.toUpperCase();
      if (init.headers === undefined) clientHeaders = input.headers;
      if (init.body === undefined && method !== 'GET' && method !== 'HEAD')
        rawBody = await input.arrayBuffer();
      signal ??= input.signal;
    } else {
      urlText = String(input);
    }

    let url: URL | undefined;
    try {
      url = new URL(urlText);
    } catch {
      url = undefined;
    }
    const base: Omit<LedgerEntry, 'id'> = {
      time: started,
      ...(target.runId !== undefined ? { runId: target.runId } : {}),
      ...(target.stepIndex !== undefined ? { stepIndex: target.stepIndex } : {}),
      purpose: mode === 'probe' ? 'probe' : (target.purpose ?? purposeOf(url?.pathname ?? '')),
      providerId: target.providerId,
      host: url?.host ?? '(invalid URL)',
      method,
      path: url?.pathname ?? '',
      sent: false,
      keyAttached: false,
      state: 'pending',
      bytesOut: 0,
      bytesIn: 0,
    };

    const preset = presetFor(target.providerId);
    if (!preset) return refuse(base, new ProviderError('refused', `Unknown provider "${target.providerId}"`));
    let allowedOrigin: string;
    try {
      allowedOrigin = new URL(target.baseURL).origin;
    } catch {
      return refuse(base, new ProviderError('refused', `${preset.name}: the base URL is not a valid URL`));
    }
    const pinnedOrigin = preset.baseURLEditable ? undefined : originOf(preset.baseURL);
    if (pinnedOrigin !== undefined && allowedOrigin !== pinnedOrigin) {
      return refuse(
        base,
        new ProviderError(
          'refused',
          `${preset.name} requests go only to ${pinnedOrigin}, not ${allowedOrigin}`,
        ),
      );
    }
    if (!url || url.origin !== allowedOrigin) {
      return refuse(
        base,
        new ProviderError(
          'refused',
          `Refused a request for ${preset.name} to ${url?.origin ?? 'an invalid URL'}: its requests go only to ${allowedOrigin}`,
        ),
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return refuse(
        base,
        new ProviderError('refused', `Refused a ${url.protocol} request for ${preset.name}`),
      );
    }
    if (url.username || url.password) {
      return refuse(base, new ProviderError('refused', 'Refused a URL with credentials in it'));
    }

    let key: string | undefined;
    if (mode === 'cors' && preset.auth !== 'none') {
      try {
        key = await vault.keyFor(target.providerId, allowedOrigin);
      } catch (error) {
        // Locked vault, or the provider's keys are bound to another origin: nothing is sent.
        const reason = error instanceof Error ? error.message : String(error);
        return refuse(base, new ProviderError('refused', `${preset.name}: ${reason}`));
      }
    }
    if (mode === 'cors' && preset.needsKey && !key) {
      return refuse(
        base,
        new ProviderError(
          'auth',
          `No key is saved for ${preset.name} at ${url.host}: add one in Settings → API keys`,
        ),
      );
    }

    const headers = mode === 'probe' ? new Headers() : outgoingHeaders(preset, clientHeaders, key);
    let sized =
      mode === 'probe' ? { body: undefined, bytes: 0 } : await sizedBody(url.href, method, rawBody, headers);

    // A key of another origin never leaves in a body (an earlier worker's answer may quote one).
    let foreign: string[] | undefined;
    if (mode === 'cors') {
      try {
        foreign = await vault.keysNotBoundTo(allowedOrigin);
      } catch (error) {
        if (sized.body !== undefined && sized.bytes > 0) {
          const reason = error instanceof Error ? error.message : String(error);
          return refuse(
            base,
            new ProviderError(
              'refused',
              `${preset.name}: the request to ${url.host} was not sent, because it could not be checked for saved keys of other hosts (${reason})`,
            ),
          );
        }
        // Locked, and no body: nothing to check on the way out, and nothing known to scrub on the way in.
      }
    }
    let keysRemoved = 0;
    if (foreign && foreign.length > 0 && sized.body !== undefined && sized.bytes > 0) {
      const scrubbed = await scrubBody({ body: sized.body, bytes: sized.bytes }, foreign);
      sized = scrubbed;
      keysRemoved = scrubbed.removed;
    }
    // Every saved key, this host's own included, is also taken out of the answer as it streams in, so a
    // provider that echoes a key does not put it on screen, in History or in an export. (Only a key that
    // arrives whole in the bytes is caught: one a model spells out token by token across stream events
    // is not, and is stopped on its way out instead, above.)
    const answerSecrets = [...(foreign ?? []), ...(key ? [key] : [])];

    let entry: LedgerEntry;
    try {
      entry = await ledger.add({
        ...base,
        sent: true,
        keyAttached: Boolean(key),
        ...(keysRemoved > 0 ? { keysRemoved } : {}),
        bytesOut: sized.bytes,
      });
    } catch (error) {
      // A request the ledger cannot record does not leave.
      throw new ProviderError(
        'refused',
        `Could not record the request in the ledger (${errorText(error, key)})`,
      );
    }
    let writes: Promise<void> = Promise.resolve();
    const write = (changes: Partial<LedgerEntry>) => {
      entry = { ...entry, ...changes };
      const snapshot = entry;
      writes = writes
        .then(() => ledger.update(snapshot))
        .catch((error) => console.error('ledger write failed', error));
      return writes;
    };

    let response: Response;
    try {
      response = await fetchImpl(url.href, {
        method,
        headers,
        ...(sized.body !== undefined ? { body: sized.body } : {}),
        ...(signal ? { signal } : {}),
        // Never cookies, never the page's URL, never follow a redirect with the key to another place: it
        // is stopped here and named below. (A probe carries no key and no headers, and no-cors allows only
        // 'follow'.)
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        redirect: mode === 'probe' ? 'follow' : 'manual',
        ...(mode === 'probe' ? { mode: 'no-cors' as const } : { mode: 'cors' as const }),
      });
    } catch (error) {
      // "Failed to fetch" says nothing; offline and a CSP block can be told, and are named.
      const named = mode === 'cors' ? await explainFetchFailure(url.href, error) : undefined;
      await write({
        state: 'error',
        error: errorText(named ?? error, key),
        durationMs: Date.now() - started,
      });
      throw named ?? error;
    }

    const redirect = mode === 'cors' ? redirectError(response) : undefined;
    if (redirect) {
      await write({
        state: 'error',
        status: response.status,
        error: redirect.message,
        durationMs: Date.now() - started,
      });
      throw redirect;
    }

    if (mode === 'cors' && !key && preset.auth !== 'none' && response.status === 401) {
      // The host wants a key and none is saved for it: say that, not "the key was rejected".
      await response.body?.cancel().catch(() => undefined);
      const message = `${preset.name} at ${url.host} asks for a key (401), and no key is saved for ${url.host}: add one in Settings → API keys`;
      await write({ state: 'error', status: 401, error: message, durationMs: Date.now() - started });
      throw new ProviderError('auth', message, 401);
    }

    const body = response.body;
    if (
      !body ||
      response.type === 'opaque' ||
      response.type === 'opaqueredirect' ||
      NULL_BODY_STATUSES.has(response.status)
    ) {
      await write({ state: 'done', status: response.status, durationMs: Date.now() - started });
      return response;
    }
    void write({ state: 'streaming', status: response.status });

    const contentType = response.headers.get('content-type') ?? '';
    const sniffer =
      response.ok && (contentType.includes('event-stream') || contentType.includes('json'))
        ? new UsageSniffer(contentType.includes('event-stream'))
        : undefined;
    const scrubber = answerSecrets.length > 0 ? createSecretScrubber(answerSecrets) : undefined;
    let bytesIn = 0;
    let finished = false;
    const finish = (changes: Partial<LedgerEntry>) => {
      if (finished) return writes;
      finished = true;
      sniffer?.end();
      return write({
        bytesIn,
        durationMs: Date.now() - started,
        ...(sniffer?.promptTokens !== undefined ? { promptTokens: sniffer.promptTokens } : {}),
        ...(sniffer?.completionTokens !== undefined ? { completionTokens: sniffer.completionTokens } : {}),
        ...(scrubber && scrubber.removed > 0 ? { answerKeysRemoved: scrubber.removed } : {}),
        ...changes,
      });
    };

    // A pull-through stream rather than a TransformStream so a cancel by the reader is seen too. The end
    // of the body reaches the reader only after the final ledger write: once a client has read a response,
    // its ledger entry is complete.
    const reader = body.getReader();
    const counted = new ReadableStream<Uint8Array>({
      async pull(controller) {
        // Loops only while the scrubber holds everything read so far back (a possible start of a key):
        // the reader is never handed an empty chunk.
        for (;;) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (error) {
            await finish({ state: 'error', error: errorText(error, key) });
            controller.error(error);
            return;
          }
          if (result.done) {
            const tail = scrubber?.end();
            if (tail) controller.enqueue(fromBinary(tail));
            await finish({ state: 'done' });
            controller.close();
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
        await finish({
          state: 'error',
          error: `Cancelled by the reader${reason ? ` (${errorText(reason, key)})` : ''}`,
        });
        await reader.cancel(reason);
      },
    });
    const wrapped = new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(wrapped, 'url', { value: response.url });
    return wrapped;
  }

  return {
    fetchFor(target) {
      return (input, init) => send(target, input, init);
    },
    async fetch(input, init) {
      const baton = (init as (RequestInit & { baton?: BatonContext }) | undefined)?.baton;
      const urlText = typeof Request !== 'undefined' && input instanceof Request ? input.url : String(input);
      let origin = '';
      try {
        origin = new URL(urlText).origin;
      } catch {
        // send() refuses an invalid URL and records it.
      }
      const { baton: _omit, ...rest } = (init ?? {}) as RequestInit & { baton?: BatonContext };
      // Without a context the provider is unknown: send() refuses it and records the refusal.
      const target: EgressTarget = baton
        ? { providerId: baton.providerId, baseURL: origin, runId: baton.runId, stepIndex: baton.stepIndex }
        : { providerId: '(none)', baseURL: origin };
      return send(target, input, rest);
    },
    request(request) {
      const { path, method, body, signal, ...target } = request;
      const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (text !== undefined) headers['content-type'] = 'application/json';
      return send(target, `${target.baseURL.replace(/\/+$/, '')}${path}`, {
        method: method ?? (text === undefined ? 'GET' : 'POST'),
        headers,
        ...(text !== undefined ? { body: text } : {}),
        ...(signal ? { signal } : {}),
      });
    },
    async hasKey(target) {
      try {
        return (await vault.keyFor(target.providerId, new URL(target.baseURL).origin)) !== undefined;
      } catch {
        return true; // locked with a key saved for it (or a corrupt one): a key exists
      }
    },
    async probe(target, signal) {
      try {
        await send(target, `${target.baseURL.replace(/\/+$/, '')}/models`, signal ? { signal } : {}, 'probe');
        return true;
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        if (error instanceof Error && error.name === 'AbortError') throw error;
        return false;
      }
    },
  };
}
