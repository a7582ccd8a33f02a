import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { RunConductor } from '../../../src/app/services.ts';
import { CONTINUE_PROMPT } from '../../../src/executor/continuation.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

// Continue in an app state over real stores, egress and the test provider over HTTP: an answer the
// provider cut at its output limit is marked so, and Continue asks the same worker for the rest, with the
// cut answer as the assistant's turn, appending it to the same answer, its request counted and in the ledger.

const KEY = 'sk-continue-answer-EEEEEEEEEEEE';
const keyed = keyedTestProvider(KEY);

type Body = { model: string; messages: { role: string; content: string }[] };
const chatBodies = () =>
  keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);
const lastUser = (body: Record<string, unknown>) =>
  (body.messages as Body['messages']).filter((m) => m.role === 'user').at(-1)?.content;

describe('Continue after an answer cut at the output limit', () => {
  it('appends the rest from the same worker, counted in the step, the totals and the ledger', async () => {
    // Four tokens at most per answer: the first is cut, the continuation (two tokens) ends on its own.
    keyed.provider.setModel({
      id: 'capped',
      behaviour: {
        kind: 'request',
        fn: (body) => (lastUser(body) === CONTINUE_PROMPT ? ' five six' : 'one two three four five'),
      },
      outputLimit: { tokens: 4 },
    });
    const services = await keyedServices('continue-answer', keyed.provider, KEY);
    const conductor = { plan: () => Promise.reject(new Error('no planning')) } as unknown as RunConductor;
    const app = testAppState({ ...services, conductor });
    const pool = [keyed.worker('w1', 'Walker general', 'capped')];
    keyed.provider.clearRequests();

    await app.runs.ask(
      { question: 'Count to six.', mode: 'direct', review: false, direct: { worker: 'w1' } },
      pool,
    );
    await app.runs.whenIdle();
    const cut = app.runs.currentRun.value!;
    expect(cut.phase).toBe('done');
    expect(cut.answer).toBe('one two three four');
    expect(cut.steps[0]?.cutAtLimit).toBe(true);
    expect((await services.runStore.getRun(cut.id))?.steps[0]?.cutAtLimit).toBe(true);

    await app.runs.continueAnswer(0);
    await app.runs.whenIdle();
    const whole = app.runs.currentRun.value!;
    expect(whole.id).toBe(cut.id);
    expect(whole.phase).toBe('done');
    expect(whole.answer).toBe('one two three four five six');
    expect(whole.steps[0]?.cutAtLimit).toBeUndefined();
    expect(whole.steps[0]?.continuing).toBeUndefined();

    // The continuation went to the same model: what it was sent before, its cut answer, then the request.
    const [first, second] = chatBodies();
    expect(chatBodies()).toHaveLength(2);
    expect(second?.model).toBe('capped');
    expect(second?.messages).toEqual([
      ...(first?.messages ?? []),
      { role: 'assistant', content: 'one two three four' },
      { role: 'user', content: CONTINUE_PROMPT },
    ]);

    // Both requests are paid for: the step keeps each, the totals count both, the ledger has both.
    expect(whole.steps[0]?.requests?.map((r) => r.completionTokens)).toEqual([4, 2]);
    expect(whole.totals?.completionTokens).toBe(6);
    expect((await services.ledger.list({ runId: whole.id })).length).toBe(2);
    const stored = await services.runStore.getRun(whole.id);
    expect(stored?.run.answer).toBe('one two three four five six');
    expect(stored?.run.status).toBe('done');
  });
});
