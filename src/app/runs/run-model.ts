import type { Attachment } from '../../attachments/types.ts';
import type { PlanEstimate } from '../../executor/estimate.ts';
import { totalsOf } from '../../executor/step-status.ts';
import type { ExecutorEvent, RunLimits } from '../../executor/types.ts';
import type { RunStatus, RunTotals, StepStatus } from '../../records/run-types.ts';
import type { AttachmentRef, ChosenBy, RunRecord, StepRecord } from '../../records/runs-db.ts';
import type { ConductorEvent } from '../../shared/conductor-api.ts';
import type { PlanMode, Step } from '../../shared/plan/index.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { activeMs, type Span } from '../active-time.ts';
import type { TurnContext } from '../turn-context.ts';
import type { PlanNote } from './plan-notes.ts';

/**
 * What the user picks on the Ask screen: a mode, auto mode choosing one per question, or Direct: one worker
 * the user chose, with no planning at all.
 */
export type AskMode = PlanMode | 'auto' | 'direct';

/** Direct mode's choice: the worker that answers, and whether another may answer when it cannot. */
export interface DirectChoice {
  /** The worker's id in the pool. */
  worker: string;
  /** Let failover give the question to another worker when this one cannot answer (default: no). */
  failover?: boolean;
}

/**
 * A question as the user asks it: the one shape every way of asking takes, from the question box, a
 * follow-up, a branch or a retry to auto mode's pick and the planner (which takes only the modes that plan).
 */
export interface AskInput<Mode extends AskMode = AskMode> {
  question: string;
  mode: Mode;
  review: boolean;
  /** Plan and stop: the plan and its price, nothing sent (no key needed) until the user runs it. */
  planOnly?: boolean;
  /** The files attached to the question. */
  attachments?: readonly Attachment[];
  /** A follow-up: the thread it continues (src/app/turn-context.ts). */
  thread?: TurnContext;
  /** The user chose to send the key-shaped text the question holds (KeyWarning.tsx; kept in `ThreadLink`). */
  keptKey?: true;
  /** In Direct mode: the worker the question goes to (src/app/runs/direct.ts). */
  direct?: DirectChoice;
}

/**
 * Where a run is, from the page's point of view: planning and review come before the executor's states;
 * `interrupted` is a run stored as running that no page runs any more (closed or reloaded mid-run).
 */
export type RunPhase = 'planning' | 'review' | 'running' | 'interrupted' | RunStatus;

/** Everything the Watch screen shows about one run. Built from the bridge's and executor's events. */
export interface RunView {
  id: string;
  question: string;
  /** The files attached to the question, by index (a step's `files` names them). */
  attachments?: AttachmentRef[];
  mode: PlanMode;
  phase: RunPhase;
  /** The conductor's raw output as it streams (shown while planning). */
  planText: string;
  thought?: string;
  /** Steps delivered by the conductor before the executor has them (planning). */
  plannedSteps: Step[];
  steps: StepStatus[];
  startedAt: number;
  endedAt?: number;
  finalStep?: number;
  answer?: string;
  totals?: RunTotals;
  error?: string;
  /** What failed in the machinery's own words (an engine's message), shown behind Details under `error`. */
  errorDetails?: string[];
  /** Set when the conductor could not plan: how to ask the question again as it was asked (Try again). */
  retry?: { mode: AskMode; review: boolean; planOnly?: boolean };
  /** Set when the conductor's plan is not as it first wrote it (repaired, or fallen back to one worker). */
  planNote?: PlanNote;
  /** What the plan checks (src/shared/plan/checks.ts) found before the run, and what was done: one line each. */
  planChecks?: string[];
  /** Worker ids in the run's pool order, for stable colours. */
  workerOrder?: string[];
  /** The run's pool's labels by worker id: the run view names workers by these, not by ids. */
  workerLabels?: Record<string, string>;
  /** Conductor statistics (tokens per second, planning time). */
  planStats?: { ms?: number; tokens?: number; tokensPerSec?: number };
  /** The step caps the executor holds this run to (steps per run, self-checks included). */
  limits?: RunLimits;
  /** The run's pool as the executor stored it (for an export made from the page). */
  pool?: WorkerSpec[];
  /** Set while the run store cannot be written: the run lives in memory only. */
  notSaved?: string;
  /** Time spent waiting for the user's review, which is not the run's time. */
  reviewMs?: number;
  /** When this page resumed the run after a reload: its steps' queue times before it are another session's. */
  resumedAt?: number;
  /** When the current review began (set while `phase` is 'review'). */
  reviewSince?: number;
  /** What the plan was estimated to cost before it ran (src/executor/estimate.ts), beside the actual cost. */
  estimate?: PlanEstimate;
  /** Past runs whose good workflows the conductor was shown as examples (workflow memory). */
  drewOn?: { runId: string; question: string }[];
  /** Set when auto mode chose how this question is answered: the strategy and its one-line reason. */
  chosenBy?: ChosenBy;
  /** Set when the run is a turn of a thread: its place there, and the earlier turns its workers get. */
  thread?: TurnContext;
}

export function newRunView(id: string, question: string, mode: PlanMode, now: number = Date.now()): RunView {
  return { id, question, mode, phase: 'planning', planText: '', plannedSteps: [], steps: [], startedAt: now };
}

/** Stores a step as the executor gave it; an event for a step the view does not hold is stale and ignored. */
function storeStep(view: RunView, index: number, status: StepStatus): RunView {
  if (!view.steps[index]) return view;
  const steps = view.steps.slice();
  steps[index] = status;
  return { ...view, steps };
}

/** Tokens and cost over the steps (the executor gives totals at the end; this is the live figure). */
export const liveTotals = totalsOf;

/** The plan waits for the user from now: that time is not the run's. */
export function enterReview(view: RunView, now: number = Date.now()): RunView {
  return { ...view, phase: 'review', reviewSince: now };
}

/** The review is over (the plan runs, or is discarded): its time is set aside. */
export function leaveReview(view: RunView, now: number = Date.now()): RunView {
  if (view.reviewSince === undefined) return view;
  const { reviewSince, ...rest } = view;
  return { ...rest, reviewMs: (view.reviewMs ?? 0) + Math.max(0, now - reviewSince) };
}

/**
 * How long the run has taken: planning, then the time some step was under way; not the time its plan waited
 * for review, nor the time it sat unfinished between a reload and its resume.
 */
export function runElapsed(view: RunView, now: number): number {
  const end = view.endedAt ?? now;
  const reviewing = view.reviewSince !== undefined ? Math.max(0, end - view.reviewSince) : 0;
  const review = (view.reviewMs ?? 0) + reviewing;
  const queued = view.steps.flatMap((s) => s.timings.queuedAt ?? s.timings.startedAt ?? []);
  if (queued.length === 0) return Math.max(0, end - view.startedAt - review);
  // Planning ran from the question until the plan was done (until the first step, when that is not known).
  const planningMs = view.planStats?.ms ?? Math.max(0, Math.min(...queued) - view.startedAt - review);
  const spans: Span[] = [[view.startedAt, view.startedAt + planningMs]];
  for (const step of view.steps) {
    const { queuedAt, startedAt, endedAt } = step.timings;
    if (startedAt !== undefined) spans.push([startedAt, endedAt ?? end]);
    // A step waiting its turn is the run's time too, but not from before a resume (its queue time is the
    // first session's).
    else if (queuedAt !== undefined && endedAt === undefined && step.state === 'queued')
      spans.push([Math.max(queuedAt, view.resumedAt ?? queuedAt), end]);
  }
  return activeMs(spans);
}

/**
 * Applies one executor event. Pure: returns a new view. Step state is the executor's (each step event
 * carries the step's snapshot); the view adds only what is the page's: its phase, review time, banners.
 */
export function applyEvent(view: RunView, event: ExecutorEvent, now: number = Date.now()): RunView {
  switch (event.type) {
    case 'run-started': {
      // A resumed or rerun run starts from stored totals: from now on they are counted live again.
      const { totals: _stored, ...rest } = view;
      return { ...rest, limits: event.limits, pool: event.pool };
    }
    case 'step-queued': {
      const base = view.phase === 'review' ? leaveReview(view, now) : view;
      const steps = base.steps.slice();
      steps[event.index] = event.status;
      return {
        ...base,
        phase: base.phase === 'planning' || base.phase === 'review' ? 'running' : base.phase,
        steps,
      };
    }
    case 'step-request':
    case 'step-waiting':
    case 'step-notice':
    case 'step-takeover':
    case 'step-started':
    case 'step-delta':
    case 'step-reasoning':
    case 'step-retrying':
    case 'step-done':
    case 'step-failed':
    case 'step-cancelled':
      return storeStep(view, event.index, event.status);
    // Each added step came with its own `step-queued`.
    case 'steps-added':
      return view;
    case 'persistence-failed':
      return { ...view, notSaved: event.reason };
    case 'persistence-restored': {
      const { notSaved: _gone, ...rest } = view;
      return rest;
    }
    case 'run-done': {
      const r = event.result;
      const next: RunView = {
        ...view,
        phase: r.status,
        steps: r.steps,
        totals: r.totals,
        endedAt: r.endedAt,
      };
      if (r.finalStep !== undefined) next.finalStep = r.finalStep;
      if (r.answer !== undefined) next.answer = r.answer;
      if (r.error !== undefined) next.error = r.error;
      return next;
    }
  }
}

/**
 * Applies one event of the conductor's planning (src/shared/conductor-api.ts `ConductorEvent`). Pure:
 * returns a new view. Tokens extend the streamed text; a step takes its place in the planned steps; a
 * restart keeps the steps that stand (the new attempt's follow them) and says so in the text. After a step
 * or a restart, `estimateOf` (when given) prices the steps planned so far.
 */
export function applyPlanEvent(
  view: RunView,
  event: ConductorEvent,
  estimateOf?: (steps: readonly Step[]) => PlanEstimate,
): RunView {
  let next: RunView;
  switch (event.kind) {
    case 'token':
      return { ...view, planText: view.planText + event.text };
    case 'stats':
      return view;
    case 'restart':
      next = {
        ...view,
        plannedSteps: view.plannedSteps.slice(0, event.kept ?? 0),
        planText: `${view.planText}\n\n[${event.reason}: trying again]\n\n`,
      };
      break;
    case 'step': {
      const plannedSteps = view.plannedSteps.slice();
      plannedSteps[event.index] = event.step;
      next = { ...view, plannedSteps };
      break;
    }
  }
  return estimateOf && next.plannedSteps.length > 0
    ? { ...next, estimate: estimateOf(next.plannedSteps) }
    : next;
}

export function isActive(phase: RunPhase): boolean {
  return phase === 'planning' || phase === 'running';
}

/** A run holds the page: planning, running, or its plan waiting for review. Nothing else may start. */
export function holdsThePage(view: RunView): boolean {
  return isActive(view.phase) || view.phase === 'review';
}

/**
 * The run as a stored record, from what the page holds: what an export needs when the store could not
 * save the run.
 */
export function snapshotOfView(
  view: RunView,
  now: number = Date.now(),
): { run: RunRecord; steps: StepRecord[] } {
  const run: RunRecord = {
    id: view.id,
    question: view.question,
    mode: view.mode,
    pool: view.pool ?? [],
    plan: {
      steps:
        view.steps.length > 0
          ? view.steps.map((s) => ({ worker: s.worker, task: s.task, sees: s.sees }))
          : view.plannedSteps,
    },
    planComplete: !isActive(view.phase),
    includeQuestion: true,
    status:
      view.phase === 'planning' || view.phase === 'review' || view.phase === 'interrupted'
        ? 'running'
        : view.phase,
    createdAt: view.startedAt,
    updatedAt: now,
    totals: view.totals ?? totalsOf(view.steps),
  };
  if (view.thought) run.plan.thought = view.thought;
  if (view.answer !== undefined) run.answer = view.answer;
  if (view.error !== undefined) run.error = view.error;
  if (view.chosenBy) run.chosenBy = view.chosenBy;
  if (view.thread) Object.assign(run, view.thread.link);
  // What a step waits on is live state, not part of the run.
  const steps = view.steps.map(({ wait: _live, ...s }) => ({ ...s, runId: view.id }));
  return { run, steps };
}
