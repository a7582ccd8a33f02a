import { attachmentBytesById, hasImages, type PartsMessage } from '../shared/chat.ts';
import { labelOf } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { ProviderError } from './errors.ts';
import type { ToolCallNote, ToolUse, UserWait } from './tool-use.ts';

/** What the executor sends for one attempt of one step. */
export interface ChatRequest {
  /** Text, or parts with images and attached files' text (a worker that takes no images must get none). */
  messages: PartsMessage[];
  signal: AbortSignal;
  /** For the egress ledger: which run and step this request belongs to. */
  runId: string;
  stepIndex: number;
  /**
   * Settles once the answers this request reads are in the run store: the request must not leave before
   * (a reload then never finds an answer it paid for missing). Egress waits for it beside its own ledger
   * write, so the two writes cost one wait, not two in a row.
   */
  ready?: Promise<void>;
  /**
   * This step's answer is the run's final answer (as the plan stands when it is sent). A transport whose
   * answer would only say it has none (the `run` worker with no code to run) fails instead.
   */
  final?: boolean;
  /** The tools the step was granted (src/tools/): the transport runs the tool loop in its dialect. */
  tools?: ToolUse;
  /** Runs a question to the user (the passphrase, before the request) off the step's clocks. */
  userWait?: UserWait;
}

/**
 * Who a request belongs to, passed to the injected `fetch` as an extra `baton` field of its `RequestInit`
 * (a plain `fetch` ignores it), so egress can write the request's ledger entry for its run and step
 * without parsing the body.
 */
export interface EgressContext {
  runId: string;
  stepIndex: number;
  workerId: string;
  providerId: string;
  /** The request's `ready` (see ChatRequest): an injected fetch (egress's) sends nothing before it settles. */
  ready?: Promise<void>;
  /** Bytes of the body that are attachments (`attachmentBytes`), for the ledger; absent when none are. */
  attachmentBytes?: number;
  /** The same bytes by attachment (content hash): which document, and how much of it. */
  documentBytes?: Record<string, number>;
}

/**
 * A request with an image for a worker not known to take images is refused before anything is sent: the
 * plan's checks keep images from text-only workers, and this keeps it so should one get past them.
 */
export function refuseImagesFor(worker: WorkerSpec, request: Pick<ChatRequest, 'messages'>): void {
  if (worker.vision === true) return;
  if (!request.messages.some((message) => hasImages(message.content))) return;
  throw new ProviderError(
    'bad-request',
    `${labelOf(worker)} takes no images (${worker.model} is not marked as taking image input): ` +
      'the request was not sent.',
  );
}

/** Whose request this is, for egress's ledger: its run, step and worker, its `ready`, its attachments' bytes. */
export function egressContextOf(
  request: Pick<ChatRequest, 'runId' | 'stepIndex' | 'ready' | 'messages'>,
  worker: Pick<WorkerSpec, 'id' | 'providerId'>,
): EgressContext {
  const documentBytes = attachmentBytesById(request.messages);
  const bytes = Object.values(documentBytes).reduce((sum, n) => sum + n, 0);
  return {
    runId: request.runId,
    stepIndex: request.stepIndex,
    workerId: worker.id,
    providerId: worker.providerId,
    ...(request.ready ? { ready: request.ready } : {}),
    ...(bytes > 0 ? { attachmentBytes: bytes, documentBytes } : {}),
  };
}

export type BatonRequestInit = RequestInit & { baton?: EgressContext };

/** A web page a provider says its answer drew on: an http(s) URL (never fetched by Baton) and its title. */
export interface Citation {
  url: string;
  title?: string;
}

/**
 * What a transport streams. `usage` may come more than once (Gemini sends it on many chunks, Anthropic's
 * `message_delta` carries a running total): the last one wins, never the sum. `reasoning` is the model's
 * thinking (DeepSeek `reasoning_content`, Ollama/OpenRouter `reasoning`, Anthropic thinking blocks): it
 * proves the stream is alive but is not the answer, and is never sent to later steps. A `citation` may come
 * more than once for one page (Perplexity repeats its list on every chunk): the step keeps each URL once.
 */
export type ChatEvent =
  | { type: 'delta'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'usage';
      promptTokens: number;
      completionTokens: number;
      /** Of `completionTokens`, how many were reasoning (when the provider says). */
      reasoningTokens?: number;
      /** Of `promptTokens`, how many were read from the provider's cache (when it says). */
      cachedPromptTokens?: number;
      /** US dollars the provider itself reports for the request (OpenRouter `usage.cost`): wins over the price table. */
      cost?: number;
    }
  /** A source of a worker that searched the web (src/providers/web-search.ts): display, never context. */
  | ({ type: 'citation' } & Citation)
  /** The model asked for a tool call (src/providers/tool-use.ts): the stream is alive while it runs. */
  | { type: 'tool-call'; name: string }
  /** How a tool call went (its result stays in the transport's requests: never shown, never context). */
  | ({ type: 'tool-used' } & ToolCallNote)
  /**
   * Why a whole answer ended, once, last, when the provider said: its own word (`reason`), and whether
   * that is its output limit (`cut`: the answer was cut short and can be continued; finish-reason.ts).
   */
  | { type: 'finish'; reason: string; cut: boolean };

/**
 * Sends one chat request to one worker and streams the answer. Implementations: the OpenAI-compatible
 * HTTP transport (through the egress module), and the on-device `local` worker.
 * Failures are thrown as `ProviderError` (src/providers/errors.ts) so the retry policy can classify them.
 */
export interface ChatTransport {
  stream(worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent>;
}
