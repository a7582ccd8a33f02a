import { signal } from '@preact/signals';
import type { ConductorBridge } from '../conductor/bridge.ts';
import { type ReplanContext, replannerFor } from '../conductor/replanner.ts';
import type { Egress } from '../egress/egress.ts';
import type { Ledger } from '../egress/ledger.ts';
import { dependencies, downstream } from '../executor/dag.ts';
import type { RunHandle } from '../executor/executor.ts';
import { finalStepIndex } from '../executor/status.ts';
import type { RunHistoryStore, RunRecord, StepRecord } from '../executor/store.ts';
import { LOCAL_WORKER, type WorkerSpec } from '../pool/types.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { StepEvent } from '../shared/conductor-api.ts';
import type { Plan, Step } from '../shared/plan/index.ts';
import { downloadText } from './download.ts';
import { withLedgerEstimates } from './ledger-estimates.ts';
import { PlanFeed } from './plan-feed.ts';
import { type PlanLimits, planLimits } from './plan-limits.ts';
import { poolEntries } from './pool-entries.ts';
import type { PlanPrefs } from './prefs.ts';
import { holdWhileRunning, runExclusively, runningElsewhere, whenReleased } from './run-locks.ts';
import { enterReview, leaveReview, type Mode, newRunView, type RunView } from './run-model.ts';
import { frameCoalescedUpdates } from './run-updates.ts';
import { stillLocked } from './vault-unlock.ts';
import { labelsOf } from './worker-names.ts';

/** The part of the conductor bridge a run uses: planning, `self` steps' replanning, the `local` worker. */
export type RunConductor = Pick<ConductorBridge, 'plan' | 'replan' | 'chat'>;

/** What the runs need from the rest of the app; tests pass their own (fake-indexeddb, a scripted conductor). */
export interface RunServices {
  runStore(): Promise<RunHistoryStore>;
  ledger(): Promise<Ledger>;
  egress(): Promise<Pick<Egress, 'fetchFor'>>;
  bridge(): Promise<RunConductor>;
  /** Resolves once the vault can give `pool`'s keys (it may ask the user), false when the user declined. */
  ensureUnlocked(pool: readonly WorkerSpec[], purpose: string): Promise<boolean>;
  /** The user's planning limits now. */
  planPrefs(): PlanPrefs;
  /** Called after a run ends, an import or a delete: History's list, if shown, is read again. */
  historyChanged(): Promise<void>;
}

/**
 * One transport per worker: the on-device model for `local`, else the worker's egress transport
 * (src/egress/chat-transports.ts).
 */
export async function transports(
  pool: readonly WorkerSpec[],
  services: Pick<RunServices, 'bridge' | 'egress'>,
): Promise<(worker: WorkerSpec) => ChatTransport> {
  const needsCloud = pool.some((w) => w.id !== LOCAL_WORKER);
  const bridgeModule = await import('../conductor/bridge.ts');
  const bridge = await services.bridge();
  const local = new bridgeModule.LocalChatTransport(bridge);
  if (!needsCloud) return () => local;
  const [{ chatTransports }, egress] = await Promise.all([
    import('../egress/chat-transports.ts'),
    services.egress(),
  ]);
  const cloud = chatTransports(egress);
  return (worker) => (worker.id === LOCAL_WORKER ? local : cloud(worker));
}

/** A stored run as the Watch screen shows it. */
export function viewFromRecord(run: RunRecord, steps: readonly StepRecord[]): RunView {
  const view: RunView = {
    id: run.id,
    question: run.question,
    mode: run.mode === 'router' ? 'router' : 'conductor',
    phase: run.status,
    planText: '',
    plannedSteps: run.plan.steps,
    steps: steps.map(({ runId: _runId, ...s }) => s),
    startedAt: run.createdAt,
    endedAt: Math.max(run.createdAt, ...steps.map((s) => s.timings.endedAt ?? 0)),
    totals: run.totals,
    workerOrder: [...run.pool.map((w) => w.id), LOCAL_WORKER],
    workerLabels: labelsOf(run.pool),
  };
  if (run.plan.thought) view.thought = run.plan.thought;
  // The executor's rule (the last non-`self` step), as its run-done event gives it for a live run.
  const finalStep = finalStepIndex(view.steps);
  if (finalStep !== undefined && run.status !== 'running') view.finalStep = finalStep;
  if (run.answer !== undefined) view.answer = run.answer;
  if (run.error !== undefined) view.error = run.error;
  return view;
}

/** A plan waiting for the user's review, with the pool and the limits it was written for. */
export interface PendingReview {
  plan: Plan;
  pool: WorkerSpec[];
  limits: PlanLimits;
}

/** Why the last resume did not start (another tab runs it, or its record cannot be read). */
export interface ResumeProblem {
  runId: string;
  kind: 'elsewhere' | 'failed';
  text: string;
}

export type Runs = ReturnType<typeof createRuns>;

/** The runs' state (what is on screen, what waits for review or resume) and every action on a run. */
export function createRuns(services: RunServices) {
  /** The run on screen (being planned, reviewed, running, or opened from history). */
  const currentRun = signal<RunView | undefined>(undefined);
  const pendingReview = signal<PendingReview | undefined>(undefined);
  const resumeProblem = signal<ResumeProblem | undefined>(undefined);
  /** Runs not finished when the page was last closed. */
  const unfinished = signal<RunRecord[]>([]);
  /** Ids of unfinished runs another tab is running now: shown as such, not offered for resume. */
  const unfinishedElsewhere = signal<ReadonlySet<string>>(new Set());
  const watching = new Set<string>();
  /** The live run, if any, and the planning under way (cancelled by the next question or by Cancel). */
  let handle: RunHandle | undefined;
  let planAbort: AbortController | undefined;

  function failRun(runId: string, error: unknown): void {
    console.error('run failed to start', error);
    const message = (error as { message?: string }).message ?? String(error);
    update(runId, (v) => ({
      ...v,
      phase: 'failed',
      error: `The run could not start: ${message}`,
      endedAt: Date.now(),
    }));
  }

  function update(runId: string, fn: (view: RunView) => RunView): void {
    const view = currentRun.value;
    if (view && view.id === runId) currentRun.value = fn(view);
  }

  /** Runs being started (unlock, store, transports): `whenIdle` waits for them too. */
  const starting = new Set<Promise<unknown>>();

  function execute(...args: Parameters<typeof start>): Promise<RunHandle> {
    const started = start(...args);
    starting.add(started);
    void started.then(
      () => starting.delete(started),
      () => starting.delete(started),
    );
    return started;
  }

  async function start(
    runId: string,
    question: string,
    mode: Mode,
    plan: Plan | AsyncIterable<Step>,
    pool: WorkerSpec[],
  ): Promise<RunHandle> {
    if (!(await services.ensureUnlocked(pool, 'to run your question'))) throw stillLocked();
    const [{ startRun }, store, transport, bridge] = await Promise.all([
      import('../executor/executor.ts'),
      services.runStore(),
      transports(pool, services),
      services.bridge(),
    ]);
    const { maxSteps, maxDepth } = services.planPrefs();
    const run = startRun({
      maxSteps: mode === 'router' ? 1 : maxSteps,
      maxDepth,
      runId,
      question,
      mode,
      plan,
      pool,
      transport,
      conductor: replannerFor(bridge, replanContext(pool)),
      store,
      onEvent: withLedgerEstimates(
        services.ledger,
        runId,
        frameCoalescedUpdates((apply) => update(runId, apply)),
      ),
    });
    track(run);
    return run;
  }

  /** Makes `run` the live one until it ends; then the history (and the unfinished list) are read again. */
  function track(run: RunHandle): void {
    handle = run;
    // Other tabs see this run as running here (a resumed run already holds its lock).
    holdWhileRunning(run.runId, run.result);
    void run.result.then(() => {
      if (handle === run) handle = undefined;
      void refreshHistory();
    });
  }

  /** What the conductor needs to write corrective steps for a `self` step of a run over `pool`. */
  function replanContext(pool: readonly WorkerSpec[]): ReplanContext {
    const { maxSteps, maxDepth } = services.planPrefs();
    return { pool: poolEntries(pool), maxSteps, maxDepth };
  }

  /**
   * Asks the question: the conductor plans on the device, streaming tokens and steps. Without review each
   * step goes to the executor the moment it is complete (step 0 can run before step 2 is written; see
   * PlanFeed); with review the whole plan waits for the user. Resolves once the plan is written (the run
   * itself goes on; `whenIdle` waits for it).
   */
  async function ask(
    input: { question: string; mode: Mode; review: boolean },
    pool: WorkerSpec[],
  ): Promise<void> {
    const enabled = pool.filter((w) => w.enabled);
    let runId = crypto.randomUUID();
    currentRun.value = {
      ...newRunView(runId, input.question, input.mode),
      workerOrder: enabled.map((w) => w.id),
      workerLabels: labelsOf(enabled),
    };
    pendingReview.value = undefined;
    planAbort?.abort();
    const abort = new AbortController();
    planAbort = abort;
    const bridge = await services.bridge();
    const prefs = services.planPrefs();
    const { maxSteps } = planLimits(input.mode, prefs);

    const feed = input.review ? undefined : new PlanFeed();
    if (feed) {
      void execute(runId, input.question, input.mode, feed.steps, enabled).catch((error: unknown) => {
        abort.abort();
        failRun(runId, error);
      });
    }
    const onStep = (event: StepEvent) => {
      feed?.onEvent(event);
      if (event.kind === 'restart') {
        update(runId, (v) => ({
          ...v,
          // The steps the conductor keeps stay on screen; the new attempt's follow them.
          plannedSteps: v.plannedSteps.slice(0, event.kept ?? 0),
          planText: `${v.planText}\n\n[${event.reason}: trying again]\n\n`,
        }));
        return;
      }
      update(runId, (v) => {
        const plannedSteps = v.plannedSteps.slice();
        plannedSteps[event.index] = event.step;
        return { ...v, plannedSteps };
      });
    };
    try {
      const response = await bridge.plan(
        {
          question: input.question,
          pool: poolEntries(enabled),
          mode: input.mode,
          maxSteps,
          maxDepth: prefs.maxDepth,
          signal: abort.signal,
        },
        (event) => {
          if (event.kind === 'token') update(runId, (v) => ({ ...v, planText: v.planText + event.text }));
          else if (event.kind !== 'stats') onStep(event);
        },
      );
      const plan = response.plan;
      const extras: Partial<RunView> = {
        thought: plan.thought,
        plannedSteps: plan.steps,
        planStats: {
          ms: response.stats.ms,
          tokens: response.stats.completionTokens,
          ...(response.stats.decodeTokensPerSec !== undefined
            ? { tokensPerSec: response.stats.decodeTokensPerSec }
            : {}),
        },
      };
      if (response.fallback) {
        extras.fallback = `The conductor's plan could not be used (${response.fallback.reason}), so the question goes to one worker.`;
      } else if (response.repaired) {
        extras.fallback = `The conductor's first plan was invalid (${response.repaired.error}); it was repaired.`;
      }
      update(runId, (v) => ({ ...v, ...extras }));
      if (feed) {
        const outcome = feed.finish(plan);
        if (outcome.kind === 'restart') {
          // What streamed is not the plan's beginning: drop that run, start one from the final plan.
          console.warn(`Restarting the run from the final plan: ${outcome.reason}`);
          handle?.abandon();
          const store = await services.runStore();
          await store.deleteRun(runId);
          const oldId = runId;
          runId = crypto.randomUUID();
          update(oldId, (v) => ({ ...v, id: runId, steps: [], phase: 'running' }));
          await execute(runId, input.question, input.mode, plan, enabled);
        }
      } else {
        update(runId, (v) => enterReview(v));
        pendingReview.value = { plan, pool: enabled, limits: planLimits(input.mode, prefs) };
      }
    } catch (error) {
      feed?.cancel();
      const e = error as { name?: string; message?: string };
      const cancelled = e.name === 'PlanCancelled' || abort.signal.aborted;
      handle?.cancel();
      update(runId, (v) => ({
        ...v,
        phase: cancelled ? 'cancelled' : 'failed',
        error: cancelled ? 'Cancelled while planning.' : `Planning failed: ${e.message ?? String(error)}`,
        endedAt: Date.now(),
      }));
    } finally {
      if (planAbort === abort) planAbort = undefined;
    }
  }

  /** Resolves once no run is starting or running here, and the last one's record is written. */
  async function whenIdle(): Promise<void> {
    while (starting.size > 0 || handle) {
      await Promise.allSettled([...starting]);
      await handle?.result.catch(() => undefined);
    }
  }

  /** Runs the reviewed (maybe edited) plan. */
  async function runReviewed(plan: Plan): Promise<void> {
    const view = currentRun.value;
    const review = pendingReview.value;
    if (!view || !review) return;
    pendingReview.value = undefined;
    currentRun.value = {
      ...leaveReview(view),
      phase: 'running',
      plannedSteps: plan.steps,
      thought: plan.thought,
    };
    await execute(view.id, view.question, view.mode, plan, review.pool).catch((error: unknown) =>
      failRun(view.id, error),
    );
  }

  function discardReview(): void {
    const view = currentRun.value;
    pendingReview.value = undefined;
    if (view)
      currentRun.value = {
        ...leaveReview(view),
        phase: 'cancelled',
        error: 'Plan discarded.',
        endedAt: Date.now(),
      };
  }

  function cancelRun(): void {
    planAbort?.abort();
    handle?.cancel();
  }

  function cancelStep(index: number): void {
    handle?.cancelStep(index);
  }

  /**
   * Shows a stored run. Resolves to undefined when it is shown, else to what to tell the user: it is not in
   * the history, or its record is damaged (and why).
   */
  async function openRun(id: string): Promise<string | undefined> {
    if (currentRun.value?.id === id) return undefined;
    const store = await services.runStore();
    try {
      const stored = await store.getRun(id);
      if (!stored) return 'This run is not in your history.';
      currentRun.value = viewFromRecord(stored.run, stored.steps);
      return undefined;
    } catch (error) {
      return `This run cannot be shown: ${(error as Error).message}`;
    }
  }

  /** Resumes a stored run (after a reload): done steps keep their answers, the others run again. */
  async function resume(id: string): Promise<void> {
    resumeProblem.value = undefined;
    try {
      const pool = (await (await services.runStore()).getRun(id))?.run.pool;
      // Declined: nothing changes, and the run stays offered for resume.
      if (pool && !(await services.ensureUnlocked(pool, 'to resume this run'))) return;
      const started = await runExclusively(id, () => resumeHere(id));
      if (!started) {
        resumeProblem.value = {
          runId: id,
          kind: 'elsewhere',
          text: 'This run is running in another tab: it was not started again here.',
        };
        await refreshUnfinished();
      }
    } catch (error) {
      resumeProblem.value = {
        runId: id,
        kind: 'failed',
        text: `The run could not be resumed: ${(error as Error).message}`,
      };
    }
  }

  async function resumeHere(id: string): Promise<RunHandle> {
    const [{ resumeRun }, store, bridge, ledger] = await Promise.all([
      import('../executor/executor.ts'),
      services.runStore(),
      services.bridge(),
      services.ledger(),
    ]);
    const stored = await store.getRun(id);
    if (!stored) throw new Error('it is no longer in your history.');
    currentRun.value = { ...viewFromRecord(stored.run, stored.steps), phase: 'running', endedAt: undefined };
    const run = await resumeRun({
      maxDepth: services.planPrefs().maxDepth,
      store,
      runId: id,
      // Steps whose paid answer was lost are told apart by what the ledger saw leave.
      ledger,
      transport: await transports(stored.run.pool, services),
      conductor: replannerFor(bridge, replanContext(stored.run.pool)),
      onEvent: withLedgerEstimates(
        services.ledger,
        id,
        frameCoalescedUpdates((apply) => update(id, apply)),
      ),
    });
    track(run);
    return run;
  }

  /**
   * Reruns one step and every step that depends on it: those steps are reset in the store, then the run is
   * resumed, which keeps every other done step's answer as context.
   */
  async function rerunStep(index: number): Promise<void> {
    const view = currentRun.value;
    if (!view || handle) return;
    const store = await services.runStore();
    const stored = await store.getRun(view.id);
    if (!stored) return;
    if (!(await services.ensureUnlocked(stored.run.pool, 'to run this step again'))) return;
    const deps = dependencies(stored.steps);
    const reset = new Set([index, ...downstream(deps, index)]);
    for (const step of stored.steps) {
      if (!reset.has(step.index)) continue;
      const fresh: StepRecord = {
        ...step,
        state: 'queued',
        text: '',
        attempts: 0,
        timings: { queuedAt: Date.now() },
      };
      delete fresh.usage;
      delete fresh.cost;
      delete fresh.error;
      await store.putStep(fresh);
    }
    await store.putRun({ ...stored.run, status: 'running', updatedAt: Date.now() });
    await resume(view.id);
  }

  /** Reads the unfinished runs again, and which of them another tab is running. */
  async function refreshUnfinished(): Promise<void> {
    const store = await services.runStore();
    const live = handle?.runId;
    const open = (await store.findUnfinished()).filter((r) => r.id !== live && r.id !== currentRun.value?.id);
    const elsewhere = await runningElsewhere(open.map((r) => r.id));
    unfinished.value = open;
    unfinishedElsewhere.value = elsewhere;
    // "Running in another tab" is old news once that tab has let the run go.
    const problem = resumeProblem.value;
    if (problem?.kind === 'elsewhere' && !elsewhere.has(problem.runId)) resumeProblem.value = undefined;
    // When the other tab's run ends (or the tab closes), read again: the run is done, or resumable here.
    for (const id of elsewhere) {
      if (watching.has(id)) continue;
      watching.add(id);
      whenReleased(id, () => {
        watching.delete(id);
        void refreshUnfinished();
      });
    }
  }

  /** After a run ends, an import or a delete: the unfinished runs, and History's list if it is shown. */
  async function refreshHistory(): Promise<void> {
    await Promise.all([refreshUnfinished(), services.historyChanged()]);
  }

  async function discardUnfinished(id: string): Promise<void> {
    const store = await services.runStore();
    await store.discardRun(id, 'Discarded after a reload.');
    await refreshHistory();
  }

  async function deleteRun(id: string): Promise<void> {
    const store = await services.runStore();
    await store.deleteRun(id);
    if (currentRun.value?.id === id) currentRun.value = undefined;
    await refreshHistory();
  }

  /**
   * Stores an exported run. A run already in the history (same id: imported before, or exported from here) is
   * not stored twice; a stored copy that cannot be read is replaced by the file's.
   */
  async function importRun(
    text: string,
  ): Promise<{ ok: true; id: string; duplicate: boolean } | { ok: false; error: string }> {
    const { parseRunImport } = await import('./export.ts');
    const result = parseRunImport(text);
    if (!result.ok) return result;
    const store = await services.runStore();
    const id = result.data.run.id;
    const existing = await store.getRun(id).catch(async () => {
      await store.deleteRun(id); // damaged: the file's copy replaces it
      return undefined;
    });
    if (existing) return { ok: true, id, duplicate: true };
    await store.putRun({ ...result.data.run, updatedAt: Date.now() });
    for (const step of result.data.steps) await store.putStep(step);
    await refreshHistory();
    return { ok: true, id, duplicate: false };
  }

  async function exportCurrent(kind: 'json' | 'md', id: string): Promise<void> {
    const [m, store] = await Promise.all([import('./export.ts'), services.runStore()]);
    const stored = await store.getRun(id);
    if (!stored) return;
    const [text, type] =
      kind === 'json'
        ? [m.exportRunJson(stored.run, stored.steps), 'application/json']
        : [m.exportRunMarkdown(stored.run, stored.steps), 'text/markdown'];
    downloadText(m.exportFilename(stored.run, kind), text, type);
  }

  return {
    currentRun,
    pendingReview,
    resumeProblem,
    unfinished,
    unfinishedElsewhere,
    ask,
    whenIdle,
    runReviewed,
    discardReview,
    cancelRun,
    cancelStep,
    openRun,
    resume,
    rerunStep,
    refreshUnfinished,
    refreshHistory,
    discardUnfinished,
    deleteRun,
    importRun,
    exportCurrent,
  };
}
