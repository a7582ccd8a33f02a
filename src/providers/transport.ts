import type { WorkerSpec } from '../pool/types.ts';
import type { ChatMessage } from '../shared/chat.ts';

/** What the executor sends for one attempt of one step. */
export interface ChatRequest {
  messages: ChatMessage[];
  signal: AbortSignal;
  /** For the egress ledger: which run and step this request belongs to. */
  runId: string;
  stepIndex: number;
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
}

export type BatonRequestInit = RequestInit & { baton?: EgressContext };

export type ChatEvent =
  | { type: 'delta'; text: string }
  | { type: 'usage'; promptTokens: number; completionTokens: number };

/**
 * Sends one chat request to one worker and streams the answer. Implementations: the OpenAI-compatible
 * HTTP transport (through the egress module), and the on-device `local` worker.
 * Failures are thrown as `ProviderError` (src/providers/errors.ts) so the retry policy can classify them.
 */
export interface ChatTransport {
  stream(worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent>;
}
