/**
 * Reports every request the conductor thread makes (its model downloads) to the page, which writes them in
 * the egress ledger. The thread cannot use the page's egress module (its IndexedDB ledger object, and the
 * listeners that keep the ledger panel live, belong to the page), so it sends one report when a request is
 * about to leave (awaited: the entry exists first), one when the headers arrive and one when the body ends.
 *
 * Both engines are covered: wllama downloads a GGUF with `fetch`; web-llm fills the Cache API with
 * `Cache.prototype.add`, which fetches without going through `fetch`, so `add` is redefined in the thread
 * as what it does by specification (fetch, refuse a non-ok answer, put) with the reporting fetch.
 * The local planner server's requests are reported the same way, marked as local planning
 * (`localPlanningFetch`), so the ledger tells them from downloads.
 */
import type { ConductorRequestPurpose, ModelDownloadReport } from '../src/shared/conductor-api.ts';
import { watchCspViolations } from '../src/shared/csp-violations.ts';

type Listener = (report: ModelDownloadReport) => unknown;

let listener: Listener | undefined;
let next = 0;
/** The report id of each response a reporting fetch returned, so its tokens can be reported later. */
const reportIds = new WeakMap<Response, string>();
/** Report ids must not collide with those of an earlier thread whose entries are still open on the page. */
const prefix = Math.random().toString(36).slice(2, 10);

/** Where reports go (a comlink proxy to the page); `undefined` stops reporting. */
export function setDownloadListener(value: Listener | undefined): void {
  listener = value;
}

function errorText(error: unknown): string {
  if (error instanceof Error)
    return error.name === 'AbortError' ? 'Aborted' : `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Sends a report; a page that cannot take it must not break the download. Resolves once the page has
 * handled it (written it in the ledger), never rejects.
 */
function tell(report: ModelDownloadReport): Promise<void> {
  return Promise.resolve(listener?.(report)).then(
    () => {},
    () => {},
  );
}

/** The size of a text body (what the SDK sends); 0 for none or a stream. */
function textBytes(body: BodyInit | null | undefined): number {
  return typeof body === 'string' ? new TextEncoder().encode(body).byteLength : 0;
}

/** `fetch`, reporting each request as `purpose`; without a listener it is the plain `fetch`. */
export function reportingFetch(
  inner: typeof fetch,
  purpose: ConductorRequestPurpose = 'model-download',
): typeof fetch {
  return async (input, init) => {
    const report = listener;
    if (!report) return inner(input, init);
    const request = new Request(input, init);
    const id = `${prefix}-${++next}`;
    const bytesOut = textBytes(init?.body);
    try {
      await report({
        kind: 'start',
        id,
        url: request.url,
        method: request.method,
        ...(purpose === 'model-download' ? {} : { purpose }),
        ...(bytesOut > 0 ? { bytesOut } : {}),
      });
    } catch (error) {
      // As in the page's egress: a request the ledger cannot record does not leave.
      const what = purpose === 'model-download' ? 'the model download' : 'the planner request';
      throw new TypeError(`Could not record ${what} in the ledger (${errorText(error)})`);
    }
    let response: Response;
    try {
      response = await inner(request);
    } catch (error) {
      void tell({ kind: 'end', id, bytes: 0, error: errorText(error) });
      throw error;
    }
    if (!response.ok || !response.body || response.type === 'opaque') {
      void tell({
        kind: 'end',
        id,
        status: response.status,
        bytes: 0,
        ...(response.ok ? {} : { error: `HTTP ${response.status}` }),
      });
      return response;
    }
    void tell({ kind: 'response', id, status: response.status });
    const reader = response.body.getReader();
    let bytes = 0;
    let ended = false;
    const end = (error?: unknown): Promise<void> => {
      if (ended) return Promise.resolve();
      ended = true;
      return tell({
        kind: 'end',
        id,
        status: response.status,
        bytes,
        ...(error === undefined ? {} : { error: errorText(error) }),
      });
    };
    const counted = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          void end(error);
          controller.error(error);
          return;
        }
        if (result.done) {
          // As for a provider's answer: once the reader has seen the end, its ledger entry is complete.
          await end();
          controller.close();
          return;
        }
        bytes += result.value.byteLength;
        controller.enqueue(result.value);
      },
      async cancel(reason) {
        void end(reason ?? new Error('Cancelled by the reader'));
        await reader.cancel(reason);
      },
    });
    const wrapped = new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(wrapped, 'url', { value: response.url });
    reportIds.set(wrapped, id);
    return wrapped;
  };
}

/**
 * Reports the tokens of a request made with a reporting fetch (`response` is what it returned), so its
 * ledger entry shows them. Nothing for a response it did not return.
 */
export function reportUsage(
  response: Response,
  usage: { promptTokens: number; completionTokens: number },
): void {
  const id = reportIds.get(response);
  if (id !== undefined) void tell({ kind: 'usage', id, ...usage });
}

let installed = false;
/** The thread's `fetch` before the reporter wrapped it. */
let plainFetch: typeof fetch | undefined;

/**
 * The fetch of the local planner engine: reported as local planning, over the thread's own `fetch` (not
 * the global one, which reports as a model download).
 */
export function localPlanningFetch(inner: typeof fetch | undefined = plainFetch): typeof fetch {
  if (!inner) throw new Error('Install the download reporter first: it keeps the plain fetch');
  return reportingFetch(inner, 'local-planning');
}

/** Routes the thread's `fetch` and `Cache.prototype.add` through `reportingFetch`. Once per thread. */
export function installDownloadReporter(scope: typeof globalThis = globalThis): void {
  if (installed) return;
  installed = true;
  // A thread loaded from a URL has its own CSP (its response headers): its violations are seen here.
  watchCspViolations(scope);
  const plain = scope.fetch.bind(scope);
  plainFetch = plain;
  const reporting = reportingFetch(plain);
  scope.fetch = reporting;
  const CacheClass = (scope as { Cache?: typeof Cache }).Cache;
  if (CacheClass) {
    CacheClass.prototype.add = async function add(this: Cache, info: RequestInfo | URL): Promise<void> {
      const request = new Request(info);
      const response = await reporting(request);
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new TypeError(`Could not get ${request.url}: HTTP ${response.status}`);
      }
      await this.put(request, response);
    };
  }
}
