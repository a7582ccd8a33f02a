import { describe, expect, it } from 'vitest';
import type { ConductorListener, PlanRequest, StepEvent } from '../../../src/shared/conductor-api.ts';
import { EngineHost, strongestWorker } from '../../../workers/engine-host.ts';
import type { ConductorEngine, GenerateRequest, ModelRef } from '../../../workers/engines/engine.ts';

/** The host's one event stream, split as these tests read it: tokens, and steps and restarts. */
function split(onToken: (text: string) => void, onStep: (event: StepEvent) => void): ConductorListener {
  return (event) => {
    if (event.kind === 'token') onToken(event.text);
    else if (event.kind !== 'stats') onStep(event);
  };
}

/** An engine that "generates" scripted outputs, piece by piece, and records its requests. */
function scripted(outputs: string[], options: { hangAfter?: number } = {}) {
  const requests: GenerateRequest[] = [];
  let model: ModelRef | undefined;
  let loads = 0;
  const engine: ConductorEngine = {
    kind: 'wllama',
    loaded: () => model,
    async load(m) {
      loads++;
      model = m;
    },
    async generate(request) {
      requests.push(request);
      const text = outputs.shift() ?? '';
      const pieces = text.match(/.{1,3}/gs) ?? [];
      let written = '';
      for (const [i, piece] of pieces.entries()) {
        if (request.signal.aborted)
          return { text: written, promptTokens: 10, completionTokens: i, finishReason: 'abort' };
        if (options.hangAfter !== undefined && i === options.hangAfter) {
          await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve()));
          return { text: written, promptTokens: 10, completionTokens: i, finishReason: 'abort' };
        }
        written += piece;
        request.onToken(piece);
        await Promise.resolve();
      }
      return { text, promptTokens: 10, completionTokens: pieces.length, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {
      model = undefined;
    },
  };
  return { engine, requests, loads: () => loads };
}

const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };
const pool = [
  { id: 'w1', label: 'Small', strengths: 'fast', costTier: 'low' as const },
  { id: 'w2', label: 'Big', strengths: 'strong', costTier: 'high' as const },
];
const request = (id: string): PlanRequest => ({
  requestId: id,
  model,
  question: 'Add two numbers.',
  pool,
  mode: 'conductor',
  maxSteps: 3,
  maxDepth: 0,
});
const good =
  '{"thought":"t","steps":[{"worker":"w1","task":"do it","sees":[]},{"worker":"w2","task":"check","sees":[0]}]}';

describe('EngineHost.plan', () => {
  it('loads the named model, streams tokens and each step before resolving, and returns the plan', async () => {
    const s = scripted([good]);
    const host = new EngineHost(async () => s.engine);
    const tokens: string[] = [];
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('a'),
      split(
        (t) => tokens.push(t),
        (e) => events.push(e),
      ),
    );
    expect(s.loads()).toBe(1);
    expect(tokens.join('')).toBe(good);
    expect(events.map((e) => e.kind === 'step' && e.index)).toEqual([0, 1]);
    expect(response.plan.steps).toHaveLength(2);
    expect(response.repaired).toBeUndefined();
    expect(response.fallback).toBeUndefined();
    // The constraint names exactly the pool's ids.
    const schema = s.requests[0]!.jsonSchema as {
      properties: { steps: { items: { properties: { worker: { enum: string[] } } } } };
    };
    expect(schema.properties.steps.items.properties.worker.enum).toEqual(['w1', 'w2']);
  });

  it('repairs an invalid plan once, quoting the validation error to the model', async () => {
    const bad = '{"steps":[{"worker":"w1","task":"x","sees":[4]}]}';
    const s = scripted([bad, good]);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('b'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(response.repaired?.error).toMatch(/step 4/);
    expect(response.plan.steps).toHaveLength(2);
    const repairPrompt = s.requests[1]!.messages.at(-1)!.content;
    expect(repairPrompt).toContain(response.repaired!.error.trim());
    expect(events.some((e) => e.kind === 'restart' && e.attempt === 2)).toBe(true);
  });

  it('rejects a self-check before the last step and has the model repair it', async () => {
    const selfFirst =
      '{"thought":"t","steps":[{"worker":"self","task":"check","sees":[]},{"worker":"w1","task":"do it","sees":[]}]}';
    const s = scripted([selfFirst, good]);
    const host = new EngineHost(async () => s.engine);
    const response = await host.plan({ ...request('s'), maxDepth: 2 }, () => {});
    expect(response.repaired?.error).toContain('may only be the last step');
    expect(response.plan.steps.map((step) => step.worker)).toEqual(['w1', 'w2']);
  });

  it('falls back to one step on the strongest worker after two invalid outputs, and says so', async () => {
    const s = scripted(['{"steps":[', 'not json']);
    const host = new EngineHost(async () => s.engine);
    const response = await host.plan(
      request('c'),
      split(
        () => {},
        () => {},
      ),
    );
    expect(response.fallback?.reason).toMatch(/Big/);
    expect(response.plan.steps).toEqual([{ worker: 'w2', task: 'Add two numbers.', sees: [] }]);
  });

  it('cancel stops the generation and rejects with PlanCancelled, and forgets the request', async () => {
    const s = scripted([good, good], { hangAfter: 3 });
    const host = new EngineHost(async () => s.engine);
    const tokens: string[] = [];
    const running = host.plan(
      request('d'),
      split(
        (t) => {
          tokens.push(t);
          if (tokens.length === 3) host.cancel('d');
        },
        () => {},
      ),
    );
    await expect(running).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(host.cancel('d')).toBe(false);
  });

  it('tells the model what the executor sends workers: the question by default, else only their tasks', async () => {
    const systemOf = async (extra: Partial<PlanRequest>) => {
      const s = scripted([good]);
      const host = new EngineHost(async () => s.engine);
      await host.plan({ ...request('q'), ...extra }, () => {});
      return s.requests[0]!.messages[0]!.content;
    };
    expect(await systemOf({})).toContain('Every worker gets the question too');
    const alone = await systemOf({ includeQuestion: false });
    expect(alone).toContain('Workers never get the question');
    expect(alone).not.toContain('the question too');
  });

  it('picks the highest cost tier as the strongest worker', () => {
    expect(strongestWorker(pool)?.id).toBe('w2');
    expect(strongestWorker([])).toBeUndefined();
  });
});

describe('EngineHost.replan', () => {
  const replanRequest = (id: string, depth: number) => ({
    requestId: id,
    model,
    question: 'Add two numbers.',
    pool: [...pool, { id: 'self', label: 'Conductor', strengths: 'plans', costTier: 'low' as const }],
    steps: [{ worker: 'w1', task: 'do it', sees: [] }],
    answers: ['3'],
    depth,
    maxSteps: 2,
    maxDepth: 2,
  });

  it('numbers corrective steps after the existing ones, constrains them, and returns their thought', async () => {
    const s = scripted(['{"thought":"check it","steps":[{"worker":"w2","task":"check","sees":[0]}]}']);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.replan(
      replanRequest('r', 1),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(response.steps).toEqual([{ worker: 'w2', task: 'check', sees: [0] }]);
    expect(response.thought).toBe('check it');
    expect(events.filter((e) => e.kind === 'step').map((e) => e.kind === 'step' && e.index)).toEqual([1]);
    const schema = JSON.stringify(s.requests[0]!.jsonSchema);
    expect(schema).toContain('"w2"');
    expect(s.requests[0]!.maxTokens).toBe(1024);
  });

  it('refuses a self step at the deepest level, then accepts the answer after two invalid outputs', async () => {
    const self = '{"thought":"t","steps":[{"worker":"self","task":"again","sees":[0]}]}';
    const s = scripted([self, self]);
    const host = new EngineHost(async () => s.engine);
    const response = await host.replan(
      replanRequest('r2', 2),
      split(
        () => {},
        () => {},
      ),
    );
    expect(response.steps).toEqual([]);
    expect(response.fallback?.reason).toContain('corrective steps were invalid twice');
  });
});

describe('EngineHost.plan: streamed steps are never taken back', () => {
  const s0 = '{"worker":"w1","task":"draft","sees":[]}';
  const s1 = '{"worker":"w2","task":"improve","sees":[0]}';
  const streamedSteps = (events: StepEvent[]) =>
    events.flatMap((e) => (e.kind === 'step' ? [{ index: e.index, attempt: e.attempt, step: e.step }] : []));

  it('keeps the valid steps before a fault and streams a repair that continues after them', async () => {
    const bad = `{"thought":"t","steps":[${s0},${s1},{"worker":"w1","task":" ","sees":[1]}]}`;
    const rest = '{"thought":"finish","steps":[{"worker":"w2","task":"final answer","sees":[0,1]}]}';
    const s = scripted([bad, rest]);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('keep'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(events.find((e) => e.kind === 'restart')).toMatchObject({ attempt: 2, kept: 2 });
    const streamed = streamedSteps(events);
    expect(streamed.map((e) => [e.index, e.attempt])).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
    ]);
    // Everything streamed is the final plan, in order: nothing went out that the plan does not have.
    expect(response.plan.steps).toEqual(streamed.map((e) => e.step));
    expect(response.plan.steps[2]).toEqual({ worker: 'w2', task: 'final answer', sees: [0, 1] });
    expect(response.repaired?.error).toBe('Step 2 has an empty task.');
    // The repair asks only for what comes after the kept steps, and its constraint numbers from step 2.
    const ask = s.requests[1]!.messages.at(-1)!.content;
    expect(ask).toContain('Steps 0–1 were valid and already running');
    expect(ask).toContain('numbered from step 2');
    const schema = s.requests[1]!.jsonSchema as {
      properties: { steps: { maxItems: number; minItems: number } };
    };
    expect(schema.properties.steps).toMatchObject({ maxItems: 1, minItems: 0 });
  });

  it('a repair that adds nothing leaves the kept steps as the plan', async () => {
    const cut = `{"thought":"t","steps":[${s0},${s1},{"worker":"w1","ta`;
    const s = scripted([cut, '{"thought":"enough","steps":[]}']);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('cut'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(response.plan.steps).toEqual(streamedSteps(events).map((e) => e.step));
    expect(response.plan.steps).toHaveLength(2);
  });

  it('with no room for another step the kept steps are the plan, without a second generation', async () => {
    const tooMany = `{"thought":"t","steps":[${s0},${s1},${s1},{"worker":"w1","task":"more","sees":[]}]}`;
    const s = scripted([tooMany]);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('full'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(s.requests).toHaveLength(1);
    expect(response.plan.steps).toEqual(streamedSteps(events).map((e) => e.step));
    expect(response.plan.steps).toHaveLength(3);
  });

  it('falls back after the kept steps: the strongest worker answers from them', async () => {
    const s = scripted([`{"thought":"t","steps":[${s0},{"worker":"w9"`, 'not json']);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('fallback'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    expect(response.fallback?.reason).toMatch(/Big answers the question after the step already running/);
    expect(response.plan.steps).toEqual([
      { worker: 'w1', task: 'draft', sees: [] },
      { worker: 'w2', task: 'Add two numbers.', sees: 'all' },
    ]);
    expect(response.plan.steps).toEqual(streamedSteps(events).map((e) => e.step));
    expect(events.filter((e) => e.kind === 'restart').map((e) => e.kind === 'restart' && e.kept)).toEqual([
      1, 1,
    ]);
  });
});

describe('EngineHost: errors name workers by their labels', () => {
  it('the repair reason shown on the page says "Small" (w1), not w1 alone', async () => {
    const s = scripted([
      '{"thought":"t","steps":[{"worker":"w1","task":"a","sees":[]},{"worker":"w9","task":"b","sees":[]}]}',
      'not json',
    ]);
    const host = new EngineHost(async () => s.engine);
    const events: StepEvent[] = [];
    const response = await host.plan(
      request('labels'),
      split(
        () => {},
        (e) => events.push(e),
      ),
    );
    const reason = events.find((e) => e.kind === 'restart');
    expect(reason?.kind === 'restart' && reason.reason).toBe(
      'Step 1 names worker "w9", which is not in the pool ("Small" (w1), "Big" (w2)).',
    );
    expect(response.fallback?.reason).toContain('"Small" (w1)');
  });
});

describe('EngineHost as the ConductorService: one event stream, one generation path', () => {
  it('ends every call with a stats event, after all tokens and steps, and waits for it to be received', async () => {
    const s = scripted([good]);
    const host = new EngineHost(async () => s.engine);
    const kinds: string[] = [];
    let received = false;
    const response = await host.plan(request('stats'), async (event) => {
      kinds.push(event.kind);
      if (event.kind === 'stats') {
        await new Promise((resolve) => setTimeout(resolve, 0));
        received = true;
      }
    });
    // The call settled only once its listener had taken the last event.
    expect(received).toBe(true);
    expect(kinds.at(-1)).toBe('stats');
    expect(kinds.filter((k) => k === 'stats')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'step')).toHaveLength(2);
    expect(kinds.indexOf('token')).toBeLessThan(kinds.indexOf('step'));
    expect(response.stats.completionTokens).toBeGreaterThan(0);
  });

  it('sends stats last also when the call fails, so nothing arrives after the error', async () => {
    const s = scripted([good], { hangAfter: 2 });
    const host = new EngineHost(async () => s.engine);
    const kinds: string[] = [];
    const running = host.plan(request('fails'), (event) => {
      kinds.push(event.kind);
      if (kinds.length === 2) host.cancel('fails');
    });
    await expect(running).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(kinds.at(-1)).toBe('stats');
  });

  it("stops on the request's own signal when the caller is in the same thread", async () => {
    const s = scripted([good], { hangAfter: 2 });
    const host = new EngineHost(async () => s.engine);
    const abort = new AbortController();
    let tokens = 0;
    const running = host.plan({ ...request('signal'), signal: abort.signal }, (event) => {
      if (event.kind === 'token' && ++tokens === 2) abort.abort();
    });
    await expect(running).rejects.toMatchObject({ name: 'PlanCancelled' });
    expect(host.cancel('signal')).toBe(false);
  });

  it('runs on the loaded model when a request names none, and refuses when none is loaded', async () => {
    const s = scripted([good]);
    const host = new EngineHost(async () => s.engine);
    const { model: _named, ...unnamed } = request('unnamed');
    await expect(host.plan(unnamed)).rejects.toMatchObject({ name: 'ModelNotLoaded' });
    await host.load(model);
    const response = await host.plan(unnamed);
    expect(response.plan.steps).toHaveLength(2);
    expect(s.loads()).toBe(1);
  });

  it('refuses a second generation while one runs, with a message that says to queue', async () => {
    const s = scripted([good, good], { hangAfter: 2 });
    const host = new EngineHost(async () => s.engine);
    let tokens = 0;
    let second: Promise<unknown> | undefined;
    const first = host.plan(request('one'), (event) => {
      if (event.kind !== 'token' || ++tokens !== 2) return;
      second = host.chat({ requestId: 'two', model, messages: [{ role: 'user', content: 'hi' }] });
      second.catch(() => {});
      host.cancel('one');
    });
    await expect(first).rejects.toMatchObject({ name: 'PlanCancelled' });
    await expect(second).rejects.toThrow(/one generation at a time/);
  });
});
