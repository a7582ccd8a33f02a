import type { Attachment } from '../../attachments/types.ts';
import type { PlanEstimate } from '../../executor/estimate.ts';
import { estimatePlan } from '../../executor/estimate.ts';
import type { RunHandle } from '../../executor/executor.ts';
import type { ChosenBy } from '../../executor/store.ts';
import type { MemoryExample } from '../../learning/memory.ts';
import type { WorkerSpec } from '../../pool/types.ts';
import type { ConductorEvent, PlanMode, PlanRequest, PlanResponse } from '../../shared/conductor-api.ts';
import { checkPlan } from '../../shared/plan/checks.ts';
import { type Plan, planLimitsFor, type Step } from '../../shared/plan/index.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import { poolEntries } from '../pool-entries.ts';
import { planRequestFiles, viewFiles, withAttachments } from '../run-files.ts';
import { keylessWorkers } from '../services.ts';
import { conversationOf, type TurnContext, turnEstimate, turnView } from '../turn-context.ts';
import { PlanFeed } from './plan-feed.ts';
import { planNote } from './plan-notes.ts';
import { planningFailedRecord } from './plan-records.ts';
import { type PlanningFailure, planningFailure } from './planning-failure.ts';
import type { Review } from './review.ts';
import type { RunCore } from './run-core.ts';
import { applyPlanEvent, newRunView, type RunView } from './run-model.ts';
import type { SpendConfirmation } from './spend-confirm.ts';
import type { RunStarts } from './starting.ts';

/** A question to plan, as the user asked it. */
export interface PlanInput {
  question: string;
  mode: PlanMode;
  review: boolean;
  planOnly?: boolean;
  /** A follow-up: the thread it continues (src/app/turn-context.ts). */
  thread?: TurnContext;
  /** The files attached to the question. */
  attachments?: readonly Attachment[];
}

/** One planning under way: its run, the pool it plans for, and how what it plans is run. */
interface Planning {
  /** The run's id; a new one when what streamed is dropped and the final plan runs anew. */
  runId: string;
  input: PlanInput;
  enabled: WorkerSpec[];
  chosenBy?: ChosenBy;
  abort: AbortController;
  estimateOf?: (steps: readonly Step[]) => PlanEstimate;
  /** Set when steps stream to the executor as they are written (no review, every key saved). */
  feed?: PlanFeed;
  /** The run the streamed steps started, if they did: a failed plan's record is written after it ends. */
  streamed?: Promise<RunHandle>;
  /** The whole plan is awaited and checked before anything is sent (a worker of the pool has no key). */
  hold: boolean;
  /** The steps that stood when the thread last restarted: a fallback's own step comes after them. */
  keptAtFallback: number;
}

/**
 * Asking with a plan: the conductor plans on the device, streaming tokens and steps. Without review each
 * step goes to the executor the moment it is complete (step 0 can run before step 2 is written; see
 * PlanFeed); with review the whole plan waits for the user.
 */
export function createPlanning(core: RunCore, spend: SpendConfirmation, starts: RunStarts, review: Review) {
  const { services, currentRun } = core;

  /** Workflow memory's examples for a question; a memory that cannot be read plans without them. */
  function pastWorkflows(p: Planning, maxSteps: number, maxDepth: number): Promise<MemoryExample[]> {
    if (!services.memoryExamples) return Promise.resolve([]);
    const { allowSelf } = planLimitsFor(p.input.mode, { maxSteps, maxDepth });
    return services
      .memoryExamples(p.input.question, p.enabled, { maxSteps, allowSelf })
      .catch((error: unknown) => {
        console.warn('Workflow memory could not be read; planning without it.', error);
        return [];
      });
  }

  /** A new question: what was open (a confirm, a review, a planning) gives way to its run on screen. */
  function begin(input: PlanInput, pool: WorkerSpec[], chosenBy?: ChosenBy): Planning {
    const enabled = pool.filter((w) => w.enabled);
    spend.settleConfirm(false, false);
    const runId = crypto.randomUUID();
    core.runFiles.set(runId, input.attachments);
    currentRun.value = {
      ...newRunView(runId, input.question, input.mode),
      ...turnView(input.thread),
      ...viewFiles(input.attachments ?? []),
      workerOrder: enabled.map((w) => w.id),
      workerLabels: labelsOf(enabled),
      ...(chosenBy ? { chosenBy } : {}),
    };
    core.pendingReview.value = undefined;
    core.planAbort?.abort();
    const abort = new AbortController();
    core.planAbort = abort;
    return {
      runId,
      input,
      enabled,
      abort,
      hold: false,
      keptAtFallback: 0,
      ...(chosenBy ? { chosenBy } : {}),
    };
  }

  /**
   * Steps stream to the executor as they are written, unless a worker of the pool has no key: then the
   * whole plan is awaited and checked, so a step for that worker fails the run before anything is sent.
   */
  async function streamSteps(p: Planning, estimateOf: (steps: readonly Step[]) => PlanEstimate) {
    const review = p.input.review || p.input.planOnly === true;
    p.hold = !review && (await keylessWorkers(p.enabled, services).catch(() => new Set<string>())).size > 0;
    if (review || p.hold) return;
    const feed = new PlanFeed();
    p.feed = feed;
    const { runId, input } = p;
    p.streamed = starts.execute(
      runId,
      input.question,
      input.mode,
      spend.withinSpendLimit(feed.steps, runId, estimateOf),
      p.enabled,
    );
    p.streamed.catch((error: unknown) => {
      p.abort.abort();
      core.failRun(runId, error);
    });
  }

  function onPlanEvent(p: Planning, event: ConductorEvent): void {
    if (event.kind === 'stats') return;
    if (event.kind !== 'token') p.feed?.onEvent(event);
    if (event.kind === 'restart') p.keptAtFallback = event.kept ?? 0;
    core.update(p.runId, (v) => applyPlanEvent(v, event, p.estimateOf));
  }

  /** The written plan on screen: its steps, estimate, the conductor's figures and what it changed. */
  function showPlan(p: Planning, response: PlanResponse, estimate: PlanEstimate): void {
    const { plan, stats } = response;
    const extras: Partial<RunView> = {
      thought: plan.thought,
      plannedSteps: plan.steps,
      estimate,
      planStats: {
        ms: stats.ms,
        tokens: stats.completionTokens,
        ...(stats.decodeTokensPerSec !== undefined ? { tokensPerSec: stats.decodeTokensPerSec } : {}),
      },
    };
    const note = planNote(response, p.keptAtFallback, labelsOf(p.enabled));
    if (note) extras.planNote = note;
    core.update(p.runId, (v) => ({ ...v, ...extras }));
  }

  function runWhole(p: Planning, plan: Plan, estimate: PlanEstimate): Promise<void> {
    return starts.runUnreviewed(p.runId, p.input.question, p.input.mode, plan, p.enabled, estimate);
  }

  /** The plan is written and its steps streamed: what the checks find is shown, or the run starts anew. */
  async function finishStream(
    p: Planning,
    feed: PlanFeed,
    plan: Plan,
    estimate: PlanEstimate,
  ): Promise<void> {
    const outcome = feed.finish(plan);
    if (outcome.kind === 'streamed') {
      // Streamed steps started as they were written: what the checks find is shown, not undone.
      const { findings } = checkPlan(plan, { workerLabels: labelsOf(p.enabled) });
      const lines = findings.map(
        (f) => `${f.message} It ran as planned: steps start while the plan is being written.`,
      );
      starts.showChecks(p.runId, lines);
    }
    if (outcome.kind === 'restart') {
      // What streamed is not the plan's beginning: drop that run, start one from the final plan.
      console.warn(`Restarting the run from the final plan: ${outcome.reason}`);
      core.handle?.abandon();
      const store = await services.runStore();
      await store.deleteRun(p.runId);
      const oldId = p.runId;
      const runId = crypto.randomUUID();
      core.runFiles.set(runId, core.runFiles.get(oldId));
      p.runId = runId;
      core.update(oldId, (v) => ({ ...v, id: runId, steps: [], phase: 'running' }));
      await runWhole(p, plan, estimate);
    }
  }

  /** Planning ended early: cancelled (by the user or a newer question), or the conductor failed. */
  async function planningStopped(p: Planning, error: unknown): Promise<void> {
    p.feed?.cancel();
    if ((error as { name?: string }).name === 'PlanCancelled' || p.abort.signal.aborted) {
      core.handle?.cancel();
      core.update(p.runId, (v) => ({
        ...v,
        phase: 'cancelled',
        error: 'Cancelled while planning.',
        endedAt: Date.now(),
      }));
      return;
    }
    const retry = {
      mode: p.chosenBy ? ('auto' as const) : p.input.mode,
      review: p.input.review,
      ...(p.input.planOnly ? { planOnly: true } : {}),
    };
    await planningFailed(p, planningFailure(error), retry);
  }

  /**
   * The conductor could not plan: the run says what failed (the engine's words behind Details), offers to
   * ask again, and is stored, so History keeps it. Steps that streamed before the failure ran as a run of
   * their own: it is stopped, and its record, once written, says the planning failed.
   */
  async function planningFailed(p: Planning, failure: PlanningFailure, retry: NonNullable<RunView['retry']>) {
    const { runId } = p;
    const show = () =>
      core.update(runId, (v) => ({
        ...v,
        phase: 'failed',
        error: failure.text,
        errorDetails: failure.details,
        retry,
        endedAt: v.endedAt ?? Date.now(),
      }));
    show();
    const run = await p.streamed?.catch(() => undefined);
    if (run) {
      run.cancel();
      await run.result.catch(() => undefined);
      show(); // over the stopped run's own end
    }
    const view = currentRun.value;
    await core.storeRecord(async (store) => {
      const existing = run ? (await store.getRun(runId).catch(() => undefined))?.run : undefined;
      const base = view?.id === runId ? view : newRunView(runId, '', 'conductor');
      return planningFailedRecord(base, p.enabled, failure, existing);
    });
  }

  /** Resolves once the plan is written (the run itself goes on; `whenIdle` waits for it). */
  async function askPlanned(input: PlanInput, pool: WorkerSpec[], chosenBy?: ChosenBy): Promise<void> {
    const p = begin(input, pool, chosenBy);
    try {
      const prefs = services.planPrefs();
      const { maxSteps } = planLimitsFor(input.mode, prefs);
      const [bridge, pastLengths, examples] = await Promise.all([
        services.bridge(),
        core.answerLengths(),
        pastWorkflows(p, maxSteps, prefs.maxDepth),
      ]);
      if (examples.length > 0) {
        const drewOn = examples.map((e) => ({ runId: e.runId, question: e.question }));
        core.update(p.runId, (v) => ({ ...v, drewOn }));
      }
      const estimateOf = (steps: readonly Step[]) =>
        estimatePlan({
          question: input.question,
          steps,
          pool: p.enabled,
          answerLengths: pastLengths,
          ...turnEstimate(input.thread),
          ...withAttachments(input.attachments ?? []),
        });
      p.estimateOf = estimateOf;
      await streamSteps(p, estimateOf);
      const request: PlanRequest = {
        question: input.question,
        pool: poolEntries(p.enabled),
        mode: input.mode,
        maxSteps,
        maxDepth: prefs.maxDepth,
        signal: p.abort.signal,
        ...(examples.length > 0
          ? { examples: examples.map(({ question, plan }) => ({ question, plan })) }
          : {}),
        ...conversationOf(input.thread),
        ...planRequestFiles(input.attachments ?? []),
      };
      const response = await bridge.plan(request, (event) => onPlanEvent(p, event));
      const { plan } = response;
      const estimate = estimateOf(plan.steps);
      showPlan(p, response, estimate);
      if (p.hold) await runWhole(p, plan, estimate).catch((error: unknown) => core.failRun(p.runId, error));
      else if (p.feed) await finishStream(p, p.feed, plan, estimate);
      else {
        const planOnly = input.planOnly === true;
        await review.awaitReview(p.runId, {
          plan,
          pool: p.enabled,
          mode: input.mode,
          planOnly,
          lengths: pastLengths,
        });
      }
    } catch (error) {
      await planningStopped(p, error);
    } finally {
      if (core.planAbort === p.abort) core.planAbort = undefined;
    }
  }

  return { askPlanned };
}

export type PlanningActions = ReturnType<typeof createPlanning>;
