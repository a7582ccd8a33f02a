import { expose } from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { ConductorBridge } from '../../../src/conductor/bridge.ts';
import { replannerFor } from '../../../src/conductor/replanner.ts';
import type { ConductorEvent, ModelRef } from '../../../src/shared/conductor-api.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine } from '../../../workers/engines/engine.ts';

/**
 * The bridge against the real host over real comlink, through a MessageChannel standing in for the Web
 * Worker (node has none); only the engine is scripted. `hold` makes each generation wait until released.
 */
function threadWithHost(outputs: string[]) {
  const releases: (() => void)[] = [];
  let loaded: ModelRef | undefined;
  const loads: ModelRef[] = [];
  const engine: ConductorEngine = {
    kind: 'wllama',
    loaded: () => loaded,
    async load(m) {
      loads.push(m);
      loaded = m;
    },
    async generate(request) {
      await new Promise<void>((resolve) => {
        releases.push(resolve);
        request.signal.addEventListener('abort', () => resolve());
      });
      if (request.signal.aborted)
        return { text: '', promptTokens: 1, completionTokens: 0, finishReason: 'abort' };
      const text = outputs.shift() ?? '';
      request.onToken(text);
      return { text, promptTokens: 1, completionTokens: 1, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {
      loaded = undefined;
    },
  };
  class Thread extends EngineHost {
    ping() {
      return 'pong';
    }
  }
  const channel = new MessageChannel();
  expose(new Thread(async () => engine), channel.port2 as unknown as Parameters<typeof expose>[1]);
  const thread = Object.assign(channel.port1, {
    terminate: () => {
      channel.port1.close();
      channel.port2.close();
    },
  }) as unknown as Worker;
  return { thread, releases, loads };
}

const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };
const pool = [
  { id: 'w1', label: 'Small', strengths: 'fast' },
  { id: 'w2', label: 'Big', strengths: 'strong' },
];
const plan = '{"thought":"t","steps":[{"worker":"w1","task":"do it","sees":[]}]}';
const waitFor = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 1));
};

let bridge: ConductorBridge | undefined;
afterEach(() => bridge?.dispose());

describe('ConductorBridge: the page side of the one conductor service', () => {
  it('queues generations, so the host runs one at a time and both answer', async () => {
    const t = threadWithHost([plan, plan]);
    bridge = new ConductorBridge({ createConductorThread: () => t.thread, loadedModel: () => model });
    const first = bridge.plan({ question: 'one', pool, mode: 'conductor' });
    const second = bridge.plan({ question: 'two', pool, mode: 'conductor' });
    await waitFor(() => t.releases.length === 1);
    t.releases.shift()?.();
    await first;
    await waitFor(() => t.releases.length === 1);
    t.releases.shift()?.();
    expect((await second).plan.steps).toHaveLength(1);
  });

  it('streams every event through one listener, stats last, before the call resolves', async () => {
    const t = threadWithHost([plan]);
    bridge = new ConductorBridge({ createConductorThread: () => t.thread, loadedModel: () => model });
    const events: ConductorEvent['kind'][] = [];
    const running = bridge.plan({ question: 'q', pool, mode: 'conductor' }, (event) => {
      events.push(event.kind);
    });
    await waitFor(() => t.releases.length === 1);
    t.releases.shift()?.();
    await running;
    expect(events[0]).toBe('token');
    expect(events).toContain('step');
    expect(events.at(-1)).toBe('stats');
  });

  it("names the owner's loaded model in each request, and refuses when none is loaded", async () => {
    const t = threadWithHost([plan]);
    let loaded: ModelRef | undefined;
    bridge = new ConductorBridge({ createConductorThread: () => t.thread, loadedModel: () => loaded });
    await expect(bridge.plan({ question: 'q', pool, mode: 'conductor' })).rejects.toMatchObject({
      name: 'ModelNotLoaded',
    });
    loaded = model;
    const running = bridge.plan({ question: 'q', pool, mode: 'conductor' });
    await waitFor(() => t.releases.length === 1);
    t.releases.shift()?.();
    await running;
    expect(t.loads).toEqual([model]);
  });

  it("a request's signal is the cancel path: a running call stops softly, a queued one never starts", async () => {
    const t = threadWithHost([plan]);
    bridge = new ConductorBridge({ createConductorThread: () => t.thread, loadedModel: () => model });
    const abort = new AbortController();
    const running = bridge.plan({ question: 'q', pool, mode: 'conductor', signal: abort.signal });
    const queued = bridge.plan({ question: 'q2', pool, mode: 'conductor', signal: abort.signal });
    await waitFor(() => t.releases.length === 1);
    abort.abort();
    await expect(running).rejects.toMatchObject({ name: 'PlanCancelled' });
    await expect(queued).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(bridge.restartCount).toBe(0);
  });

  it('a replanner bound to a run replans through the bridge with that run’s pool', async () => {
    const t = threadWithHost(['{"thought":"ok","steps":[]}']);
    bridge = new ConductorBridge({ createConductorThread: () => t.thread, loadedModel: () => model });
    const replanner = replannerFor(bridge, { pool, maxSteps: 2 });
    const steps = replanner.replan({
      question: 'q',
      steps: [{ worker: 'w1', task: 'do it', sees: [] }],
      answers: ['3'],
      depth: 1,
      signal: new AbortController().signal,
    });
    await waitFor(() => t.releases.length === 1);
    t.releases.shift()?.();
    expect(await steps).toEqual([]);
  });
});
