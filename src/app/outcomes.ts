/**
 * Outcomes on the page: the user's good/bad mark on a finished run, the bench's scored items,
 * and the workflow memory built over them. Everything stays on the device: the memory's examples go only
 * to the on-device conductor.
 */
import { signal } from '@preact/signals';
import type { MemoryExample, Neighbour, PoolWorker, WorkflowMemory } from '../learning/memory.ts';
import type { Outcome, OutcomeStore } from '../learning/outcome.ts';
import type { Plan } from '../shared/plan/index.ts';
import { liveTotals, type RunView, runElapsed } from './runs/run-model.ts';

export interface OutcomeServices {
  outcomeStore(): Promise<OutcomeStore>;
}

/** The outcome of a run the user marked: what it asked, the plan that ran, what it cost and took. */
export function outcomeFromView(view: RunView, good: boolean, now: number = Date.now()): Outcome {
  const steps =
    view.plannedSteps.length > 0
      ? view.plannedSteps
      : view.steps.map(({ worker, task, sees }) => ({ worker, task, sees }));
  const plan: Plan = view.thought !== undefined ? { thought: view.thought, steps } : { steps };
  const workerIds = [...new Set(view.steps.map((s) => s.worker).concat(steps.map((s) => s.worker)))];
  // An auto run is stored under the mode it ran in ('router' for a direct call to one worker): the outcome
  // belongs to the strategy auto mode chose, or it would teach auto mode about the wrong one.
  const strategy = view.chosenBy?.strategy ?? view.mode;
  const outcome: Outcome = {
    runId: view.id,
    question: view.question,
    strategy,
    // A direct call to one worker ran no workflow: nothing for the memory to offer the conductor.
    ...(strategy.startsWith('single:') ? {} : { plan }),
    workerIds,
    good,
    source: 'user',
    costUsd: (view.totals ?? liveTotals(view.steps)).cost,
    latencyMs: runElapsed(view, view.endedAt ?? now),
    at: now,
  };
  if (view.pool) outcome.workerModels = Object.fromEntries(view.pool.map((w) => [w.id, w.model]));
  return outcome;
}

export type Outcomes = ReturnType<typeof createOutcomes>;

export function createOutcomes(services: OutcomeServices) {
  /** Every outcome by run id, once `load()` has read them; kept current after each change. */
  const byRun = signal<ReadonlyMap<string, Outcome>>(new Map());
  /** Why the last mark could not be saved (a full store), shown by the buttons. */
  const markError = signal<string | undefined>(undefined);
  let loading: Promise<void> | undefined;
  let memory: Promise<WorkflowMemory> | undefined;

  async function read(store: OutcomeStore): Promise<void> {
    const all = await store.list();
    byRun.value = new Map(all.map((o) => [o.runId, o]));
  }

  /** Reads the outcomes once, then again after every change (here or through the store). */
  function load(): Promise<void> {
    loading ??= services.outcomeStore().then(async (store) => {
      store.subscribe(() => {
        memory = undefined;
        void read(store);
      });
      await read(store);
    });
    return loading;
  }

  /** The mark of `runId` (undefined: none, or not loaded yet). Reads a signal: views re-render on a change. */
  function outcomeOf(runId: string): Outcome | undefined {
    return byRun.value.get(runId);
  }

  /** Adds or replaces an outcome (a bench item's scored result, or a mark). */
  async function record(outcome: Outcome): Promise<void> {
    const store = await services.outcomeStore();
    await store.put(outcome);
    memory = undefined;
    byRun.value = new Map(byRun.value).set(outcome.runId, outcome);
  }

  /** Marks a finished run good or bad; marking again replaces the mark. */
  async function mark(view: RunView, good: boolean): Promise<void> {
    try {
      await record(outcomeFromView(view, good));
      markError.value = undefined;
    } catch (error) {
      markError.value = (error as { message?: string }).message ?? String(error);
    }
  }

  async function list(): Promise<Outcome[]> {
    return (await services.outcomeStore()).list();
  }

  /** Calls `listener` after every change of the outcomes. */
  async function subscribe(listener: () => void): Promise<() => void> {
    return (await services.outcomeStore()).subscribe(listener);
  }

  /** The workflow memory over the outcomes now (MiniSearch is imported here, on first use). */
  function workflowMemory(): Promise<WorkflowMemory> {
    memory ??= Promise.all([import('../learning/memory.ts'), list()]).then(([m, all]) =>
      m.createWorkflowMemory(all),
    );
    return memory;
  }

  /** Past good workflows for `question` that today's pool can run (at most 2). */
  async function examplesFor(
    question: string,
    pool: readonly PoolWorker[],
    options: { maxSteps: number; allowSelf: boolean },
  ): Promise<MemoryExample[]> {
    return (await workflowMemory()).examplesFor(question, pool, options);
  }

  /** The `k` past outcomes (good or bad) most like `question`, with their scores: auto mode's features. */
  async function similarOutcomes(question: string, k: number): Promise<Neighbour[]> {
    return (await workflowMemory()).similarOutcomes(question, k);
  }

  return {
    byRun,
    markError,
    load,
    outcomeOf,
    mark,
    record,
    list,
    subscribe,
    memory: workflowMemory,
    examplesFor,
    similarOutcomes,
  };
}
