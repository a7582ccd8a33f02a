/**
 * Egress: the one module through which every request of ours leaves the page. It sends a request only to
 * the origin of the provider it is for, attaches that provider's key (and no other), sends only the
 * headers the provider needs (policy.ts), and writes one ledger entry per request, before it leaves, with
 * bytes and tokens counted as the response streams through (metering.ts). This file puts the two in order.
 */
import type { ProviderPreset } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import { watchCspViolations } from '../providers/network-cause.ts';
import type { BatonRequestInit, EgressContext } from '../providers/transport.ts';
import { mayHoldSecretEnding } from '../vault/redact.ts';
import { signedForS3 } from './backup-endpoints.ts';
import { egressPreset } from './egress-presets.ts';
import type { Ledger, LedgerEntry, LedgerPurpose } from './ledger.ts';
import { countedResponse, EntryWriter, errorText, hasNoBody, purposeOf, sizedBody } from './metering.ts';
import {
  checkDestination,
  keyAskedFor,
  missingKey,
  namedFailure,
  outgoingHeaders,
  refusedRedirect,
  scrubBody,
  transportInit,
  uncheckedBody,
  unknownProvider,
  vaultRefused,
} from './policy.ts';
import { diagnoseUnreachable } from './unreachable.ts';

/** What egress needs from the vault (src/vault/vault.ts implements it). */
export interface KeySource {
  /** The key bound to a provider at an origin, if any. */
  keyFor(providerId: string, origin: string): Promise<string | undefined>;
  /**
   * Every saved key bound to another origin, or to another provider at `origin`: removed from any body
   * going to `providerId` at `origin`, and from what comes back.
   */
  keysNotBoundTo(origin: string, providerId?: string): Promise<string[]>;
  /** Every saved key's provider, origin and last four characters (`••••` for a short key); readable while locked. */
  listKeys?(): Promise<{ providerId: string; origin: string; last4: string }[]>;
}

export interface EgressOptions {
  vault: KeySource;
  ledger: Pick<Ledger, 'add' | 'update'>;
  /** Defaults to the catalog and egress's own providers (egress-presets.ts). */
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
  /** The pool worker a chat request is for, so the ledger can say which one sent it (and who took over). */
  workerId?: string;
  workerLabel?: string;
  /** Of the request's body, the bytes that are attachments (from the transport's EgressContext). */
  attachmentBytes?: number;
  /** An MCP server's request (src/tools/): the server's name, and the tool a `tools/call` calls. */
  server?: string;
  tool?: string;
  /** The same bytes by attachment (content hash). */
  documentBytes?: Record<string, number>;
  /** The region an S3-compatible backup target's requests are signed for (its preset's auth is `sigv4`). */
  region?: string;
}

export interface EgressRequest extends EgressTarget {
  /** Appended to the base URL: `/models`, `/chat/completions`. */
  path: string;
  method?: string;
  /** JSON-serialised when not a string. */
  body?: unknown;
  signal?: AbortSignal;
}

export interface Egress {
  /**
   * A `fetch` for the openai SDK (or any client) that sends through egress on behalf of `target`. The run
   * and step of each request are read from `init.baton` (the transport's EgressContext) when it has one:
   * one `fetchFor` per worker serves all its requests (see chat-transports.ts).
   */
  fetchFor(target: EgressTarget): typeof fetch;
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
  /**
   * Settles once no request is on its way out (being checked, recorded, waiting for its `ready`, or sent
   * and its answer's head not yet back), and no answer is between its last byte and a task after its end
   * reached the reader (its ledger entry being completed, then the request that end sets off). A page that
   * draws after it does not put its drawing between a step's last byte and the next step's request
   * reaching the provider. Counted as left once `fetch` was called, a request still had the fetch worker's
   * hop and a CORS preflight ahead of it, and a draw then, on two cores, held it up: a 5-step run in the
   * app took about 1.3 % longer than the same requests with bare `fetch` instead of 1.1 %.
   */
  idle(): Promise<void>;
}

/** What a request's EgressContext adds to its worker's target: its run and step, its attachments' bytes. */
function requestOf(
  baton: EgressContext,
): Pick<EgressTarget, 'runId' | 'stepIndex' | 'attachmentBytes' | 'documentBytes'> {
  return {
    runId: baton.runId,
    stepIndex: baton.stepIndex,
    ...(baton.attachmentBytes ? { attachmentBytes: baton.attachmentBytes } : {}),
    ...(baton.documentBytes ? { documentBytes: baton.documentBytes } : {}),
  };
}

/** What a fetch call asks for, from its input and init as `fetch` reads them (a Request's own first). */
async function requestParts(input: RequestInfo | URL, init: RequestInit) {
  let urlText: string;
  let method = (init.method ?? 'GET').toUpperCase();
  let clientHeaders: HeadersInit | undefined = init.headers;
  let rawBody: BodyInit | null | undefined = init.body;
  let signal = init.signal ?? undefined;
  if (typeof Request !== 'undefined' && input instanceof Request) {
    urlText = input.url;
    if (init.method === undefined) method = input.method.toUpperCase();
    if (init.headers === undefined) clientHeaders = input.headers;
    if (init.body === undefined && method !== 'GET' && method !== 'HEAD') rawBody = await input.arrayBuffer();
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
  return { url, method, clientHeaders, rawBody, signal };
}

/** A request's ledger row before anything is decided: nothing sent yet, no key attached. */
function pendingEntry(
  target: EgressTarget,
  mode: 'cors' | 'probe',
  url: URL | undefined,
  method: string,
  started: number,
): Omit<LedgerEntry, 'id'> {
  return {
    time: started,
    ...(target.runId !== undefined ? { runId: target.runId } : {}),
    ...(target.stepIndex !== undefined ? { stepIndex: target.stepIndex } : {}),
    ...(target.workerId !== undefined ? { workerId: target.workerId } : {}),
    ...(target.workerLabel ? { worker: target.workerLabel } : {}),
    ...(target.server !== undefined ? { server: target.server } : {}),
    ...(target.tool !== undefined ? { tool: target.tool } : {}),
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
}

export function createEgress(options: EgressOptions): Egress {
  const presetFor = options.presetFor ?? egressPreset;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const { vault, ledger } = options;
  watchCspViolations();

  // Requests between send() and fetch (or their refusal), answers between their last byte and a task
  // after their end reached the reader, and who waits for there to be none.
  let leaving = 0;
  let whenIdle: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Counts one request as on its way out; the function returned says it has left (once). */
  function outbound(): () => void {
    leaving++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--leaving === 0 && whenIdle) {
        whenIdle.resolve();
        whenIdle = undefined;
      }
    };
  }

  /**
   * Why a request failed without an answer, where it can be told: offline, or blocked by the app's CSP
   * (network-cause.ts), else nothing listening or no CORS, asked with `probe` (a no-cors probe,
   * unreachable.ts, as "Test connection" says for the same host; a probe that failed is itself the answer
   * "nothing answered"); undefined for a cancel, or when nothing more can be said.
   */
  async function explained(
    target: EgressTarget,
    preset: ProviderPreset,
    href: string,
    error: unknown,
    signal: AbortSignal | undefined,
    probe: () => Promise<boolean>,
  ): Promise<ProviderError | undefined> {
    if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) return undefined;
    const named = await namedFailure(href, error);
    if (named || error instanceof ProviderError) return named;
    try {
      return await diagnoseUnreachable({
        preset,
        providerId: target.providerId,
        baseURL: target.baseURL,
        probe,
      });
    } catch {
      return undefined; // cancelled while probing: the cancel is what happened
    }
  }

  /** A `no-cors` GET of `{baseURL}/models` without key or headers: whether any server answered. */
  async function probe(target: EgressTarget, signal?: AbortSignal): Promise<boolean> {
    try {
      await send(target, `${target.baseURL.replace(/\/+$/, '')}/models`, signal ? { signal } : {}, 'probe');
      return true;
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      if (error instanceof Error && error.name === 'AbortError') throw error;
      return false;
    }
  }

  async function refuse(base: Omit<LedgerEntry, 'id'>, error: ProviderError): Promise<never> {
    try {
      await ledger.add({ ...base, sent: false, state: 'error', error: error.message, durationMs: 0 });
    } catch (writeError) {
      console.error('ledger write failed', writeError);
    }
    throw error;
  }

  /**
   * Locked, so the keys of other hosts are unknown and cannot be scrubbed. A body may still go when it
   * provably holds none of them: their last four characters (listed while locked) are in it in no form
   * scrubbing knows (src/vault/redact.ts `mayHoldSecretEnding`). So a step for a worker that sends no key
   * (a local server) goes without the passphrase, and a connection test's one-line probe too, unless a key
   * was pasted into the model field or an earlier answer quotes one. A short key cannot be ruled out.
   */
  async function holdsNoSavedKey(body: BodyInit, origin: string, providerId: string): Promise<boolean> {
    if (typeof body !== 'string' || !vault.listKeys) return false;
    const endings = (await vault.listKeys())
      .filter((k) => k.origin !== origin || k.providerId !== providerId)
      .map((k) => k.last4);
    return !mayHoldSecretEnding(body, endings);
  }

  async function send(
    target: EgressTarget,
    input: RequestInfo | URL,
    init: RequestInit = {},
    mode: 'cors' | 'probe' = 'cors',
    ready?: Promise<void>,
  ): Promise<Response> {
    const left = outbound();
    try {
      return await sendCounted(target, input, init, mode, ready, left);
    } finally {
      left();
    }
  }

  async function sendCounted(
    target: EgressTarget,
    input: RequestInfo | URL,
    init: RequestInit,
    mode: 'cors' | 'probe',
    ready: Promise<void> | undefined,
    left: () => void,
  ): Promise<Response> {
    const started = Date.now();
    const { url, method, clientHeaders, rawBody, signal } = await requestParts(input, init);
    const base = pendingEntry(target, mode, url, method, started);

    const preset = presetFor(target.providerId);
    if (!preset) return refuse(base, unknownProvider(target.providerId));
    const destination = checkDestination(preset, target.baseURL, url);
    if ('refused' in destination) return refuse(base, destination.refused);
    const allowedOrigin = destination.origin;
    const { host, href } = destination.url;

    let key: string | undefined;
    if (mode === 'cors' && preset.auth !== 'none') {
      try {
        key = await vault.keyFor(target.providerId, allowedOrigin);
      } catch (error) {
        // Locked vault, or the provider's keys are bound to another origin: nothing is sent.
        return refuse(base, vaultRefused(preset, error));
      }
    }
    if (mode === 'cors' && preset.needsKey && !key) return refuse(base, missingKey(preset, host));

    const headers = mode === 'probe' ? new Headers() : outgoingHeaders(preset, clientHeaders, key);
    let sized =
      mode === 'probe' ? { body: undefined, bytes: 0 } : await sizedBody(href, method, rawBody, headers);

    // A key of another origin never leaves in a body (an earlier worker's answer may quote one).
    let foreign: string[] | undefined;
    if (mode === 'cors') {
      try {
        foreign = await vault.keysNotBoundTo(allowedOrigin, target.providerId);
      } catch (error) {
        if (
          sized.body !== undefined &&
          sized.bytes > 0 &&
          !(await holdsNoSavedKey(sized.body, allowedOrigin, target.providerId))
        )
          return refuse(base, uncheckedBody(preset, host, error));
        // Locked, and no body: nothing to check on the way out, and nothing known to scrub on the way in.
      }
    }
    let keysRemoved = 0;
    if (foreign && foreign.length > 0 && sized.body !== undefined && sized.bytes > 0) {
      const scrubbed = await scrubBody({ body: sized.body, bytes: sized.bytes }, foreign);
      sized = scrubbed;
      keysRemoved = scrubbed.removed;
    }

    // Signed last: the signature covers the headers and the body as they leave.
    let headersOut = headers;
    if (mode === 'cors' && preset.auth === 'sigv4' && key) {
      try {
        headersOut = await signedForS3(
          { href, method, headers, body: sized.body },
          key,
          target.region ?? 'auto',
        );
      } catch (error) {
        return refuse(base, error instanceof ProviderError ? error : vaultRefused(preset, error));
      }
    }

    let writer: EntryWriter;
    try {
      // The caller's own write (the answers this request reads, stored) runs beside the ledger's.
      const [entry] = await Promise.all([
        ledger.add({
          ...base,
          sent: true,
          keyAttached: Boolean(key),
          ...(keysRemoved > 0 ? { keysRemoved } : {}),
          bytesOut: sized.bytes,
          ...(target.attachmentBytes ? { attachmentBytes: target.attachmentBytes } : {}),
          ...(target.documentBytes ? { documentBytes: target.documentBytes } : {}),
        }),
        ready,
      ]);
      writer = new EntryWriter(ledger, entry);
    } catch (error) {
      // A request the ledger cannot record does not leave.
      throw new ProviderError(
        'refused',
        `Could not record the request in the ledger (${errorText(error, key)})`,
      );
    }

    let response: Response;
    try {
      const sending = fetchImpl(href, {
        method,
        headers: headersOut,
        ...(sized.body !== undefined ? { body: sized.body } : {}),
        ...(signal ? { signal } : {}),
        ...transportInit(mode),
      });
      response = await sending;
      // Its head is back: the request has reached the provider (see `idle`).
      left();
    } catch (error) {
      // Its own ledger row, of no run or step: it is no request of the step's (and paid nothing).
      const probeAgain = () => probe({ providerId: target.providerId, baseURL: target.baseURL }, signal);
      const named =
        mode === 'cors' ? await explained(target, preset, href, error, signal, probeAgain) : undefined;
      // A failed probe's row says what the failure means, as the chat row it explains does; the probe's
      // caller still gets the bare failure (it is the answer "nothing answered").
      const said =
        named ??
        (mode === 'probe'
          ? await explained(target, preset, href, error, signal, async () => false)
          : undefined);
      await writer.write({
        state: 'error',
        error: errorText(said ?? error, key),
        durationMs: Date.now() - started,
      });
      throw named ?? error;
    }

    // A redirect, or a key asked for that Baton has none of: the answer is not the provider's.
    const refused =
      mode !== 'cors'
        ? undefined
        : (refusedRedirect(response) ??
          (!key && preset.auth !== 'none' && response.status === 401
            ? keyAskedFor(preset, host)
            : undefined));
    if (refused) {
      await response.body?.cancel().catch(() => undefined);
      await writer.write({
        state: 'error',
        status: response.status,
        error: refused.message,
        durationMs: Date.now() - started,
      });
      throw refused;
    }

    if (hasNoBody(response)) {
      await writer.write({ state: 'done', status: response.status, durationMs: Date.now() - started });
      return response;
    }
    // Every saved key, this host's own included, is also taken out of the answer as it streams in, so a
    // provider that echoes a key does not put it on screen, in History or in an export.
    const answerSecrets = [...(foreign ?? []), ...(key ? [key] : [])];
    return countedResponse(response, { writer, started, key, answerSecrets, ending: outbound });
  }

  return {
    fetchFor(target) {
      return (input, init) => {
        const { baton, ...rest } = (init ?? {}) as BatonRequestInit;
        return send(baton ? { ...target, ...requestOf(baton) } : target, input, rest, 'cors', baton?.ready);
      };
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
    idle() {
      if (leaving === 0) return Promise.resolve();
      if (!whenIdle) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        whenIdle = { promise, resolve };
      }
      return whenIdle.promise;
    },
    async hasKey(target) {
      try {
        return (await vault.keyFor(target.providerId, new URL(target.baseURL).origin)) !== undefined;
      } catch {
        return true; // locked with a key saved for it (or a corrupt one): a key exists
      }
    },
    probe,
  };
}
