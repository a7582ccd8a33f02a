/**
 * Outcomes on the page: the user's good/bad mark on a finished run, the bench's scored items,
 * and the workflow memory built over them. Everything stays on the device: the memory's examples go only
 * to the on-device conductor.
 */
import { signal } from '@preact/signals';
import type { MemoryExample, Neighbour, PoolWorker, WorkflowMemory } from '../learning/memory.ts';
import { type Outcome, type OutcomeChange, type OutcomeStore, singleWorkerOf } from '../learning/outcome.ts';
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
    ...(singleWorkerOf(strategy) !== undefined ? {} : { plan }),
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
  /**
   * Every outcome by run id, once `load()` has read them; kept current by each change, applied in place
   * (a bench adds one per item: copying the map for each would make a long bench quadratic). `version`
   * is what views re-render on.
   */
  const byRun = new Map<string, Outcome>();
  const version = signal(0);
  /** Why the last mark could not be saved (a full store), shown by the buttons. */
  const markError = signal<string | undefined>(undefined);
  let loading: Promise<void> | undefined;
  let memory: Promise<WorkflowMemory> | undefined;

  function apply(change: OutcomeChange): void {
    if (change.kind === 'put') byRun.set(change.outcome.runId, change.outcome);
    else if (change.kind === 'remove') byRun.delete(change.runId);
    else byRun.clear();
    // The workflow memory is built again over the outcomes when next asked for, not at every change.
    memory = undefined;
    version.value++;
  }

  /** Reads the outcomes once, then applies each change (here or through the store). */
  function load(): Promise<void> {
    loading ??= services.outcomeStore().then(async (store) => {
      // Changes made while the list is read are applied after it, in order: none is lost.
      let early: OutcomeChange[] | undefined = [];
      store.subscribe((change) => (early ? early.push(change) : apply(change)));
      for (const o of await store.list()) byRun.set(o.runId, o);
      for (const change of early) apply(change);
      early = undefined;
      version.value++;
    });
    return loading;
  }

  /** Reads the outcomes again, once loaded: a restore wrote them beside the store, which told nobody. */
  async function reread(): Promise<void> {
    if (!loading) return;
    await loading;
    const all = await (await services.outcomeStore()).list();
    byRun.clear();
    for (const o of all) byRun.set(o.runId, o);
    memory = undefined;
    version.value++;
  }

  /** The mark of `runId` (undefined: none, or not loaded yet). Reads a signal: views re-render on a change. */
  function outcomeOf(runId: string): Outcome | undefined {
    void version.value;
    return byRun.get(runId);
  }

  /** Adds or replaces an outcome (a bench item's scored result, or a mark). */
  async function record(outcome: Outcome): Promise<void> {
    const store = await services.outcomeStore();
    await store.put(outcome);
    // Shown at once, also before (or without) `load()`: the store's listener may not be there yet.
    if (byRun.get(outcome.runId) !== outcome) apply({ kind: 'put', outcome });
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
  async function subscribe(listener: (change: OutcomeChange) => void): Promise<() => void> {
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
    markError,
    load,
    reread,
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
