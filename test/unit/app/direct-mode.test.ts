import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { modeText } from '../../../src/app/runs/mode-text.ts';
import type { RunConductor } from '../../../src/app/services.ts';
import { keyedServices, keyedTestProvider, testAppState, testWorker } from './test-app-state.ts';

// Direct mode in an app state over real stores, egress and the test provider over HTTP: the question goes
// to the worker the user chose, with no planning, in a thread whose follow-ups go on to it.

const KEY = 'sk-direct-mode-DDDDDDDDDDDDDDDD';
const keyed = keyedTestProvider(KEY);

type Body = { model: string; messages: { role: string; content: string }[] };
const chatBodies = () =>
  keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);

/** A conductor that must not be asked: Direct mode never plans. */
function noConductor(): RunConductor & { asked: number } {
  const conductor = {
    asked: 0,
    plan() {
      conductor.asked++;
      return Promise.reject(new Error('Direct mode asked the conductor'));
    },
    replan() {
      conductor.asked++;
      return Promise.reject(new Error('Direct mode asked the conductor'));
    },
    chat: () => Promise.reject(new Error('no on-device worker')),
  };
  return conductor as unknown as RunConductor & { asked: number };
}

async function directApp(name: string) {
  const services = await keyedServices(name, keyed.provider, KEY);
  const conductor = noConductor();
  const app = testAppState({ ...services, conductor });
  return { app, conductor, services };
}

describe('Direct mode', () => {
  it("sends each turn of a thread to the chosen worker alone, with the thread's instructions and no planning", async () => {
    keyed.provider.setModel({ id: 'wrong', behaviour: { kind: 'fixed', text: 'Not me.' } });
    keyed.provider.setModel({ id: 'talker', behaviour: { kind: 'fixed', text: 'Hello from the talker.' } });
    const { app, conductor, services } = await directApp('direct-thread');
    const pool = [
      keyed.worker('w1', 'Planner pick', 'wrong'),
      keyed.worker('w2', 'Walker general', 'talker'),
    ];
    keyed.provider.clearRequests();

    await app.threads.startThread(
      { question: 'Hi there?', mode: 'direct', review: false, direct: { worker: 'w2' } },
      pool,
    );
    await app.runs.whenIdle();
    const first = app.runs.currentRun.value!;
    expect(first.error).toBeUndefined();
    expect(first.phase).toBe('done');
    expect(first.answer).toBe('Hello from the talker.');
    expect(conductor.asked).toBe(0);
    expect(first.chosenBy).toEqual({ by: 'user', strategy: 'single:w2', reason: '' });
    expect(modeText(first)).toBe('Walker general, directly');
    expect(chatBodies().map((b) => b.model)).toEqual(['talker']);
    // The step is pinned: no other worker takes a Direct question the user did not let go elsewhere.
    expect(first.steps[0]?.pin).toBe(true);
    // Stored as asked: reopened, the run says who answered, and its ledger row is the run's.
    const stored = await services.runStore.getRun(first.id);
    expect(stored?.run.chosenBy?.by).toBe('user');
    expect((await services.ledger.list({ runId: first.id })).length).toBe(1);

    // The thread remembers the worker: a follow-up goes to it too, with the thread's instructions.
    const threadId = app.threads.current.value!.id;
    expect(app.threads.current.value?.asked).toEqual({
      mode: 'direct',
      review: false,
      direct: { worker: 'w2' },
    });
    await app.threads.setInstructions(threadId, 'Answer briefly.');
    await app.threads.followUp({ question: 'And then?', ...app.threads.current.value!.asked! }, pool);
    await app.runs.whenIdle();
    const second = app.runs.currentRun.value!;
    expect(second.phase).toBe('done');
    expect(conductor.asked).toBe(0);
    const body = chatBodies().at(-1)!;
    expect(body.model).toBe('talker');
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Answer briefly.' });
    // The earlier turn went with it, as for any follow-up.
    expect(body.messages.map((m) => m.content)).toContain('Hello from the talker.');
  });

  it('names a chosen worker with no key, and lets another answer only when the user allowed it', async () => {
    const { app, conductor } = await directApp('direct-keyless');
    // A worker of a provider that needs a key and has none saved.
    const keyless = {
      ...testWorker(keyed.provider.baseURL, 'w9', 'Locked out', 'echo'),
      providerId: 'openai',
    };
    const pool = [keyless, keyed.worker('w1', 'Parrot', 'echo')];
    keyed.provider.clearRequests();

    await app.runs.ask({ question: 'Hello?', mode: 'direct', review: false, direct: { worker: 'w9' } }, pool);
    await app.runs.whenIdle();
    const refused = app.runs.currentRun.value!;
    expect(refused.phase).toBe('failed');
    expect(refused.error).toBe(
      'Locked out has no API key saved: add one in Settings, or let another worker answer when it cannot (Direct mode).',
    );
    expect(chatBodies()).toEqual([]);

    await app.runs.ask(
      { question: 'Hello?', mode: 'direct', review: false, direct: { worker: 'w9', failover: true } },
      pool,
    );
    await app.runs.whenIdle();
    const answered = app.runs.currentRun.value!;
    expect(answered.phase).toBe('done');
    expect(answered.chosenBy).toEqual({
      by: 'user',
      strategy: 'single:w1',
      reason: 'Locked out has no API key saved: Parrot answered instead.',
    });
    expect(chatBodies().map((b) => b.model)).toEqual(['echo']);
    expect(conductor.asked).toBe(0);
  });

  it('names a chosen worker whose provider is down; another answers only when allowed', async () => {
    const { app } = await directApp('direct-down');
    const pool = [keyed.worker('w1', 'Down one', 'fault:500'), keyed.worker('w2', 'Parrot', 'echo')];
    keyed.provider.clearRequests();

    await app.runs.ask({ question: 'Hello?', mode: 'direct', review: false, direct: { worker: 'w1' } }, pool);
    await app.runs.whenIdle();
    const failed = app.runs.currentRun.value!;
    expect(failed.phase).toBe('failed');
    // The step's error (on its card) says what failed and names the worker no other was let replace.
    expect(failed.steps[0]?.error).toContain('Provider error (500)');
    expect(failed.steps[0]?.error).toContain('pinned to Down one, so no other worker took over');
    expect(chatBodies().every((b) => b.model === 'fault:500')).toBe(true);

    await app.runs.ask(
      { question: 'Hello?', mode: 'direct', review: false, direct: { worker: 'w1', failover: true } },
      pool,
    );
    await app.runs.whenIdle();
    const takenOver = app.runs.currentRun.value!;
    expect(takenOver.phase).toBe('done');
    expect(takenOver.steps[0]?.worker).toBe('w2');
    expect(takenOver.steps[0]?.takeovers?.[0]).toMatchObject({ from: 'w1', to: 'w2' });
  });

  it('refuses a worker no longer in the pool, or turned off, in words', async () => {
    const { app } = await directApp('direct-gone');
    const off = { ...keyed.worker('w1', 'Sleeper', 'echo'), enabled: false };
    await app.runs.ask({ question: 'Hi?', mode: 'direct', review: false, direct: { worker: 'w1' } }, [off]);
    expect(app.runs.currentRun.value?.error).toBe(
      'Sleeper is turned off in your pool: turn it on in Settings, or choose another worker.',
    );
    await app.runs.ask({ question: 'Hi?', mode: 'direct', review: false, direct: { worker: 'gone' } }, [off]);
    expect(app.runs.currentRun.value?.error).toBe(
      'The worker chosen for Direct mode is no longer in your pool: choose another one.',
    );
  });
});
