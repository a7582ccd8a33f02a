import type { RunConductor } from '../../../src/app/services.ts';
import type { ChatMessage } from '../../../src/shared/chat.ts';
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
  return recordingConductor(output).conductor;
}

/** The same, keeping every prompt the planner was given. */
export function recordingConductor(output: string): { conductor: RunConductor; prompts: ChatMessage[][] } {
  const prompts: ChatMessage[][] = [];
  const engine = scriptedEngine(output);
  const host = new EngineHost(async () => ({
    ...engine,
    generate(request) {
      prompts.push(request.messages);
      return engine.generate(request);
    },
  }));
  let requests = 0;
  return { prompts, conductor: hostConductor(host, () => ++requests) };
}

function hostConductor(host: EngineHost, next: () => number): RunConductor {
  return {
    plan(request, onEvent) {
      return host.plan({ ...request, model, requestId: `plan-${next()}` }, onEvent);
    },
    replan(request, onEvent) {
      return host.replan({ ...request, model, requestId: `replan-${next()}` }, onEvent);
    },
    chat() {
      return Promise.reject(new Error('This test has no on-device worker.'));
    },
  };
}
