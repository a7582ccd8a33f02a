import { probeCapabilities } from '../../src/shared/capabilities.ts';
import { engineFailure } from '../../src/shared/engine-errors.ts';
import { chooseConductorModel } from '../../src/shared/model-choice.ts';
import type { LoadProgress, ModelRef } from '../../workers/engines/engine.ts';
import { createWebLlmEngine } from '../../workers/engines/webllm.ts';

/**
 * A dedicated module worker for the WebLLM browser test: the real engine (web-llm imported lazily, here
 * only), the real capability probe inside a worker, and structured results back to the page.
 */

export type HarnessRequest =
  | { id: number; op: 'choose' }
  | { id: number; op: 'cached'; model: ModelRef }
  | { id: number; op: 'load'; model: ModelRef }
  | { id: number; op: 'ping' };

const engine = createWebLlmEngine();
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<HarnessRequest>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (event) => {
  const request = event.data;
  const reply = (body: Record<string, unknown>) => scope.postMessage({ id: request.id, ...body });
  try {
    if (request.op === 'ping') return reply({ ok: true, value: 'pong' });
    if (request.op === 'choose') {
      const caps = await probeCapabilities();
      return reply({ ok: true, value: { caps, choice: chooseConductorModel(caps) } });
    }
    if (request.op === 'cached') {
      try {
        return reply({ ok: true, value: await engine.isCached(request.model) });
      } catch (error) {
        return reply({ ok: false, failure: engineFailure(error) });
      }
    }
    const progress: LoadProgress[] = [];
    const started = performance.now();
    try {
      await engine.load(request.model, (p) => progress.push(p));
      return reply({ ok: true, value: { progress, ms: performance.now() - started } });
    } catch (error) {
      return reply({ ok: false, failure: engineFailure(error), progress, ms: performance.now() - started });
    }
  } catch (error) {
    reply({ ok: false, failure: engineFailure(error) });
  }
};
