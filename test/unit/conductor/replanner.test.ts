import { describe, expect, it } from 'vitest';
import { replannerFor } from '../../../src/conductor/replanner.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine, GenerateRequest, ModelRef } from '../../../workers/engines/engine.ts';

/** An engine that answers every generation with `output` and records what it was asked. */
function recording(output: string) {
  const requests: GenerateRequest[] = [];
  let loaded: ModelRef | undefined;
  const engine: ConductorEngine = {
    kind: 'wllama',
    loaded: () => loaded,
    async load(m) {
      loaded = m;
    },
    async generate(request) {
      requests.push(request);
      request.onToken(output);
      return { text: output, promptTokens: 1, completionTokens: 1, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {},
  };
  return { engine, requests };
}

const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };
const input = (signal: AbortSignal) => ({
  question: 'Add two numbers.',
  steps: [{ worker: 'a', task: 'do it', sees: [] }],
  answers: ['3'],
  depth: 1,
  signal,
});

describe('replannerFor: the replanning context is bound per run', () => {
  it('two runs over different pools each plan for their own pool, in any order', async () => {
    const accept = '{"thought":"fine","steps":[]}';
    const s = recording(accept);
    const host = new EngineHost(async () => s.engine);
    await host.load(model);
    const first = replannerFor(host, { pool: [{ id: 'a', label: 'Alpha', strengths: 'x' }], maxSteps: 2 });
    const second = replannerFor(host, { pool: [{ id: 'b', label: 'Beta', strengths: 'y' }], maxSteps: 2 });
    const signal = new AbortController().signal;
    expect(await second.replan(input(signal))).toEqual([]);
    expect(await first.replan(input(signal))).toEqual([]);
    const prompts = s.requests.map((r) => JSON.stringify(r.messages));
    expect(prompts[0]).toContain('Beta');
    expect(prompts[0]).not.toContain('Alpha');
    expect(prompts[1]).toContain('Alpha');
    expect(prompts[1]).not.toContain('Beta');
  });

  it("passes the run's signal through, so cancelling the run stops the replan", async () => {
    const s = recording('{"thought":"t","steps":[]}');
    const host = new EngineHost(async () => s.engine);
    await host.load(model);
    const abort = new AbortController();
    abort.abort();
    const replanner = replannerFor(host, { pool: [{ id: 'a', label: 'Alpha', strengths: 'x' }] });
    await expect(replanner.replan(input(abort.signal))).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(s.requests).toHaveLength(0);
  });
});
