import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { SAME_WORKER_REASON } from '../../../src/app/stickiness.ts';
import { BUSY_FOLLOW_UP } from '../../../src/app/threads/asking.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import { csvAttachment } from '../../fixtures/attachments.ts';
import { recordingConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const KEY = 'sk-threads-test-BBBBBBBBBBBBBBBB';
const keyed = keyedTestProvider(KEY);

const PLAN = '{"thought":"one worker","steps":[{"worker":"w1","task":"Answer the question.","sees":[]}]}';
const _model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };

type Body = { messages: { role: string; content: string }[] };
const chatBodies = () =>
  keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);

describe('a thread of follow-ups over the real executor and the test provider', () => {
  it("sends the earlier turns as chat history within the worker's budget, says when it cut, and keeps the planner's prompt on the device", async () => {
    // 300 ms to the first token: the second turn is surely still running when the third is tried.
    keyed.provider.setModel({
      id: 'answers',
      behaviour: { kind: 'fixed', text: `An answer. ${'word '.repeat(300)}The end.` },
      latency: { firstTokenMs: 300, perTokenMs: 0 },
    });
    const services = await keyedServices('threads', keyed.provider, KEY);
    const { conductor, prompts } = recordingConductor(PLAN);
    const app = testAppState({ ...services, conductor });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    const pool = [keyed.worker('w1', 'Writer', 'answers')];
    const how = { mode: 'conductor' as const, review: false };
    const before = chatBodies().length;

    await app.threads.startThread({ question: 'First question?', ...how }, pool);
    await app.runs.whenIdle();
    const first = app.runs.currentRun.value!;
    expect(first.phase).toBe('done');
    // A follow-up while a turn runs is refused with the reason; an empty one does nothing.
    await app.threads.followUp({ question: '   ', ...how }, pool);
    expect(app.runs.currentRun.value?.id).toBe(first.id);

    await app.threads.followUp({ question: 'Second question?', ...how }, pool);
    const second = app.runs.currentRun.value!;
    await app.threads.followUp({ question: 'Too soon?', ...how }, pool);
    expect(app.threads.followUpProblem.value).toBe(BUSY_FOLLOW_UP);
    await app.runs.whenIdle();
    expect(second.id).not.toBe(first.id);
    expect(app.runs.currentRun.value?.phase).toBe('done');

    // The follow-up's request: the earlier turn (question, final answer), then the question, then the task.
    const secondBody = chatBodies()[before + 1]!;
    expect(secondBody.messages.map((m) => [m.role, m.content.slice(0, 16)])).toEqual([
      ['user', 'First question?'],
      ['assistant', 'An answer. word '],
      ['user', 'Second question?'],
      ['user', 'Answer the quest'],
    ]);
    expect(secondBody.messages[1]?.content).toBe(first.answer);
    const secondStep = (await services.runStore.getRun(second.id))!.steps[0]!;
    expect(secondStep.history).toMatchObject({ kept: 1, cut: 0 });

    // A budget that holds one turn: the third turn's request carries only the newest, and says it cut one.
    app.prefs.historyPrefs.value = { tokens: 400 };
    await app.threads.followUp({ question: 'Third question?', ...how }, pool);
    await app.runs.whenIdle();
    const third = app.runs.currentRun.value!;
    const thirdBody = chatBodies()[before + 2]!;
    expect(thirdBody.messages.map((m) => m.content.slice(0, 16))).toEqual([
      'Second question?',
      'An answer. word ',
      'Third question?',
      'Answer the quest',
    ]);
    const thirdStep = (await services.runStore.getRun(third.id))!.steps[0]!;
    expect(thirdStep.history).toMatchObject({ kept: 1, cut: 1, budgetTokens: 400 });
    expect(thirdStep.history!.tokens).toBeLessThanOrEqual(400);
    // The estimate counted the history too: more input than the first turn's.
    expect(third.estimate!.inputTokens).toBeGreaterThan(first.estimate!.inputTokens);

    // Stored as one thread of three turns, each after the one before.
    const stored = await Promise.all([first, second, third].map((v) => services.runStore.getRun(v.id)));
    expect(stored.map((s) => [s?.run.threadId, s?.run.turn, s?.run.parentRunId])).toEqual([
      [expect.any(String), 0, undefined],
      [stored[0]?.run.threadId, 1, first.id],
      [stored[0]?.run.threadId, 2, second.id],
    ]);
    const listed = await services.threadStore.listThreads();
    expect(listed.find((t) => t.id === stored[0]?.run.threadId)).toMatchObject({
      title: 'First question?',
      turns: 3,
      runs: 3,
    });

    // The planner saw the conversation (compactly) for the follow-ups...
    expect(prompts).toHaveLength(3);
    expect(prompts[1]?.at(-1)?.content).toContain('Q: First question?');
    // The question last, but for the rule on the fenced answers before it (workers/prompt/data-fence.ts).
    expect(prompts[2]?.at(-1)?.content).toMatch(
      /Q: Second question\?[\s\S]*New question: Third question\?\n\nText inside data tags [^\n]*$/,
    );
    // ...and nothing of its prompt reached a provider: no system prompt, no few-shot, no conversation block.
    const sent = chatBodies()
      .slice(before)
      .map((b) => JSON.stringify(b));
    for (const prompt of prompts) {
      for (const message of prompt) {
        if (
          message.role === 'user' &&
          ['First question?', 'Second question?', 'Third question?'].includes(message.content)
        )
          continue;
        for (const body of sent) expect(body).not.toContain(JSON.stringify(message.content).slice(1, -1));
      }
    }
    for (const body of sent) expect(body).not.toMatch(/Earlier in this conversation|You are the conductor/);
  });

  it("sends a router-mode follow-up straight back to the last turn's worker, without planning, and says so", async () => {
    keyed.provider.setModel({ id: 'answers', behaviour: { kind: 'fixed', text: 'def f(): pass' } });
    const services = await keyedServices('threads-sticky', keyed.provider, KEY);
    const { conductor, prompts } = recordingConductor(PLAN);
    const app = testAppState({ ...services, conductor });
    const pool = [keyed.worker('w1', 'Writer', 'answers'), keyed.worker('w2', 'Other', 'answers')];
    await app.threads.startThread(
      { question: 'Write a Python function.', mode: 'router', review: false },
      pool,
    );
    await app.runs.whenIdle();
    expect(prompts).toHaveLength(1);
    await app.threads.followUp({ question: 'Shorter, please.', mode: 'router', review: false }, pool);
    await app.runs.whenIdle();
    const view = app.runs.currentRun.value!;
    expect(view.phase).toBe('done');
    expect(prompts).toHaveLength(1);
    expect(view.chosenBy).toEqual({ by: 'thread', strategy: 'single:w1', reason: SAME_WORKER_REASON });
    expect(view.steps[0]?.worker).toBe('w1');
  });

  it("takes files on a follow-up: the follow-up's request carries the file, the first turn's did not; a busy thread refuses first", async () => {
    keyed.provider.setModel({
      id: 'answers',
      behaviour: { kind: 'fixed', text: 'Noted.' },
      latency: { firstTokenMs: 200, perTokenMs: 0 },
    });
    const services = await keyedServices('threads-files', keyed.provider, KEY);
    // The conductor gives its one step every file (with no file attached, validation drops `files`).
    const { conductor } = recordingConductor(
      '{"thought":"one worker","steps":[{"worker":"w1","task":"Answer the question.","sees":[],"files":"all"}]}',
    );
    const app = testAppState({ ...services, conductor });
    const pool = [keyed.worker('w1', 'Writer', 'answers')];
    const how = { mode: 'conductor' as const, review: false };
    const before = chatBodies().length;
    await app.threads.startThread({ question: 'Summarise what I send next.', ...how }, pool);
    // While the first turn runs, a follow-up is not accepted: the box keeps its text and files.
    expect(app.threads.acceptsFollowUp()).toBe(false);
    expect(app.threads.followUpProblem.value).toBe(BUSY_FOLLOW_UP);
    await app.runs.whenIdle();
    expect(app.threads.acceptsFollowUp()).toBe(true);

    const csv = await csvAttachment('sales.csv', 'region,total\nnorth,1729\n');
    const asked = app.threads.followUp({ question: 'Here is the file.', ...how, attachments: [csv] }, pool);
    // Review is off and the provider has had no file from this user: the file waits for their OK.
    await vi.waitFor(() =>
      expect(app.runs.filesConfirm.value?.destinations[0]?.files).toEqual(['sales.csv']),
    );
    expect(chatBodies().slice(before)).toHaveLength(1);
    app.runs.confirmFiles(true);
    await asked;
    await app.runs.whenIdle();
    expect(app.runs.currentRun.value?.phase).toBe('done');
    const bodies = chatBodies()
      .slice(before)
      .map((b) => JSON.stringify(b));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).not.toContain('north,1729');
    expect(bodies[1]).toContain('north,1729');
  });
});
