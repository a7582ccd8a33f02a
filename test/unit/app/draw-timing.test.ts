import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  afterRequestsLeave,
  frameCoalescedUpdates,
  MAX_HOLD_MS,
  throttledFrames,
} from '../../../src/app/runs/draw-timing.ts';
import { applyEvent, newRunView, type RunView } from '../../../src/app/runs/run-model.ts';
import { startRun } from '../../../src/executor/executor.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  await provider.close();
});

function worker(id: string, model: string): WorkerSpec {
  const base = { strengths: '', providerId: 'test', maxConcurrency: 8, enabled: true };
  return { id, label: id, baseURL: provider.baseURL, model, ...base };
}

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('run view updates while tokens stream', () => {
  it('rebuilds the view at most once a frame for streamed tokens, and ends with the exact text', async () => {
    const left = words('left', 300);
    const right = words('right', 300);
    // Paced, so the executor passes the text on in many windows (STREAM_WINDOW_MS), not in one.
    const latency = { firstTokenMs: 0, perTokenMs: 5 };
    provider.setModel({ id: 'long-left', behaviour: { kind: 'fixed', text: left }, latency });
    provider.setModel({ id: 'long-right', behaviour: { kind: 'fixed', text: right }, latency });

    // The page's view, fed through the coalescer; beside it, one built from every event as it came.
    let view: RunView = newRunView('r', 'q', 'conductor', 0);
    let direct: RunView = view;
    let rebuilds = 0;
    const frames: (() => void)[] = [];
    const listener = frameCoalescedUpdates(
      (apply) => {
        rebuilds++;
        view = apply(view);
      },
      (flush) => frames.push(flush),
    );
    let tokens = 0;
    let otherEvents = 0;
    let framesDrawn = 0;
    const drawFrames = () => {
      for (const flush of frames.splice(0)) flush();
      framesDrawn++;
      // Once a frame is drawn, the page shows every token that arrived before it.
      expect(view).toEqual(direct);
    };

    const handle = startRun({
      runId: 'r',
      question: 'q',
      plan: {
        steps: [
          { worker: 'a', task: 'left', sees: [] },
          { worker: 'b', task: 'right', sees: [] },
        ],
      },
      pool: [worker('a', 'long-left'), worker('b', 'long-right')],
      transport: createOpenAITransport({ fetch: directFetch }),
      onEvent: (event: ExecutorEvent) => {
        direct = applyEvent(direct, event);
        listener(event);
        if (event.type !== 'step-delta') {
          otherEvents++;
          return;
        }
        tokens++;
        // A display draws a frame for every 4 pieces of text that arrive (both steps stream at once).
        if (tokens % 4 === 0) drawFrames();
      },
    });
    const result = await handle.result;
    drawFrames();

    expect(result.status).toBe('done');
    expect(tokens).toBeGreaterThanOrEqual(12);
    // One rebuild per frame drawn while tokens came, plus one per step change that is not a token.
    expect(rebuilds).toBeLessThanOrEqual(framesDrawn + otherEvents);
    expect(rebuilds - otherEvents).toBeLessThan(tokens / 2);
    expect(view.steps.map((s) => s.text)).toEqual([left, right]);
    expect(view).toEqual(direct);
  });

  it('applies a step change at once, with the tokens that came before it', () => {
    let view: RunView = newRunView('r', 'q', 'conductor', 0);
    const frames: (() => void)[] = [];
    const listener = frameCoalescedUpdates(
      (apply) => {
        view = apply(view);
      },
      (flush) => frames.push(flush),
    );
    const status = {
      index: 0,
      worker: 'a',
      task: 't',
      sees: [],
      depth: 0,
      state: 'queued' as const,
      text: '',
      timings: {},
      attempts: 0,
    };
    listener({ type: 'step-queued', index: 0, step: { worker: 'a', task: 't', sees: [] }, depth: 0, status });
    const running = { ...status, state: 'running' as const, attempts: 1 };
    listener({ type: 'step-delta', index: 0, text: 'He', answer: 'He', status: { ...running, text: 'He' } });
    listener({ type: 'step-delta', index: 0, text: 'y', answer: 'Hey', status: { ...running, text: 'Hey' } });
    // No frame yet: the view still shows the step without its tokens.
    expect(view.steps[0]?.text).toBe('');
    const done = { ...running, state: 'done' as const, text: 'Hey' };
    listener({ type: 'step-done', index: 0, answer: 'Hey', status: done });
    expect(view.steps[0]).toEqual(done);
    // The frame that comes later has nothing left to draw, and draws nothing stale.
    for (const flush of frames.splice(0)) flush();
    expect(view.steps[0]).toEqual(done);
  });
});

describe('afterRequestsLeave', () => {
  it('draws a task later when no request is on its way out, else once the last one has left', async () => {
    let leaving: (() => void) | undefined;
    let idle: Promise<void> = Promise.resolve();
    const schedule = afterRequestsLeave(() => idle);
    let drawn = 0;
    schedule(() => drawn++);
    // Not in the task of the change: what it sets off reaches egress first.
    await Promise.resolve();
    expect(drawn).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(drawn).toBe(1);

    idle = new Promise<void>((resolve) => {
      leaving = resolve;
    });
    schedule(() => drawn++);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drawn).toBe(1);
    leaving?.();
    await idle;
    await Promise.resolve();
    expect(drawn).toBe(2);
  });

  it('draws MAX_HOLD_MS after the change when a request never leaves, and only once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let drawn = 0;
      const schedule = afterRequestsLeave(() => new Promise<void>(() => {}));
      schedule(() => drawn++);
      await vi.advanceTimersByTimeAsync(MAX_HOLD_MS - 1);
      expect(drawn).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(drawn).toBe(1);
      await vi.advanceTimersByTimeAsync(MAX_HOLD_MS);
      expect(drawn).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('throttledFrames', () => {
  it('flushes streamed tokens at most once per interval', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    try {
      const schedule = throttledFrames(100);
      let views = 0;
      let text = '';
      const listener = frameCoalescedUpdates(() => {
        views++;
      }, schedule);
      // 50 tokens, one every 4 ms (200 ms of streaming).
      for (let i = 0; i < 50; i++) {
        text += `t${i} `;
        listener({ type: 'step-delta', index: 0, text: `t${i} `, answer: text } as unknown as ExecutorEvent);
        await vi.advanceTimersByTimeAsync(4);
      }
      await vi.advanceTimersByTimeAsync(200);
      // Drawn every frame this would be about 13 rebuilds; throttled, three (0, 100, 200 ms).
      expect(views).toBeGreaterThanOrEqual(2);
      expect(views).toBeLessThanOrEqual(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
