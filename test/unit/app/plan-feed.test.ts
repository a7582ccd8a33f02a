import { describe, expect, it } from 'vitest';
import { PlanFeed } from '../../../src/app/runs/plan-feed.ts';
import type { StepEvent } from '../../../src/shared/conductor-api.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine, ModelRef } from '../../../workers/engines/engine.ts';

const A: Step = { worker: 'w1', task: 'draft', sees: [] };
const B: Step = { worker: 'w2', task: 'improve', sees: [0] };
const C: Step = { worker: 'w1', task: 'final', sees: 'all' };
const X: Step = { worker: 'w2', task: 'from a rejected attempt', sees: [] };

const step = (index: number, s: Step, attempt = 1): StepEvent => ({ kind: 'step', index, step: s, attempt });
const restart = (kept?: number): StepEvent =>
  kept === undefined
    ? { kind: 'restart', attempt: 2, reason: 'Step 2 has an empty task.' }
    : { kind: 'restart', attempt: 2, reason: 'Step 2 has an empty task.', kept };

/** Reads the feed as the executor does, recording each step the moment it arrives. */
function executor(feed: PlanFeed) {
  const received: Step[] = [];
  const done = (async () => {
    for await (const s of feed.steps) received.push(s);
  })();
  return { received, done };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('PlanFeed', () => {
  it('sends each streamed step at once, then the steps only the final plan has', async () => {
    const feed = new PlanFeed();
    const run = executor(feed);
    feed.onEvent(step(0, A));
    await tick();
    expect(run.received).toEqual([A]);
    expect(feed.finish({ steps: [A, B] })).toEqual({ kind: 'streamed', streamed: 1 });
    await run.done;
    expect(run.received).toEqual([A, B]);
  });

  it('after a restart that keeps the streamed steps, streams the repair attempt too', async () => {
    const feed = new PlanFeed();
    const run = executor(feed);
    feed.onEvent(step(0, A));
    feed.onEvent(step(1, B));
    feed.onEvent(restart(2));
    feed.onEvent(step(2, C, 2));
    await tick();
    // The repair's step went out before the plan was final.
    expect(run.received).toEqual([A, B, C]);
    expect(feed.finish({ steps: [A, B, C] })).toEqual({ kind: 'streamed', streamed: 3 });
    await run.done;
    expect(run.received).toEqual([A, B, C]);
  });

  it('sends nothing more once a restart takes back steps already sent, and asks for a fresh run', async () => {
    // An older conductor thread: its restart carries no `kept`, and its repair starts again at step 0.
    const feed = new PlanFeed();
    const run = executor(feed);
    feed.onEvent(step(0, X));
    feed.onEvent(restart());
    feed.onEvent(step(0, A, 2));
    feed.onEvent(step(1, B, 2));
    await tick();
    expect(run.received).toEqual([X]);
    expect(feed.stopped).toBe('the conductor took back 1 of the 1 steps already started');
    const outcome = feed.finish({ steps: [A, B] });
    expect(outcome).toEqual({
      kind: 'restart',
      reason: 'the conductor took back 1 of the 1 steps already started',
    });
    await run.done;
    expect(run.received).toEqual([X]);

    const fewer = new PlanFeed();
    fewer.onEvent(step(0, A));
    fewer.onEvent(step(1, X));
    fewer.onEvent(restart(1));
    expect(fewer.finish({ steps: [A, B] }).kind).toBe('restart');
  });

  it('asks for a fresh run when the final plan does not begin with the steps sent (prefix mismatch)', async () => {
    const feed = new PlanFeed();
    const run = executor(feed);
    feed.onEvent(step(0, A));
    feed.onEvent(step(1, X));
    expect(feed.finish({ steps: [A, B, C] })).toEqual({
      kind: 'restart',
      reason: 'the final plan does not begin with the steps already started',
    });
    await run.done;
    expect(run.received).toEqual([A, X]);
  });

  it('stops at a step that changes or skips ahead, and ignores the same step streamed twice', async () => {
    const same = new PlanFeed();
    same.onEvent(step(0, A));
    same.onEvent(step(0, A, 2));
    expect(same.stopped).toBeUndefined();
    expect(same.sentCount).toBe(1);

    const changed = new PlanFeed();
    changed.onEvent(step(0, A));
    changed.onEvent(step(0, X, 2));
    expect(changed.stopped).toBe('step 0 changed after it started');

    const gap = new PlanFeed();
    gap.onEvent(step(1, B));
    expect(gap.stopped).toBe('step 1 arrived before step 0');
    expect(gap.sentCount).toBe(0);
  });

  it("cancel ends the executor's stream and drops later events", async () => {
    const feed = new PlanFeed();
    const run = executor(feed);
    feed.onEvent(step(0, A));
    feed.cancel();
    feed.onEvent(step(1, B));
    await run.done;
    expect(run.received).toEqual([A]);
  });
});

describe('PlanFeed with the conductor host: a rejected attempt costs no step the plan lacks', () => {
  /** An engine that writes scripted outputs a few characters at a time, as a model streams. */
  function scriptedEngine(outputs: string[]): ConductorEngine {
    let model: ModelRef | undefined;
    return {
      kind: 'wllama',
      loaded: () => model,
      async load(m) {
        model = m;
      },
      async generate(request) {
        const text = outputs.shift() ?? '';
        for (const piece of text.match(/.{1,4}/gs) ?? []) {
          request.onToken(piece);
          await Promise.resolve();
        }
        return { text, promptTokens: 1, completionTokens: 1, finishReason: 'stop' };
      },
      interrupt() {},
      async unload() {},
    };
  }

  it('every step sent while planning, through a rejected attempt and its repair, is in the final plan', async () => {
    const s = (worker: string, task: string, sees: string) =>
      `{"worker":"${worker}","task":"${task}","sees":${sees}}`;
    const rejected = `{"thought":"t","steps":[${s('w1', 'draft', '[]')},${s('w2', 'improve', '[0]')},${s('w1', ' ', '[1]')}]}`;
    const repair = `{"thought":"t2","steps":[${s('w2', 'final', '"all"')}]}`;
    const host = new EngineHost(async () => scriptedEngine([rejected, repair]));
    const feed = new PlanFeed();
    const run = executor(feed);
    const pool = [
      { id: 'w1', label: 'One', strengths: 'a' },
      { id: 'w2', label: 'Two', strengths: 'b' },
    ];
    const response = await host.plan(
      {
        requestId: 'p',
        model: { engine: 'wllama', url: 'http://x/m.gguf' },
        question: 'q',
        pool,
        mode: 'conductor',
        maxSteps: 4,
        maxDepth: 0,
      },
      (event) => {
        if (event.kind !== 'token' && event.kind !== 'stats') feed.onEvent(event);
      },
    );
    // Three steps were sent before the plan was final (two from the rejected attempt, one from its repair).
    expect(feed.sentCount).toBe(3);
    expect(feed.finish(response.plan)).toEqual({ kind: 'streamed', streamed: 3 });
    await run.done;
    expect(run.received).toEqual(response.plan.steps);
    expect(response.plan.steps.map((x) => x.task)).toEqual(['draft', 'improve', 'final']);
  });
});
