import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeRun, startRun } from '../../../src/executor/executor.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openRunStore, type RunStore, snapshotPool } from '../../../src/records/run-store.ts';
import type { StepState } from '../../../src/records/run-types.ts';
import { DamagedRunError, type StepRecord } from '../../../src/records/runs-db.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { type RecordedRequest, startProvider, type TestProvider } from '../../provider/server.ts';
import { badRuns, badSteps, writeVersion1 } from './damaged-records.ts';

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });

beforeAll(async () => {
  provider = await startProvider();
  provider.setModel({ id: 'bad', behaviour: { kind: 'echo' }, fault: { kind: '401' } });
});
afterAll(async () => {
  await provider.close();
});

let dbCount = 0;
const dbName = () => `baton-runs-test-${dbCount++}`;

function worker(id: string, model: string): WorkerSpec {
  return workerSpec({
    id,
    providerId: 'test',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 8,
  });
}

function requestsFor(model: string): RecordedRequest[] {
  return provider.requests.filter(
    (r) => r.method === 'POST' && (r.body as { model?: string } | undefined)?.model === model,
  );
}

/** The real store, with a log of every step write (what was written, and when). */
function logged(store: RunStore) {
  const writes: { at: number; step: StepRecord }[] = [];
  const wrapped: RunStore = {
    putRun: (run) => store.putRun(run),
    putStep: (step) => {
      writes.push({ at: Date.now(), step: structuredClone(step) });
      return store.putStep(step);
    },
    putRunAndSteps: (run, steps) => {
      for (const step of steps) writes.push({ at: Date.now(), step: structuredClone(step) });
      return store.putRunAndSteps(run, steps);
    },
    getRun: (id) => store.getRun(id),
    listRuns: (options) => store.listRuns(options),
    deleteRun: (id) => store.deleteRun(id),
    findUnfinished: () => store.findUnfinished(),
    discardRun: (id, reason) => store.discardRun(id, reason),
    close: () => store.close(),
  };
  return { store: wrapped, writes };
}

function statesOf(writes: { step: StepRecord }[], index: number): StepState[] {
  const out: StepState[] = [];
  for (const { step } of writes) {
    if (step.index === index && out.at(-1) !== step.state) out.push(step.state);
  }
  return out;
}

function waitFor(events: ExecutorEvent[], test: (e: ExecutorEvent) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (events.some(test)) resolve();
      else if (Date.now() - started > 15_000) reject(new Error('event never came'));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

describe('run store and persistence', () => {
  it('writes every step change: queued, running, done, failed, cancelled', async () => {
    const { store, writes } = logged(await openRunStore(dbName()));
    provider.setModel({
      id: 'slow-a',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 3000, perTokenMs: 1 },
    });
    const handle = startRun({
      question: 'Q',
      pool: [worker('ok', 'echo'), worker('bad', 'bad'), worker('slow', 'slow-a')],
      transport,
      store,
      plan: {
        steps: [
          { worker: 'ok', task: 'fine', sees: [] },
          { worker: 'bad', task: 'fails', sees: [] },
          { worker: 'ok', task: 'after the failure', sees: [1] },
          { worker: 'slow', task: 'to be cancelled', sees: [] },
          { worker: 'ok', task: 'last', sees: [0] },
        ],
      },
    });
    setTimeout(() => handle.cancelStep(3), 200);
    const result = await handle.result;
    expect(statesOf(writes, 0)).toEqual(['queued', 'running', 'done']);
    expect(statesOf(writes, 1)).toEqual(['queued', 'running', 'failed']);
    expect(statesOf(writes, 2)).toEqual(['queued', 'failed']);
    expect(statesOf(writes, 3)).toEqual(['queued', 'running', 'cancelled']);
    const stored = await store.getRun(handle.runId);
    expect(stored?.run).toMatchObject({
      status: 'partial',
      answer: 'last',
      planComplete: true,
      question: 'Q',
    });
    expect(stored?.run.totals).toEqual(result.totals);
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'failed', 'failed', 'cancelled', 'done']);
    expect(stored?.steps[2]?.error).toBe(`step 1 failed: ${stored?.steps[1]?.error}`);
    expect(stored?.steps[0]).toMatchObject({ text: 'fine', usage: { promptTokens: 2, completionTokens: 1 } });
    const timings = stored?.steps[0]?.timings;
    expect(timings?.queuedAt).toBeLessThanOrEqual(timings?.startedAt ?? 0);
    expect(timings?.startedAt).toBeLessThanOrEqual(timings?.firstTokenAt ?? 0);
    expect(timings?.firstTokenAt).toBeLessThanOrEqual(timings?.endedAt ?? 0);
    store.close();
  });

  it('flushes partial text while streaming, at most every 250 ms, and the whole text at the end', async () => {
    const { store, writes } = logged(await openRunStore(dbName()));
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    provider.setModel({
      id: 'streamy',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 10, perTokenMs: 40 },
    });
    const handle = startRun({
      question: 'Q',
      pool: [worker('w', 'streamy')],
      transport,
      store,
      plan: { steps: [{ worker: 'w', task: words, sees: [] }] },
    });
    // Read the database itself while the answer streams.
    const seen: string[] = [];
    let done = false;
    void handle.result.then(() => {
      done = true;
    });
    while (!done) {
      const stored = await store.getRun(handle.runId);
      const step = stored?.steps[0];
      if (step?.state === 'running' && step.text) seen.push(step.text);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const partial = seen.filter((text) => text.length < words.length);
    expect(partial.length).toBeGreaterThan(0);
    for (const text of partial) expect(words.startsWith(text)).toBe(true);
    const final = await store.getRun(handle.runId);
    expect(final?.steps[0]).toMatchObject({ state: 'done', text: words });
    // Throttled: consecutive partial writes are at least ~250 ms apart (30 tokens would be 30 writes).
    const partialWrites = writes.filter((w) => w.step.state === 'running' && w.step.text);
    expect(partialWrites.length).toBeGreaterThan(0);
    expect(partialWrites.length).toBeLessThan(30);
    for (let i = 1; i < partialWrites.length; i++) {
      expect((partialWrites[i]?.at ?? 0) - (partialWrites[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(240);
    }
    store.close();
  });

  it('survives a reload mid-run and resumes only the unfinished steps', async () => {
    const name = dbName();
    const first = await openRunStore(name);
    provider.setModel({ id: 'first', behaviour: { kind: 'echo' } });
    provider.setModel({
      id: 'middle',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 3000, perTokenMs: 1 },
    });
    provider.setModel({ id: 'last', behaviour: { kind: 'echo' } });
    const pool = [worker('a', 'first'), worker('b', 'middle'), worker('c', 'last')];
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'Q',
      pool,
      transport,
      store: first,
      onEvent: (e) => events.push(e),
      plan: {
        steps: [
          { worker: 'a', task: 'first answer', sees: [] },
          { worker: 'b', task: 'middle', sees: [0] },
          { worker: 'c', task: 'last', sees: [1] },
        ],
      },
    });
    await waitFor(events, (e) => e.type === 'step-started' && e.index === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    handle.abandon(); // the page goes away: nothing more is written
    await handle.result;

    // A new page: a new connection to the same database.
    const second = await openRunStore(name);
    const unfinished = await second.findUnfinished();
    expect(unfinished.map((r) => r.id)).toEqual([handle.runId]);
    const stored = await second.getRun(handle.runId);
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'running', 'queued']);

    provider.setModel({
      id: 'middle',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 10, perTokenMs: 1 },
    });
    const before = { first: requestsFor('first').length, middle: requestsFor('middle').length };
    const resumed = await resumeRun({ store: second, runId: handle.runId, transport });
    const result = await resumed.result;
    expect(result.status).toBe('done');
    expect(result.answer).toBe('last');
    expect(requestsFor('first')).toHaveLength(before.first); // the done step did not run again
    expect(requestsFor('middle')).toHaveLength(before.middle + 1);
    expect(requestsFor('last')).toHaveLength(1);
    // The done step's stored answer was the context of the re-run step.
    expect((requestsFor('middle').at(-1)?.body as { messages: unknown[] } | undefined)?.messages).toEqual([
      { role: 'user', content: 'Q' },
      { role: 'user', content: 'first answer' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'middle' },
    ]);
    expect(await second.findUnfinished()).toEqual([]);
    expect((await second.getRun(handle.runId))?.run.status).toBe('done');
    first.close();
    second.close();
  });

  it('discards an unfinished run: it and its unfinished steps become cancelled', async () => {
    const store = await openRunStore(dbName());
    provider.setModel({
      id: 'slow-d',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 3000, perTokenMs: 1 },
    });
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'Q',
      pool: [worker('a', 'echo'), worker('s', 'slow-d')],
      transport,
      store,
      onEvent: (e) => events.push(e),
      plan: {
        steps: [
          { worker: 'a', task: 'quick', sees: [] },
          { worker: 's', task: 'slow', sees: [] },
        ],
      },
    });
    await waitFor(events, (e) => e.type === 'step-done' && e.index === 0);
    handle.abandon();
    await handle.result;
    await store.discardRun(handle.runId);
    expect(await store.findUnfinished()).toEqual([]);
    const stored = await store.getRun(handle.runId);
    expect(stored?.run.status).toBe('cancelled');
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'cancelled']);
    store.close();
  });

  it('lists runs newest first, deletes a run with its steps, and never stores extra worker fields', async () => {
    const store = await openRunStore(dbName());
    const ids: string[] = [];
    for (const task of ['one', 'two', 'three']) {
      const leaky = { ...worker('w', 'echo'), apiKey: 'sk-should-never-be-stored' } as WorkerSpec;
      const handle = startRun({
        question: task,
        pool: [leaky],
        transport,
        store,
        plan: { steps: [{ worker: 'w', task, sees: [] }] },
      });
      await handle.result;
      ids.push(handle.runId);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await store.listRuns()).map((r) => r.question)).toEqual(['three', 'two', 'one']);
    expect((await store.listRuns({ limit: 2 })).map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const run = (await store.getRun(ids[0] as string))?.run;
    expect(JSON.stringify(run)).not.toContain('sk-should-never-be-stored');
    expect(run?.pool[0]).not.toHaveProperty('apiKey');
    await store.deleteRun(ids[0] as string);
    expect(await store.getRun(ids[0] as string)).toBeUndefined();
    expect((await store.listRuns()).map((r) => r.question)).toEqual(['three', 'two']);
    store.close();
  });
});

describe('damaged records', () => {
  it('lists the readable runs of a database that also holds malformed ones, and names what it skipped', async () => {
    const name = dbName();
    const bad = badRuns(2000);
    await writeVersion1(
      name,
      [goodRun('good-1', 1000), ...bad.map((b) => b.record), goodRun('good-2', 3000)],
      [goodStep('good-1'), goodStep('good-2')],
    );
    const store = await openRunStore(name);
    expect((await store.listRuns()).map((r) => r.id)).toEqual(['good-2', 'good-1']);
    const page = await store.listSummaries({ limit: 50 });
    expect(page.summaries.map((s) => s.id)).toEqual(['good-2', 'good-1']);
    expect(page.skipped).toHaveLength(bad.length);
    const damaged = await store.listDamaged();
    expect(damaged).toHaveLength(bad.length);
    for (const { record, names } of bad) {
      const id = (record as { id: string }).id;
      const skipped = damaged.find((d) => d.id === id);
      expect(skipped?.problem, id).toContain(names);
      await expect(store.getRun(id)).rejects.toThrow(DamagedRunError);
    }
    store.close();
  });

  it('keeps a run whose worker has odd display or tuning fields, with safe values in their place', async () => {
    const name = dbName();
    const base = goodRun('odd-worker', 100);
    const pool = [{ ...base.pool[0], label: undefined, maxConcurrency: Number.NaN, enabled: 'yes' }];
    await writeVersion1(name, [{ ...base, pool, includeQuestion: undefined }], [goodStep('odd-worker')]);
    const store = await openRunStore(name);
    expect((await store.listSummaries({ limit: 10 })).summaries.map((s) => s.id)).toEqual(['odd-worker']);
    const stored = await store.getRun('odd-worker');
    expect(stored?.run.pool[0]).toMatchObject({ label: '', maxConcurrency: 1, enabled: true });
    expect(stored?.run.includeQuestion).toBe(true);
    store.close();
  });

  it('keeps what each request spent, and the mark that usage was estimated, through a read', async () => {
    const name = dbName();
    const requests = [
      { attempt: 1, outcome: 'failed' as const, promptTokens: 0, completionTokens: 0 },
      {
        attempt: 2,
        outcome: 'answered' as const,
        promptTokens: 40,
        completionTokens: 12,
        estimated: true as const,
      },
    ];
    const step = goodStep('spent', 0, {
      usage: { promptTokens: 40, completionTokens: 12, estimated: true },
      requests,
    });
    await writeVersion1(name, [goodRun('spent', 100)], [step]);
    const store = await openRunStore(name);
    const stored = await store.getRun('spent');
    expect(stored?.steps[0]?.usage).toEqual({ promptTokens: 40, completionTokens: 12, estimated: true });
    expect(stored?.steps[0]?.requests).toEqual(requests);
    store.close();
  });

  it('tells History that a run’s cost was estimated, and by which estimator', async () => {
    const store = await openRunStore(dbName());
    const base = goodRun('est', 100);
    await store.putRun({ ...base, totals: { ...base.totals, estimated: true, estimator: 'o200k' } });
    await store.putRun(goodRun('sent', 200));
    const { summaries } = await store.listSummaries({ limit: 10 });
    expect(summaries.find((s) => s.id === 'est')).toMatchObject({ estimated: true, estimator: 'o200k' });
    expect(summaries.find((s) => s.id === 'sent')?.estimated).toBeUndefined();
    store.close();
  });

  it('never offers a damaged running run for resume (the banner read its question)', async () => {
    const name = dbName();
    await writeVersion1(
      name,
      [
        goodRun('resumable', 100, { status: 'running' }),
        goodRun('null-question', 200, { status: 'running', question: null as unknown as string }),
      ],
      [goodStep('resumable'), goodStep('null-question')],
    );
    const store = await openRunStore(name);
    expect((await store.findUnfinished()).map((r) => r.id)).toEqual(['resumable']);
    store.close();
  });

  for (const { step, names } of badSteps('garbage-steps')) {
    it(`refuses to read or resume a run whose step has a bad ${names}`, async () => {
      const name = dbName();
      await writeVersion1(name, [goodRun('garbage-steps', 100, { status: 'running' })], [step]);
      const store = await openRunStore(name);
      await expect(store.getRun('garbage-steps')).rejects.toThrow(names);
      expect(await store.findUnfinished()).toEqual([]);
      await expect(resumeRun({ store, runId: 'garbage-steps', transport })).rejects.toThrow(DamagedRunError);
      store.close();
    });
  }

  it('pages summaries newest first without losing or repeating a run written in the same millisecond', async () => {
    const store = await openRunStore(dbName());
    for (let i = 0; i < 7; i++) await store.putRun(goodRun(`r${i}`, i < 4 ? 500 : 600));
    const seen: string[] = [];
    let page = await store.listSummaries({ limit: 3 });
    seen.push(...page.summaries.map((s) => s.id));
    while (page.next) {
      page = await store.listSummaries({ limit: 3, from: page.next });
      seen.push(...page.summaries.map((s) => s.id));
    }
    expect(seen).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    await store.deleteRun('r6');
    expect((await store.listSummaries({ limit: 1 })).summaries[0]).toMatchObject({
      id: 'r5',
      question: 'question r5',
      answer: 'answer r5',
      steps: 1,
    });
    store.close();
  });

  it("keeps a worker's search and vision marks in the run's pool, so a resumed run sends as the first did", () => {
    const searching = { ...worker('w', 'echo'), webSearch: true, vision: true } as WorkerSpec;
    const plain = worker('v', 'echo');
    const [kept, other] = snapshotPool([searching, plain]);
    expect(kept).toMatchObject({ webSearch: true, vision: true });
    expect(other).not.toHaveProperty('webSearch');
    expect(other).not.toHaveProperty('vision');
  });
});
