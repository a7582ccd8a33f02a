import { createAnthropicTransport } from '../providers/anthropic-transport.ts';
import { dialectOf } from '../providers/dialects.ts';
import { createOpenAITransport } from '../providers/openai-transport.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { Egress } from './egress.ts';

/**
 * The transport of each cloud worker, in its provider's wire (the dialect table): Anthropic's native
 * Messages API or OpenAI-compatible chat. Its fetch is egress on behalf of that worker's provider at its
 * base URL (egress attaches the key for that origin, decides which headers leave, and writes the ledger;
 * the transport passes run and step along in `init.baton`). One per worker, made on first use. The app's
 * runs and the tests both send through this.
 */
export function chatTransports(egress: Pick<Egress, 'fetchFor'>): (worker: WorkerSpec) => ChatTransport {
  const cache = new Map<string, ChatTransport>();
  return (worker) => {
    let transport = cache.get(worker.id);
    if (!transport) {
      const fetch = egress.fetchFor({
        providerId: worker.providerId,
        baseURL: worker.baseURL,
        purpose: 'chat',
        workerId: worker.id,
        workerLabel: worker.label,
      });
      transport =
        dialectOf(worker.providerId).wire === 'anthropic-messages'
          ? createAnthropicTransport({ fetch })
          : createOpenAITransport({ fetch });
      cache.set(worker.id, transport);
    }
    return transport;
  };
}
