import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import { recordingConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const KEY = 'sk-thread-instructions-CCCCCCCCCCCC';
const keyed = keyedTestProvider(KEY);

const PLAN =
  '{"thought":"draft, then improve","steps":[{"worker":"w1","task":"Draft it.","sees":[]},{"worker":"w2","task":"Improve the draft.","sees":[0]}]}';
const _model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };
const INSTRUCTIONS = `Answer as a pirate would. ${'Keep every sentence short. '.repeat(100)}END-OF-INSTRUCTIONS`;

type Body = { messages: { role: string; content: string }[] };
const chatBodies = () =>
  keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);
const lastUserText = (prompt: ChatMessage[] | undefined) => String(prompt?.at(-1)?.content ?? '');

describe("a thread's standing instructions", () => {
  it('go whole to every worker step of the turns after they are set, and as one short line to the planner', async () => {
    keyed.provider.setModel({ id: 'drafts', behaviour: { kind: 'fixed', text: 'A draft.' } });
    keyed.provider.setModel({ id: 'better', behaviour: { kind: 'fixed', text: 'A better draft.' } });
    const services = await keyedServices('thread-instructions', keyed.provider, KEY);
    const { conductor, prompts } = recordingConductor(PLAN);
    const app = testAppState({ ...services, conductor });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    const pool = [keyed.worker('w1', 'Drafter', 'drafts'), keyed.worker('w2', 'Editor', 'better')];
    const how = { mode: 'conductor' as const, review: false };

    await app.threads.startThread({ question: 'First question?', ...how }, pool);
    await app.runs.whenIdle();
    const first = app.runs.currentRun.value!;
    expect(first.phase).toBe('done');
    const threadId = app.threads.current.value!.id;
    const firstBodies = chatBodies().length;
    expect(firstBodies).toBe(2);
    expect(
      chatBodies()
        .flatMap((b) => b.messages)
        .some((m) => m.role === 'system'),
    ).toBe(false);
    expect(lastUserText(prompts.at(-1))).not.toContain('Thread instructions');

    await app.threads.setInstructions(threadId, `  ${INSTRUCTIONS}\n`);
    expect(app.threads.current.value?.instructions).toBe(INSTRUCTIONS);
    expect((await services.threadStore.getThread(threadId))?.instructions).toBe(INSTRUCTIONS);

    await app.threads.followUp({ question: 'Second question?', ...how }, pool);
    await app.runs.whenIdle();
    const second = app.runs.currentRun.value!;
    expect(second.phase).toBe('done');

    // Every worker step of the turn: the instructions whole, as the request's one system message, first.
    const bodies = chatBodies().slice(firstBodies);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body.messages.filter((m) => m.role === 'system')).toEqual([
        { role: 'system', content: INSTRUCTIONS },
      ]);
      expect(body.messages[0]?.role).toBe('system');
    }
    // The planner: one short fenced line before the conversation, never the whole of them.
    const planned = lastUserText(prompts.at(-1));
    const line = planned.split('\n')[0] ?? '';
    expect(line).toMatch(
      /^Thread instructions \(every worker is sent them in full\): <data>Answer as a pirate would\./,
    );
    expect(line.length).toBeLessThan(320);
    expect(planned).not.toContain('END-OF-INSTRUCTIONS');
    expect(planned).toContain('Second question?');
    // Counted in the price: each of the two steps carries about 700 tokens more than without them.
    expect(second.estimate!.inputTokens - first.estimate!.inputTokens).toBeGreaterThan(1_000);

    // Opened again (after a reload), the thread shows them; cleared, the next turn goes without.
    await app.threads.openThread(threadId);
    expect(app.threads.current.value?.instructions).toBe(INSTRUCTIONS);
    await app.threads.setInstructions(threadId, '   ');
    expect(app.threads.current.value?.instructions).toBeUndefined();
    expect((await services.threadStore.getThread(threadId))?.instructions).toBeUndefined();
    await app.threads.followUp({ question: 'Third question?', ...how }, pool);
    await app.runs.whenIdle();
    const third = chatBodies().slice(firstBodies + 2);
    expect(third).toHaveLength(2);
    expect(third.flatMap((b) => b.messages).some((m) => m.role === 'system')).toBe(false);
  });
});
