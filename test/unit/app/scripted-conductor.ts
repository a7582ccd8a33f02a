import type { RunConductor } from '../../../src/app/services.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine } from '../../../workers/engines/engine.ts';

const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };

/** The conductor's engine, "generating" a scripted output a few characters at a time. */
export function scriptedEngine(output: string): ConductorEngine {
  let loaded: ModelRef | undefined;
  return {
    kind: 'wllama',
    loaded: () => loaded,
    async load(m) {
      loaded = m;
    },
    async generate(request) {
      const pieces = output.match(/.{1,4}/gs) ?? [];
      for (const piece of pieces) {
        request.onToken(piece);
        await Promise.resolve();
      }
      return { text: output, promptTokens: 10, completionTokens: pieces.length, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {
      loaded = undefined;
    },
  };
}

/** The real in-thread host (prompt, grammar, incremental parse) over the scripted engine, as the bridge calls it. */
export function scriptedConductor(output: string): RunConductor {
  const host = new EngineHost(async () => scriptedEngine(output));
  let requests = 0;
  return {
    plan(request, onEvent) {
      return host.plan({ ...request, model, requestId: `plan-${++requests}` }, onEvent);
    },
    replan(request, onEvent) {
      return host.replan({ ...request, model, requestId: `replan-${++requests}` }, onEvent);
    },
    chat() {
      return Promise.reject(new Error('This test has no on-device worker.'));
    },
  };
}
