import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunView } from '../../../src/app/runs/run-model.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import type { Plan } from '../../../src/shared/plan/index.ts';
import { openToolStore, type ToolStore } from '../../../src/tools/store.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { testAppState } from './test-app-state.ts';

// Reading the tools offered (their store, and the vault for their tokens) is on the way from Run to the
// first request (P13): a reviewed plan that grants no step a tool, and has no `self` step that could write one that
// is granted, starts without it. A plan that does reads them as before.

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ models: [{ id: 'writer', behaviour: { kind: 'echo' } }] });
});
afterAll(() => provider.close());

/** A real tool store that counts its reads. */
function counted(store: ToolStore): { store: ToolStore; reads: () => number } {
  let reads = 0;
  return {
    store: {
      ...store,
      list() {
        reads++;
        return store.list();
      },
    },
    reads: () => reads,
  };
}

async function runOf(name: string, plan: Plan): Promise<{ readsDuringRun: number; error?: string }> {
  const [runStore, ledger, vault, tools] = await Promise.all([
    openRunStore(`${name}-runs`),
    openLedger(`${name}-ledger`),
    openVault(`${name}-vault`),
    openToolStore(`${name}-tools`),
  ]);
  const { store, reads } = counted(tools);
  const app = testAppState({
    runStore,
    ledger,
    egress: createEgress({ vault, ledger }),
    vault,
    conductor: scriptedConductor('{}'),
    toolStore: store,
  });
  const pool = [workerSpec({ id: 'w1', label: 'Writer', baseURL: provider.baseURL, model: 'writer' })];
  // A plan in review, as the test page of P13 puts one (planning reads the tools too: it tells the planner).
  const id = crypto.randomUUID();
  app.runs.currentRun.value = { ...newRunView(id, 'Say hello.', 'conductor'), phase: 'review' };
  app.runs.pendingReview.value = { plan, pool, limits: { maxSteps: 3, allowSelf: true } };
  const before = reads();
  await app.runs.runReviewed(plan);
  await app.runs.whenIdle();
  const error = app.runs.currentRun.value?.error;
  return { readsDuringRun: reads() - before, ...(error ? { error } : {}) };
}

describe('the tools a run reads before its first request', () => {
  it('are not read for a plan that grants no tool', async () => {
    const run = await runOf('run-tools-none', { steps: [{ worker: 'w1', task: 'Say hello.', sees: [] }] });
    expect(run).toEqual({ readsDuringRun: 0 });
  });

  it('are read for a plan that grants one, or whose self step may write steps that are granted one', async () => {
    const granted = await runOf('run-tools-granted', {
      steps: [{ worker: 'w1', task: 'Find the login issues.', sees: [], tools: ['tracker.search_issues'] }],
    });
    expect(granted.readsDuringRun).toBeGreaterThan(0);
    const selfStep = await runOf('run-tools-self', {
      steps: [
        { worker: 'w1', task: 'Say hello.', sees: [] },
        { worker: 'self', task: 'Check it.', sees: [0] },
      ],
    });
    expect(selfStep.readsDuringRun).toBeGreaterThan(0);
  });
});
