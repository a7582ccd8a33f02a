import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resumeRun, startRun } from '../../../src/executor/executor.ts';
import { lostAnswerNotice, lostAnswers, sentPerStep } from '../../../src/executor/resume.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { openRunStore, type RunStore } from '../../../src/records/run-store.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A full disk: fake-indexeddb's put throws QuotaExceededError, as a browser's does when the origin's
// quota is used up (with no message, as Chrome's often has), for as long as `diskFull` is set.
let diskFull = false;
const realPut = IDBObjectStore.prototype.put;
IDBObjectStore.prototype.put = function put(
  this: IDBObjectStore,
  ...args: Parameters<IDBObjectStore['put']>
) {
  if (diskFull) throw new DOMException('', 'QuotaExceededError');
  return realPut.apply(this, args);
};

let provider: TestProvider;
const transport = createOpenAITransport({ fetch: directFetch });
let dbCount = 0;
const stores: RunStore[] = [];

beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [{ id: 'echo-slow', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 20, perTokenMs: 20 } }],
  });
});
afterEach(() => {
  diskFull = false;
  for (const store of stores.splice(0)) store.close();
});
afterAll(async () => {
  IDBObjectStore.prototype.put = realPut;
  await provider.close();
});

async function freshStore() {
  const store = await openRunStore(`runs-disk-${dbCount++}`);
  stores.push(store);
  return store;
}

function worker(model = 'echo'): WorkerSpec {
  return workerSpec({
    id: 'w1',
    label: 'Echo',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 4,
    price: { inputPerM: 1, outputPerM: 1 },
  });
}

const chain = {
  steps: [
    { worker: 'w1', task: 'first answer', sees: [] },
    { worker: 'w1', task: 'second answer', sees: [0] },
  ],
};

/** One step ("answer") on `store` with the echo worker, each event to `onEvent`. */
function runOneStep(store: RunStore, onEvent?: (event: ExecutorEvent) => void) {
  return startRun({
    question: 'Q?',
    pool: [worker()],
    transport,
    store,
    plan: { steps: [{ worker: 'w1', task: 'answer', sees: [] }] },
    ...(onEvent ? { onEvent } : {}),
  });
}

/** The two-step chain on `store` with the echo worker, each event to `onEvent`. */
function runChain(store: RunStore, onEvent: (event: ExecutorEvent) => void) {
  return startRun({ question: 'Q?', pool: [worker()], transport, store, plan: chain, onEvent });
}

describe('a full disk', () => {
  it('is reported at once as one executor event, and the run goes on in memory', async () => {
    const store = await freshStore();
    diskFull = true;
    const events: ExecutorEvent[] = [];
    const handle = runChain(store, (e) => events.push(e));
    const result = await handle.result;
    expect(result.status).toBe('done');
    expect(result.steps.map((s) => s.text)).toEqual(['first answer', 'second answer']);
    const failures = events.filter((e) => e.type === 'persistence-failed');
    expect(failures).toHaveLength(1);
    // The cause in words, not the error's name with an empty message ("QuotaExceededError: ").
    expect(failures[0]).toMatchObject({ reason: "this browser's storage for Baton is full" });
    // Before any step ran: the user hears of it before the run is lost, not after.
    expect(events.indexOf(failures[0]!)).toBeLessThan(events.findIndex((e) => e.type === 'step-done'));
  });

  it('never leaves paid work stored as unfinished: once writes work again, what failed is written', async () => {
    const store = await freshStore();
    diskFull = true;
    const events: ExecutorEvent[] = [];
    const handle = runChain(store, (e) => {
      events.push(e);
      // Space frees up after step 0 is done (and its write has failed), as step 1 starts.
      if (e.type === 'step-started' && e.index === 1) diskFull = false;
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const stored = await store.getRun(handle.runId);
    expect(stored?.run.status).toBe('done');
    expect(stored?.steps.map((s) => [s.state, s.text])).toEqual([
      ['done', 'first answer'],
      ['done', 'second answer'],
    ]);
    expect(stored?.steps[0]?.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'persistence-restored')).toHaveLength(1);
  });

  it('stores what the full disk refused once space is freed, though nothing else writes (the run ended)', async () => {
    const store = await freshStore();
    diskFull = true;
    const events: ExecutorEvent[] = [];
    const handle = runChain(store, (e) => events.push(e));
    expect((await handle.result).status).toBe('done');
    expect((await store.getRun(handle.runId))?.run).toBeUndefined();
    diskFull = false;
    // Kept in memory, tried again on its own (after RETRY_UNSAVED_MS, backing off).
    await expect
      .poll(async () => (await store.getRun(handle.runId))?.steps.map((s) => [s.state, s.text]), {
        timeout: 20_000,
        interval: 200,
      })
      .toEqual([
        ['done', 'first answer'],
        ['done', 'second answer'],
      ]);
    await expect.poll(async () => (await store.getRun(handle.runId))?.run.status).toBe('done');
    expect(events.filter((e) => e.type === 'persistence-restored')).toHaveLength(1);
  }, 30_000);

  it('does not count a step as saved when an earlier write of it lands after a later one failed', async () => {
    const real = await freshStore();
    // A partial write that was slow to land (begun while there was room), and the done write after it
    // refused by a full disk: the slow one must not make the done answer count as stored.
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let refuseDone = true;
    const putStep: RunStore['putStep'] = async (record) => {
      if (record.state === 'running' && record.text) {
        await slow;
        return real.putStep(record);
      }
      if (record.state === 'done' && refuseDone) {
        setTimeout(release, 50); // the slow write lands after this one failed
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return real.putStep(record);
    };
    const store = new Proxy(real, {
      get: (target, name) => (name === 'putStep' ? putStep : Reflect.get(target, name)),
    });
    const handle = startRun({
      question: 'Q?',
      pool: [worker('echo-slow')],
      transport,
      store,
      plan: { steps: [{ worker: 'w1', task: 'one two three four five', sees: [] }] },
    });
    expect((await handle.result).status).toBe('done');
    refuseDone = false;
    await expect
      .poll(async () => (await real.getRun(handle.runId))?.steps[0]?.state, {
        timeout: 20_000,
        interval: 200,
      })
      .toBe('done');
  }, 30_000);

  it('names a step whose whole answer arrived but was not saved, from the ledger, before a resume', async () => {
    const store = await freshStore();
    const handle = runOneStep(store, (e) => {
      // The disk fills as the answer begins: the step stays stored as running with its request out.
      if (e.type === 'step-delta') diskFull = true;
    });
    await handle.result;
    // Read while the disk is still full, as the page after a reload finds it (reads still work).
    const stored = await store.getRun(handle.runId);
    expect(stored?.steps[0]?.state).toBe('running');
    // What the ledger saw: the request left and its whole answer came (2,345 bytes).
    const ledger = {
      list: async () => [{ stepIndex: 0, sent: true, purpose: 'chat', state: 'done', bytesIn: 2345 }],
    };
    const lost = lostAnswers(stored!.steps, await sentPerStep(ledger, handle.runId));
    expect(lost).toEqual([{ index: 0, requests: 1, receivedBytes: 2345 }]);
    expect(lostAnswerNotice(lost[0]!)).toBe(
      "Step 0's answer arrived whole (2 KB) and was paid for, but could not be saved; it runs again and is paid for again.",
    );
    // A probe of the step's host is no request of the step's.
    const probed = { list: async () => [{ stepIndex: 0, sent: true, purpose: 'probe' }] };
    expect((await sentPerStep(probed, handle.runId)).size).toBe(0);
  });

  it('on resume, a step whose paid answer was not saved says so before it is paid for again', async () => {
    const store = await freshStore();
    const handle = startRun({
      question: 'Q?',
      pool: [worker('echo-slow')],
      transport,
      store,
      plan: { steps: [{ worker: 'w1', task: 'a long enough answer', sees: [] }] },
      onEvent: (e) => {
        // The disk fills while the answer streams: the step's done write (and the run's) fail.
        if (e.type === 'step-delta') diskFull = true;
      },
    });
    expect((await handle.result).status).toBe('done');
    diskFull = false;
    const before = await store.getRun(handle.runId);
    expect(before?.steps[0]?.state).toBe('running');

    const events: ExecutorEvent[] = [];
    const resumed = await resumeRun({
      store,
      runId: handle.runId,
      transport,
      onEvent: (e) => events.push(e),
    });
    const said = "Step 0's earlier answer was paid for but not saved; it runs again and is paid for again.";
    const notice = events.find((e) => e.type === 'step-notice');
    expect(notice).toMatchObject({ index: 0, notice: said });
    // Said before the step is sent again.
    const started = events.findIndex((e) => e.type === 'step-started');
    expect(started === -1 || events.indexOf(notice!) < started).toBe(true);
    const result = await resumed.result;
    expect(result.steps[0]?.notice).toBe(said);
    // Both requests are counted: the one whose answer was lost, and the one that answered now.
    expect(result.steps[0]?.requests?.map((r) => r.outcome)).toEqual(['interrupted', 'answered']);
    expect(result.totals.requests).toBe(2);
  });

  it('on resume, requests the ledger saw leave that the step record never got are announced too', async () => {
    const store = await freshStore();
    const handle = runOneStep(store);
    await handle.result;
    // As a reload finds it when every write after the first one failed: queued, no request recorded,
    // while the ledger (written before the request left) has one.
    const stored = await store.getRun(handle.runId);
    const { requests: _lost, usage: _u, cost: _c, ...queued } = stored!.steps[0]!;
    await store.putStep({ ...queued, state: 'queued', text: '', attempts: 0 });
    await store.putRun({ ...stored!.run, status: 'running' });
    const events: ExecutorEvent[] = [];
    const resumed = await resumeRun({
      store,
      runId: handle.runId,
      transport,
      ledger: { list: async () => [{ stepIndex: 0, sent: true }] },
      onEvent: (e) => events.push(e),
    });
    await resumed.result;
    expect(events.find((e) => e.type === 'step-notice')).toMatchObject({ index: 0 });
  });
});

describe('a step that reads another', () => {
  it('starts while the answer it reads is being stored, and its request leaves only once it is', async () => {
    const real = await freshStore();
    // Step 0's finished record is held on its way to the store until the test lets it through.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let heldWrites = 0;
    // Should step 1 wait for the write before it starts (as it once did), the test fails, not hangs.
    const fallback = setTimeout(() => release(), 2000);
    const putStep: RunStore['putStep'] = async (record) => {
      if (record.index === 0 && record.state === 'done') {
        heldWrites++;
        await held;
      }
      return real.putStep(record);
    };
    const store = new Proxy(real, {
      get: (target, name) => (name === 'putStep' ? putStep : Reflect.get(target, name)),
    });
    const chats = () => provider.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    const before = chats();
    const events: ExecutorEvent[] = [];
    let sentWhileHeld = -1;
    const handle = runChain(store, (e) => {
      events.push(e);
      if (e.type === 'step-started' && e.index === 1) {
        // Step 1 is under way before step 0's write has landed: the write no longer delays it...
        expect(heldWrites).toBe(1);
        setTimeout(() => {
          // ...but its request has not left: only step 0's has reached the provider.
          sentWhileHeld = chats() - before;
          release();
        }, 150);
      }
    });
    const result = await handle.result;
    clearTimeout(fallback);
    expect(result.status).toBe('done');
    expect(sentWhileHeld).toBe(1);
    expect(chats() - before).toBe(2);
    const stored = await real.getRun(handle.runId);
    expect(stored?.steps.map((s) => s.state)).toEqual(['done', 'done']);
  });
});

describe("a run's start", () => {
  it('stores the run with its plan and every queued step in one transaction, readable at once', async () => {
    const real = await freshStore();
    const calls: string[] = [];
    const store = new Proxy(real, {
      get: (target, name) => {
        const value = Reflect.get(target, name);
        if (typeof value !== 'function' || !String(name).startsWith('put')) return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return value.apply(target, args);
        };
      },
    });
    const plan = {
      steps: [
        { worker: 'w1', task: 'first answer', sees: [] },
        { worker: 'w1', task: 'second answer', sees: [0] },
        { worker: 'w1', task: 'third answer', sees: [1] },
      ],
    };
    const handle = startRun({ question: 'Q?', pool: [worker()], transport, store, plan });
    // Written as it started, before anything was awaited: the record twice (without, then with its plan)
    // and each queued step, as one write.
    expect(calls).toEqual(['putRunAndSteps']);
    // A read begun now comes after that write: the plan and every step are there.
    const stored = await real.getRun(handle.runId);
    expect(stored?.run.plan?.steps.map((s) => s.task)).toEqual([
      'first answer',
      'second answer',
      'third answer',
    ]);
    expect(stored?.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect((await handle.result).status).toBe('done');
    // Everything after the start is written as before, a record at a time.
    expect(calls.slice(1).every((name) => name === 'putRun' || name === 'putStep')).toBe(true);
  });
});
