/**
 * Egress's requests are fetched in a worker, and their answers reach the page a window at a time. A
 * streamed answer arrives in hundreds of small network chunks, and each one the page reads is a task on its
 * main thread (delivering it, resolving the read, the counting stream's pull): for a five-step run that
 * was more main-thread time than everything else the app does with the answer. The worker reads the
 * network; the page gets the head at once, the first bytes at once, then what arrived at most every
 * WINDOW_MS, and the end (or the error) at once, with the bytes gathered before it, so no step's end or next
 * request waits on the window.
 *
 * Both sides of the protocol are here: `relayFetch` (the page's `fetch` for egress) and `serveFetches`
 * (the worker's loop, workers/fetch.worker.ts). Egress itself stays on the page: its checks, its ledger
 * entry, the key and the counting all happen before and after this hop, on the same Request and bytes.
 */
import { cspBlocked, noteCspBlocked, violationsDelivered, watchCspViolations } from './csp-violations.ts';

/** How long the worker gathers an answer's bytes before handing them over (after the first ones). */
export const WINDOW_MS = 100;

/** What a request needs in the worker: everything egress passes to `fetch`, as plain data. */
interface Sent {
  kind: 'fetch';
  id: number;
  url: string;
  method?: string;
  headers: [string, string][];
  body?: BodyInit;
  credentials?: RequestCredentials;
  referrerPolicy?: ReferrerPolicy;
  redirect?: RequestRedirect;
  mode?: RequestMode;
}

type ToWorker = Sent | { kind: 'abort' | 'cancel'; id: number };

/** A failure as plain data: structured clone keeps neither a TypeError's class nor a DOMException's name. */
interface Failure {
  name: string;
  message: string;
  /** The page's CSP blocked the request's origin (the violation event fired in the worker, not the page). */
  cspBlockedOrigin?: string;
}

type FromWorker =
  | {
      kind: 'head';
      id: number;
      status: number;
      statusText: string;
      type: ResponseType;
      url: string;
      redirected: boolean;
      headers: [string, string][];
      hasBody: boolean;
    }
  | { kind: 'bytes'; id: number; bytes: Uint8Array }
  /** The body's end, with the bytes gathered since the last hand-over: one task on the page, not two. */
  | { kind: 'end'; id: number; bytes?: Uint8Array }
  | { kind: 'error'; id: number; failure: Failure };

/** The part of a Worker (or a MessagePort, in tests) the relay talks through. */
export interface RelayPort {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message' | 'error', listener: (event: MessageEvent) => void): void;
}

function failureOf(error: unknown): Failure {
  if (error instanceof Error || error instanceof DOMException)
    return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** The error the page's own `fetch` would have thrown. */
function errorOf(failure: Failure): Error {
  if (failure.name === 'TypeError') return new TypeError(failure.message);
  if (failure.name === 'AbortError' || failure.name === 'TimeoutError')
    return new DOMException(failure.message, failure.name);
  const error = new Error(failure.message);
  error.name = failure.name;
  return error;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A `fetch` that sends through the worker at `port`. `direct` serves what cannot cross: a `no-cors` request
 * (egress's reachability probe), whose opaque answer cannot be rebuilt on the page.
 */
export function relayFetch(port: RelayPort, direct: typeof fetch): typeof fetch {
  let next = 0;
  const open = new Map<number, (message: FromWorker) => void>();
  // A worker that failed to start (or died) answers nothing: its requests fail with the cause, and the
  // page's own fetch sends from then on.
  let broken: string | undefined;
  port.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as FromWorker;
    open.get(message.id)?.(message);
  });
  port.addEventListener('error', (event) => {
    broken = (event as unknown as ErrorEvent).message || 'it could not start';
    const failure = { name: 'TypeError', message: `Failed to fetch: the fetch worker stopped (${broken})` };
    for (const [id, deliver] of open) deliver({ kind: 'error', id, failure });
  });

  return (input, init = {}) => {
    if (broken !== undefined || init.mode === 'no-cors' || typeof input !== 'string')
      return direct(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = next++;
    const headers = [...new Headers(init.headers).entries()];
    const sent: Sent = {
      kind: 'fetch',
      id,
      url: input,
      headers,
      ...(init.method !== undefined ? { method: init.method } : {}),
      ...(init.body !== undefined && init.body !== null ? { body: init.body } : {}),
      ...(init.credentials !== undefined ? { credentials: init.credentials } : {}),
      ...(init.referrerPolicy !== undefined ? { referrerPolicy: init.referrerPolicy } : {}),
      ...(init.redirect !== undefined ? { redirect: init.redirect } : {}),
      ...(init.mode !== undefined ? { mode: init.mode } : {}),
    };

    return new Promise<Response>((resolve, reject) => {
      let body: ReadableStreamDefaultController<Uint8Array> | undefined;
      let settled = false;
      const close = () => {
        open.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: unknown) => {
        close();
        if (!settled) reject(error);
        else body?.error(error);
        settled = true;
      };
      function onAbort() {
        port.postMessage({ kind: 'abort', id } satisfies ToWorker);
        fail(abortReason(signal!));
      }
      signal?.addEventListener('abort', onAbort, { once: true });

      open.set(id, (message) => {
        switch (message.kind) {
          case 'head': {
            settled = true;
            const stream = message.hasBody
              ? new ReadableStream<Uint8Array>({
                  start(controller) {
                    body = controller;
                  },
                  cancel() {
                    close();
                    port.postMessage({ kind: 'cancel', id } satisfies ToWorker);
                  },
                })
              : null;
            if (!stream) close();
            resolve(rebuilt(message, stream));
            return;
          }
          case 'bytes':
            body?.enqueue(message.bytes);
            return;
          case 'end':
            close();
            if (message.bytes) body?.enqueue(message.bytes);
            body?.close();
            return;
          case 'error':
            if (message.failure.cspBlockedOrigin) noteCspBlocked(message.failure.cspBlockedOrigin);
            fail(errorOf(message.failure));
        }
      });
      port.postMessage(sent);
    });
  };
}

/** The worker's answer as a page Response. The statuses a Response cannot be built with (a manual redirect's 0) are set over it. */
function rebuilt(head: Extract<FromWorker, { kind: 'head' }>, body: ReadableStream<Uint8Array> | null) {
  const buildable = head.status >= 200 && head.status <= 599;
  const response = new Response(body, {
    status: buildable ? head.status : 200,
    statusText: head.statusText,
    headers: head.headers,
  });
  Object.defineProperties(response, {
    url: { value: head.url },
    redirected: { value: head.redirected },
    type: { value: head.type },
    ...(buildable ? {} : { status: { value: head.status }, ok: { value: false } }),
  });
  return response;
}

/**
 * The worker's side: fetches what the page sends and hands the answers back a window at a time. `scope`
 * is the worker's global (its CSP violations are watched there) or, in tests, a MessagePort.
 */
export function serveFetches(scope: RelayPort & Partial<EventTarget>, fetchImpl: typeof fetch): void {
  watchCspViolations(scope as EventTarget);
  const aborts = new Map<number, AbortController>();
  const readers = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();
  const post = (message: FromWorker, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

  async function serve(sent: Sent): Promise<void> {
    const controller = new AbortController();
    aborts.set(sent.id, controller);
    try {
      let response: Response;
      try {
        const { kind: _kind, id: _id, url, ...init } = sent;
        response = await fetchImpl(url, { ...init, signal: controller.signal });
      } catch (error) {
        const failure = failureOf(error);
        await violationsDelivered();
        const origin = new URL(sent.url).origin;
        const blocked = cspBlocked(origin);
        post({
          kind: 'error',
          id: sent.id,
          failure: blocked ? { ...failure, cspBlockedOrigin: origin } : failure,
        });
        return;
      }
      post({
        kind: 'head',
        id: sent.id,
        status: response.status,
        statusText: response.statusText,
        type: response.type,
        url: response.url,
        redirected: response.redirected,
        headers: [...response.headers.entries()],
        hasBody: response.body !== null,
      });
      if (response.body) await relayBody(sent.id, response.body);
    } finally {
      aborts.delete(sent.id);
    }
  }

  /** Hands the body over: the first bytes at once, then a window's worth at a time, the end at once. */
  async function relayBody(id: number, body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    readers.set(id, reader);
    let gathered: Uint8Array[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let first = true;
    /** What was gathered, as one piece of bytes and what moves it (nothing when there is nothing). */
    const take = (): [Uint8Array, Transferable[]] | undefined => {
      if (gathered.length === 0) return undefined;
      const bytes = gathered.length === 1 ? gathered[0]! : joined(gathered);
      gathered = [];
      // Moved, not copied, when the bytes are their buffer's only view (a network chunk's are).
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      return [bytes, whole ? [bytes.buffer as ArrayBuffer] : []];
    };
    const flush = () => {
      timer = undefined;
      const taken = take();
      if (taken) post({ kind: 'bytes', id, bytes: taken[0] }, taken[1]);
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        gathered.push(value);
        if (first) {
          first = false;
          flush();
        } else {
          timer ??= setTimeout(flush, WINDOW_MS);
        }
      }
      if (timer !== undefined) clearTimeout(timer);
      // The last bytes and the end in one message: a step's end is one task on the page, with nothing (a
      // draw) between its last bytes and its end.
      const taken = take();
      post(taken ? { kind: 'end', id, bytes: taken[0] } : { kind: 'end', id }, taken?.[1] ?? []);
    } catch (error) {
      if (timer !== undefined) clearTimeout(timer);
      flush();
      post({ kind: 'error', id, failure: failureOf(error) });
    } finally {
      readers.delete(id);
    }
  }

  scope.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as ToWorker;
    if (message.kind === 'fetch') void serve(message);
    else if (message.kind === 'abort') aborts.get(message.id)?.abort();
    else
      readers
        .get(message.id)
        ?.cancel()
        .catch(() => undefined);
  });
}

function joined(chunks: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
