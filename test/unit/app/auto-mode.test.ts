import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createAppState } from '../../../src/app/app-state.ts';
import { createAutoMode } from '../../../src/app/auto-mode.ts';
import type { ConductorBridge } from '../../../src/conductor/bridge.ts';
import { BenchStore } from '../../../src/evaluation/bench-store.ts';
import { PlannerCompareStore } from '../../../src/evaluation/compare-planners-store.ts';
import { mulberry32 } from '../../../src/evaluation/random.ts';
import { codeRunnerWorker } from '../../../src/executor/code-runner-worker.ts';
import type { Outcome, OutcomeChange, OutcomeStore } from '../../../src/learning/outcome.ts';
import { openThreadStore } from '../../../src/records/thread-store.ts';
import { keyedServices, keyedTestProvider } from './test-app-state.ts';

const KEY = 'sk-auto-test-AAAAAAAAAAAAAAAA';

/**
 * The outcome store's contract in memory. The IndexedDB one is the workflow memory's (built apart);
 * auto mode codes against the interface only.
 */
function memoryOutcomeStore(initial: Outcome[] = []): OutcomeStore {
  const byRun = new Map(initial.map((o) => [o.runId, o]));
  const listeners = new Set<(change: OutcomeChange) => void>();
  const changed = (change: OutcomeChange) => {
    for (const l of listeners) l(change);
  };
  return {
    async put(o) {
      byRun.set(o.runId, o);
      changed({ kind: 'put', outcome: o });
    },
    async get(id) {
      return byRun.get(id);
    },
    async list() {
      return [...byRun.values()].sort((a, b) => a.at - b.at);
    },
    async remove(id) {
      byRun.delete(id);
      changed({ kind: 'remove', runId: id });
    },
    async clear() {
      byRun.clear();
      changed({ kind: 'clear' });
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

const PAST_QUESTION = 'Who wrote the secret-marker-7431 novel?';
function outcome(
  i: number,
  strategy: string,
  good: boolean,
  costUsd: number,
  question = PAST_QUESTION,
): Outcome {
  return {
    runId: `past-${strategy}-${i}`,
    question,
    strategy,
    workerIds: ['w1'],
    good,
    source: 'user',
    costUsd,
    latencyMs: 10,
    at: 1000 + i,
  };
}

const keyed = keyedTestProvider(KEY);
const worker = keyed.worker;

describe('auto mode in the app', () => {
  it('sends an easy question straight to one worker with no planning, explains why, and sends nothing it learned', async () => {
    const { runStore, ledger, vault, egress } = await keyedServices('auto', keyed.provider, KEY);
    const past = Array.from({ length: 12 }, (_, i) => outcome(i, 'single:w1', true, 0.0002));
    const outcomes = memoryOutcomeStore(past);
    let planned = 0;
    const conductor = {
      plan: () => {
        planned++;
        return Promise.reject(new Error('no conductor model is loaded'));
      },
      replan: () => Promise.reject(new Error('no conductor model is loaded')),
      chat: () => Promise.reject(new Error('no on-device worker')),
    };
    const app = createAppState({
      runStore: async () => runStore,
      threadStore: () => openThreadStore(`auto-threads-${crypto.randomUUID()}`),
      ledger: async () => ledger,
      egress: async () => egress,
      vault: async () => vault,
      poolStore: async () => {
        throw new Error('this test passes its pool to ask()');
      },
      openBridge: async () => conductor as unknown as ConductorBridge,
      outcomeStore: async () => outcomes,
      benchStore: () => BenchStore.open(`test-bench-${crypto.randomUUID()}`),
      plannerCompareStore: () => PlannerCompareStore.open(`test-planner-compare-${crypto.randomUUID()}`),
    });
    keyed.provider.clearRequests();

    await app.runs.ask({ question: 'Who wrote Hamlet?', mode: 'auto', review: false }, [
      worker('w1', 'Parrot', 'echo'),
    ]);
    await app.runs.whenIdle();

    const view = app.runs.currentRun.value!;
    expect(view.error).toBeUndefined();
    expect(view.phase).toBe('done');
    expect(planned).toBe(0);
    expect(view.planStats?.tokens).toBe(0);
    expect(view.chosenBy).toEqual({
      by: 'auto',
      strategy: 'single:w1',
      reason: '10 of 10 similar questions were answered well by Parrot.',
    });
    const stored = await runStore.getRun(view.id);
    expect(stored?.run.chosenBy?.strategy).toBe('single:w1');

    // Nothing learned, and no past question, is in any request body.
    const chats = keyed.provider.requests.filter((r) => r.method === 'POST');
    expect(chats.length).toBeGreaterThan(0);
    const bodies = chats.map((r) => JSON.stringify(r.body)).join('\n');
    expect(bodies).toContain('Who wrote Hamlet?');
    for (const secret of [
      'secret-marker-7431',
      '"design"',
      'baton-learned-state',
      'single:w1',
      '10 of 10 similar',
    ])
      expect(bodies).not.toContain(secret);
  });

  it('learns from marked outcomes, exports, resets and imports its state, refusing a bad file with a clear error', async () => {
    const outcomes = memoryOutcomeStore();
    const auto = createAutoMode({ outcomeStore: async () => outcomes, random: mulberry32(3) });
    const pool = [worker('w1', 'Parrot', 'echo')];
    await auto.watch();
    expect((await auto.pick('Who wrote Hamlet?', pool, new Set(), true)).reason).toBe(
      'No outcomes yet for facts questions: the conductor plans, as it does by default.',
    );
    for (let i = 0; i < 5; i++) await outcomes.put(outcome(i, 'conductor', i > 0, 0.004));
    await new Promise((r) => setTimeout(r, 0));
    expect(auto.learned.value.categories.facts?.conductor).toEqual({ tries: 5, good: 4, costUsd: 0.02 });

    const exported = auto.exportText();
    await auto.reset();
    expect(await outcomes.list()).toEqual([]);
    expect(auto.learned.value.categories).toEqual({});

    expect(() =>
      auto.importText('{"kind":"baton-learned-state","slider":0.5,"state":{"version":1}}'),
    ).toThrow(/not a Baton learned-state export: state.dimension/);
    expect(() => auto.importText('not json')).toThrow(/not JSON/);
    expect(auto.learned.value.categories).toEqual({});

    auto.importText(exported);
    expect(auto.learned.value.categories.facts?.conductor?.tries).toBe(5);
    // Outcomes marked after the import add to it.
    await outcomes.put({ ...outcome(9, 'conductor', true, 0.004), at: Date.now() + 1000 });
    await new Promise((r) => setTimeout(r, 0));
    expect(auto.learned.value.categories.facts?.conductor?.tries).toBe(6);
  });

  it('learns each new outcome on its own: no store read, and the 300th costs what the first did', async () => {
    const outcomes = memoryOutcomeStore();
    let lists = 0;
    const counted: OutcomeStore = {
      ...outcomes,
      list: () => {
        lists++;
        return outcomes.list();
      },
    };
    const auto = createAutoMode({ outcomeStore: async () => counted, random: mulberry32(1) });
    await auto.watch();
    // Work is counted as reads of an outcome's question: what learning one outcome, or scanning one, reads.
    let reads = 0;
    const questions = [
      'Who wrote Hamlet?',
      'Solve 2x + 3 = 7',
      'Fix the bug in this python function',
      'Write a poem about rain',
    ];
    const strategies = ['conductor', 'router', 'single:w1'];
    const work: number[] = [];
    for (let i = 0; i < 300; i++) {
      const o = outcome(i, strategies[i % 3]!, i % 4 !== 0, 0.001 * (i % 5), questions[i % 4]);
      const question = o.question;
      Object.defineProperty(o, 'question', {
        enumerable: true,
        get: () => {
          reads++;
          return question;
        },
      });
      const before = reads;
      await counted.put(o);
      await new Promise((r) => setTimeout(r, 0));
      work.push(reads - before);
    }
    expect(lists).toBe(1);
    expect(Math.max(...work.slice(-50))).toBeLessThanOrEqual(Math.max(...work.slice(0, 50)));
    expect(auto.learned.value.categories.facts?.conductor?.tries).toBe(25);

    // The same state as learning every outcome at once, from the store's list.
    const fresh = createAutoMode({ outcomeStore: async () => outcomes, random: mulberry32(1) });
    await fresh.watch();
    expect(auto.learned.value).toEqual(fresh.learned.value);
  });

  it('never picks a worker without a key, and says so when nothing can answer', async () => {
    const auto = createAutoMode({ random: mulberry32(5) });
    const pool = [worker('w1', 'Parrot', 'echo'), worker('w2', 'Shouter', 'upper')];
    for (let i = 0; i < 30; i++) {
      const choice = await auto.pick('Who wrote Hamlet?', pool, new Set(['w1']), false);
      expect(choice.strategy).toBe('single:w2');
    }
    // Each cause named with its fix, in the user's names for the workers.
    await expect(auto.pick('Who wrote Hamlet?', pool, new Set(['w1', 'w2']), false)).rejects.toThrow(
      'nothing can answer yet. Parrot and Shouter have no API key saved: add one in Settings. No conductor model is loaded to plan with: load one on Start.',
    );
    await expect(auto.pick('Who wrote Hamlet?', pool, new Set(['w1', 'w2']), true)).rejects.toThrow(
      'nothing can send. Parrot and Shouter have no API key saved: add one in Settings.',
    );
  });

  it("a new user's pool (the code sandbox only) and no conductor: says to add a worker and load a model", async () => {
    const auto = createAutoMode({ random: mulberry32(5) });
    await expect(auto.pick('Who wrote Hamlet?', [codeRunnerWorker()], new Set(), false)).rejects.toThrow(
      'nothing can answer yet. Your pool has no worker that answers questions: add one in Settings. No conductor model is loaded to plan with: load one on Start.',
    );
  });
});
