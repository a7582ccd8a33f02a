import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { RunConductor } from '../../../src/app/services.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { ChatMessage } from '../../../src/shared/chat.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { EngineHost } from '../../../workers/engine-host.ts';
import type { ConductorEngine, ModelRef } from '../../../workers/engines/engine.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const KEY = 'sk-ask-memory-AAAAAAAAAAAAAAAA';
const model: ModelRef = { engine: 'wllama', url: 'http://127.0.0.1/tiny.gguf' };

/**
 * The real in-thread host (prompt, grammar, parse) over an engine that writes the next scripted plan and
 * keeps the messages it was given: what the on-device conductor saw.
 */
function scriptedConductor(outputs: string[], seen: ChatMessage[][]): RunConductor {
  let loaded: ModelRef | undefined;
  const engine: ConductorEngine = {
    kind: 'wllama',
    loaded: () => loaded,
    async load(m) {
      loaded = m;
    },
    async generate(request) {
      seen.push(request.messages);
      const output = outputs.shift() ?? '';
      request.onToken(output);
      return { text: output, promptTokens: 10, completionTokens: 10, finishReason: 'stop' };
    },
    interrupt() {},
    async unload() {
      loaded = undefined;
    },
  };
  const host = new EngineHost(async () => engine);
  let requests = 0;
  return {
    plan: (request, onEvent) => host.plan({ ...request, model, requestId: `plan-${++requests}` }, onEvent),
    replan: (request, onEvent) =>
      host.replan({ ...request, model, requestId: `replan-${++requests}` }, onEvent),
    chat: () => Promise.reject(new Error('This test has no on-device worker.')),
  };
}

const keyed = keyedTestProvider(KEY);
const worker = keyed.worker;

describe('workflow memory in ask()', () => {
  it('shows the on-device conductor a past good workflow for a similar question, and sends none of it to a provider', async () => {
    const [{ runStore, ledger, vault, egress }, outcomeStore] = await Promise.all([
      keyedServices('memory', keyed.provider, KEY),
      openOutcomeStore('memory-outcomes'),
    ]);
    const pastPlan =
      '{"thought":"draft, then polish","steps":[{"worker":"w1","task":"PAST-TASK-MARKER draft it","sees":[]},{"worker":"w2","task":"PAST-TASK-MARKER polish it","sees":[0]}]}';
    const newPlan = '{"thought":"one step","steps":[{"worker":"w2","task":"Translate it.","sees":[]}]}';
    const seen: ChatMessage[][] = [];
    const app = testAppState({
      runStore,
      ledger,
      egress,
      vault,
      outcomeStore,
      conductor: scriptedConductor([pastPlan, newPlan, newPlan], seen),
    });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    const pool = [worker('w1', 'Shouter', 'upper'), worker('w2', 'Parrot', 'echo')];
    const pastQuestion = 'Translate the quokka greeting into French, politely';

    await app.runs.ask({ question: pastQuestion, mode: 'conductor', review: false }, pool);
    await app.runs.whenIdle();
    const past = app.runs.currentRun.value!;
    expect(past.phase).toBe('done');
    expect(past.drewOn).toBeUndefined();
    await app.outcomes.mark(past, true);
    expect(app.outcomes.outcomeOf(past.id)).toMatchObject({
      good: true,
      source: 'user',
      strategy: 'conductor',
    });

    const sentBefore = keyed.provider.requests.length;
    await app.runs.ask(
      { question: 'Translate the quokka greeting into German', mode: 'conductor', review: false },
      pool,
    );
    await app.runs.whenIdle();
    const next = app.runs.currentRun.value!;
    expect(next.phase).toBe('done');
    expect(next.drewOn).toEqual([{ runId: past.id, question: pastQuestion }]);

    // The conductor saw the past question and its plan, just before the new question.
    const messages = seen[1]!;
    expect(messages.at(-3)).toEqual({ role: 'user', content: pastQuestion });
    expect(JSON.parse(messages.at(-2)!.content)).toEqual(JSON.parse(pastPlan));

    // No request body that left for a provider carries any of it.
    const sent = keyed.provider.requests.slice(sentBefore);
    expect(sent.some((r) => r.path === '/v1/chat/completions')).toBe(true);
    for (const request of sent) {
      const body = JSON.stringify(request.body ?? '');
      expect(body).not.toContain('PAST-TASK-MARKER');
      expect(body).not.toContain('politely');
    }

    // An unrelated question draws on nothing.
    await app.runs.ask({ question: 'How tall is Mount Kenya?', mode: 'conductor', review: false }, pool);
    await app.runs.whenIdle();
    expect(app.runs.currentRun.value?.drewOn).toBeUndefined();
    expect(seen[2]!.map((m) => m.content).join('\n')).not.toContain('PAST-TASK-MARKER');
  });

  it('offers nothing once the user marks that run bad instead', async () => {
    const outcomeStore = await openOutcomeStore('memory-remark');
    const [runStore, ledger, vault] = await Promise.all([
      openRunStore('remark-runs'),
      openLedger('remark-ledger'),
      openVault('remark-vault'),
    ]);
    const egress = createEgress({ vault, ledger });
    const app = testAppState({
      runStore,
      ledger,
      egress,
      vault,
      outcomeStore,
      conductor: scriptedConductor([], []),
    });
    const view = {
      id: 'r-1',
      question: 'Summarise the quokka report',
      mode: 'conductor' as const,
      phase: 'done' as const,
      planText: '',
      plannedSteps: [{ worker: 'w1', task: 'Summarise.', sees: [] as number[] }],
      steps: [],
      startedAt: 0,
      endedAt: 10,
      pool: [worker('w1', 'Shouter', 'upper')],
    };
    const today = [{ id: 'w1', model: 'upper' }];
    const options = { maxSteps: 3, allowSelf: false };
    await app.outcomes.mark(view, true);
    expect(await app.outcomes.examplesFor('Summarise the quokka report', today, options)).toHaveLength(1);
    expect(
      (await app.outcomes.similarOutcomes('Summarise the quokka report', 3)).map((n) => n.outcome.good),
    ).toEqual([true]);
    await app.outcomes.mark(view, false);
    expect((await outcomeStore.list()).map((o) => o.good)).toEqual([false]);
    expect(app.outcomes.outcomeOf('r-1')?.good).toBe(false);
    expect(await app.outcomes.examplesFor('Summarise the quokka report', today, options)).toEqual([]);
    // Still a neighbour, now a bad one: auto mode reads both kinds.
    expect(
      (await app.outcomes.similarOutcomes('Summarise the quokka report', 3)).map((n) => n.outcome.good),
    ).toEqual([false]);
  });
});
