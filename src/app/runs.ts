import { effect, signal } from '@preact/signals';
import type { ConductorBridge } from '../conductor/bridge.ts';
import { type ReplanContext, replannerFor } from '../conductor/replanner.ts';
import type { Egress } from '../egress/egress.ts';
import type { Ledger } from '../egress/ledger.ts';
import { dependencies, downstream } from '../executor/dag.ts';
import { type AnswerLength, estimatePlan, type PlanEstimate } from '../executor/estimate.ts';
import type { RunHandle } from '../executor/executor.ts';
import type { FailoverOptions } from '../executor/failover.ts';
import { overSpendLimit } from '../executor/spend-limit.ts';
import { finalStepIndex } from '../executor/status.ts';
import type { ChosenBy, RunHistoryStore, RunRecord, StepRecord } from '../executor/store.ts';
import type { ExecutorEvent } from '../executor/types.ts';
import type { MemoryExample } from '../learning/memory.ts';
import { LOCAL_WORKER, onDevice, type WorkerSpec } from '../pool/types.ts';
import { presetById } from '../providers/catalog.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { SandboxRunner } from '../sandbox/code-runner.ts';
import type { StepEvent } from '../shared/conductor-api.ts';
import { checkPlan, describeFindings } from '../shared/plan/checks.ts';
import type { Plan, Step } from '../shared/plan/index.ts';
import { downloadText } from './download.ts';
import { formatCost } from './format.ts';
import { withLedgerEstimates } from './ledger-estimates.ts';
import { PlanFeed } from './plan-feed.ts';
import { type PlanLimits, planLimits } from './plan-limits.ts';
import { planNote, samePlan } from './plan-notes.ts';
import { plannedRecord, planningFailedRecord } from './plan-records.ts';
import { type PlanningFailure, planningFailure } from './planning-failure.ts';
import { poolEntries } from './pool-entries.ts';
import type { PlanPrefs, RunPrefs } from './prefs.ts';
import { formatLimit, loadAnswerLengths } from './price.ts';
import { holdWhileRunning, runExclusively, runningElsewhere, whenReleased } from './run-locks.ts';
import { type AskMode, enterReview, leaveReview, type Mode, newRunView, type RunView } from './run-model.ts';
import { afterRequestsLeave, frameCoalescedUpdates } from './run-updates.ts';
import { withRunStep } from './run-worker.ts';
import { once } from './services.ts';
import { stillLocked } from './vault-unlock.ts';
import { labelsOf } from './worker-names.ts';

/** The part of the conductor bridge a run uses: planning, `self` steps' replanning, the `local` worker. */
export type RunConductor = Pick<ConductorBridge, 'plan' | 'replan' | 'chat'>;

/** What the runs need from the rest of the app; tests pass their own (fake-indexeddb, a scripted conductor). */
export interface RunServices {
  runStore(): Promise<RunHistoryStore>;
  ledger(): Promise<Ledger>;
  egress(): Promise<Pick<Egress, 'fetchFor' | 'hasKey'> & Partial<Pick<Egress, 'idle'>>>;
  bridge(): Promise<RunConductor>;
  /** Resolves once the vault can give `pool`'s keys (it may ask the user), false when the user declined. */
  ensureUnlocked(pool: readonly WorkerSpec[], purpose: string): Promise<boolean>;
  /** The user's planning limits now. */
  planPrefs(): PlanPrefs;
  /** Whether runs fail over (Settings); without it they do not. */
  runPrefs?(): RunPrefs;
  /** US dollars one run may spend now (Settings → Spending); null or absent: no limit. */
  spendLimitUsd?(): number | null;
  /** The page's code sandbox, for `run` steps (src/executor/run-step.ts). Absent: a `run` step says it cannot run. */
  codeSandbox?(): Promise<Pick<SandboxRunner, 'execute'>>;
  /** Called after a run ends, an import or a delete: History's list, if shown, is read again. */
  historyChanged(): Promise<void>;
  /**
   * Past good workflows for the question that `pool` can run (workflow memory, src/app/outcomes.ts): shown
   * to the on-device conductor only. Absent: no memory.
   */
  memoryExamples?(
    question: string,
    pool: readonly WorkerSpec[],
    options: { maxSteps: number; allowSelf: boolean },
  ): Promise<MemoryExample[]>;
  /**
   * Auto mode's pick for a question over the enabled pool (src/app/auto-mode.ts): 'conductor', 'router' or
   * `single:<workerId>`, with its one-line reason. Absent: auto mode is not offered.
   */
  chooseStrategy?(
    question: string,
    pool: readonly WorkerSpec[],
    keyless: ReadonlySet<string>,
  ): Promise<{ strategy: string; reason: string }>;
}

/**
 * One transport per worker: the on-device model for `local`, the code sandbox for `run`, else the worker's
 * egress transport (src/egress/chat-transports.ts).
 */
export async function transports(
  pool: readonly WorkerSpec[],
  services: Pick<RunServices, 'bridge' | 'egress' | 'codeSandbox'>,
): Promise<(worker: WorkerSpec) => ChatTransport> {
  const needsCloud = pool.some((w) => !onDevice(w.id));
  // At once, not one after another: this is on the way from Run to the first request.
  const [{ LocalChatTransport }, bridge, cloudModule, egress] = await Promise.all([
    bridgeModule(),
    services.bridge(),
    needsCloud ? chatTransportsModule() : undefined,
    needsCloud ? services.egress() : undefined,
  ]);
  const local = new LocalChatTransport(bridge);
  const sandbox = services.codeSandbox?.bind(services);
  if (!cloudModule || !egress) return withRunStep(() => local, sandbox);
  const cloud = cloudModule.chatTransports(egress);
  return withRunStep((worker) => (worker.id === LOCAL_WORKER ? local : cloud(worker)), sandbox);
}

/**
 * How a run fails over, when the user lets it (Settings): a substitute must be able to send, that is have
 * a key saved for its provider at its origin, or be on a provider that needs none (a local server).
 */
export async function failoverFor(
  services: Pick<RunServices, 'egress' | 'runPrefs'>,
): Promise<FailoverOptions | undefined> {
  if (!services.runPrefs?.().failover) return undefined;
  const egress = await services.egress();
  return {
    hasKey: async (worker) =>
      presetById(worker.providerId)?.needsKey === false ||
      egress.hasKey({ providerId: worker.providerId, baseURL: worker.baseURL }),
  };
}

/** Whether a worker's provider needs a key; an unknown provider is assumed to (egress refuses it anyway). */
function needsKey(worker: WorkerSpec): boolean {
  return !onDevice(worker.id) && (presetById(worker.providerId)?.needsKey ?? true);
}

/** Ids of the workers of `pool` that cannot authenticate: their provider needs a key and none is saved. */
export async function keylessWorkers(
  pool: readonly WorkerSpec[],
  services: Pick<RunServices, 'egress'>,
): Promise<Set<string>> {
  const needing = pool.filter(needsKey);
  if (needing.length === 0) return new Set();
  const egress = await services.egress();
  const has = await Promise.all(needing.map((w) => egress.hasKey(w)));
  return new Set(needing.filter((_, i) => !has[i]).map((w) => w.id));
}

/** A stored run as the Watch screen shows it. */
export function viewFromRecord(run: RunRecord, steps: readonly StepRecord[]): RunView {
  const mode = run.mode === 'router' ? 'router' : 'conductor';
  const view: RunView = {
    id: run.id,
    question: run.question,
    mode,
    // A stored plan not run yet is back in review (openRun gives it its editor); a failed planning is a failure.
    phase: run.status === 'planned' ? 'review' : run.status === 'planning-failed' ? 'failed' : run.status,
    planText: '',
    plannedSteps: run.plan.steps,
    steps: steps.map(({ runId: _runId, ...s }) => s),
    startedAt: run.createdAt,
    endedAt: Math.max(run.createdAt, ...steps.map((s) => s.timings.endedAt ?? 0)),
    totals: run.totals,
    workerOrder: [...run.pool.map((w) => w.id), LOCAL_WORKER],
    workerLabels: labelsOf(run.pool),
    pool: run.pool,
  };
  if (run.plan.thought) view.thought = run.plan.thought;
  // The executor's rule (the last non-`self` step), as its run-done event gives it for a live run.
  const finalStep = finalStepIndex(view.steps);
  if (finalStep !== undefined && run.status !== 'running') view.finalStep = finalStep;
  if (run.answer !== undefined) view.answer = run.answer;
  if (run.error !== undefined) view.error = run.error;
  if (run.errorDetails) view.errorDetails = run.errorDetails;
  if (run.status === 'planning-failed') view.retry = { mode: run.chosenBy ? 'auto' : mode, review: false };
  if (run.chosenBy) view.chosenBy = run.chosenBy;
  return view;
}

/** A plan waiting for the user's review, with the pool and the limits it was written for. */
export interface PendingReview {
  plan: Plan;
  pool: WorkerSpec[];
  limits: PlanLimits;
  /** Ids of the pool's workers with no key saved (their provider needs one): the review says so per step. */
  keyless?: ReadonlySet<string>;
  /** Planned with Plan only: nothing has been sent, and running it asks for the keys only then. */
  planOnly?: boolean;
  /** Each model's past answer lengths, for the price of the plan as the user edits it. */
  answerLengths?: ReadonlyMap<string, AnswerLength>;
}

/** A plan to review: the pool and mode it was written for, and whether it came from Plan only. */
interface ReviewInput {
  plan: Plan;
  pool: WorkerSpec[];
  mode: Mode;
  planOnly: boolean;
  /** Each model's past answer lengths, when already read. */
  lengths?: ReadonlyMap<string, AnswerLength>;
}

/** A plan whose estimate is over the spend limit, waiting for the user's OK. */
export interface SpendConfirm {
  runId: string;
  estimate: PlanEstimate;
  limitUsd: number;
  /** The limit this run gets if the user agrees: room for the plan's estimate, twice over. */
  raisedLimitUsd: number;
  /**
   * The plan streams into a run already going (no review): its steps within the limit may be running;
   * declining stops the run, steps done kept. Otherwise declining returns to the plan, unchanged.
   */
  streaming: boolean;
}

/** Twice the estimate, in whole cents up: what a run the user agreed to may spend before it stops. */
export function raisedLimit(estimateUsd: number, limitUsd: number): number {
  return Math.max(limitUsd, Math.ceil(estimateUsd * 2 * 100) / 100);
}

/**
 * The limit a run starts with: the user's, or room for the estimate of a plan over it (which runs only
 * once the user has agreed). Undefined: no limit.
 */
export function runSpendLimit(estimateUsd: number, limitUsd: number | undefined): number | undefined {
  if (limitUsd === undefined) return undefined;
  return overSpendLimit(estimateUsd, limitUsd) ? raisedLimit(estimateUsd, limitUsd) : limitUsd;
}

/** What a run the user declined to let past the limit says, on the run view. */
export function declinedText(estimate: PlanEstimate, limitUsd: number): string {
  return `Stopped before passing your ${formatLimit(limitUsd)} spend limit per run: the plan was estimated at ${formatCost(estimate.cost)}. Steps done are kept.`;
}

/** Why the last resume did not start (another tab runs it, or its record cannot be read). */
export interface ResumeProblem {
  runId: string;
  kind: 'elsewhere' | 'failed';
  text: string;
}

export type Runs = ReturnType<typeof createRuns>;

// The modules a run needs, loaded on the first one. After that they come in a microtask, not after the
// task a dynamic import() of a loaded module still waits for: this is on the way from Run to the request.
const executorModule = once(() => import('../executor/executor.ts'));
const bridgeModule = once(() => import('../conductor/bridge.ts'));
const chatTransportsModule = once(() => import('../egress/chat-transports.ts'));

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
  /**
   * Per unfinished run, its answers that were paid for and lost (a full disk, or the page closed while
   * they streamed): said with the offer to resume, which pays for them again.
   */
  const unfinishedLost = signal<ReadonlyMap<string, string[]>>(new Map());
  const spendConfirm = signal<SpendConfirm | undefined>(undefined);
  let settleSpend: ((ok: boolean) => void) | undefined;
  /** Runs the user declined to let past the limit mid-stream: their view says so instead of "cancelled". */
  const declined = new Map<string, string>();
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
    if (!view || view.id !== runId) return;
    const next = fn(view);
    const note = declined.get(runId);
    currentRun.value = note && next.phase === 'cancelled' ? { ...next, error: note } : next;
  }

  /** The run's listener for the view: tokens drawn at most ten times a second, other changes at once. */
  function viewUpdates(runId: string): (event: ExecutorEvent) => void {
    return frameCoalescedUpdates((apply) => update(runId, apply));
  }

  function spendLimit(): number | undefined {
    return services.spendLimitUsd?.() ?? undefined;
  }

  /** Each model's past answer lengths, read once and again after a run ends or History changes. */
  let lengths: Promise<Map<string, AnswerLength>> | undefined;
  function answerLengths(): Promise<Map<string, AnswerLength>> {
    lengths ??= services
      .runStore()
      .then(loadAnswerLengths)
      .catch((error: unknown) => {
        console.warn('Past answer lengths could not be read; the estimate assumes the default.', error);
        return new Map<string, AnswerLength>();
      });
    return lengths;
  }

  /**
   * True at once when `estimate` is within the spend limit; else shows the confirm and resolves with the
   * user's answer. A newer question, a cancel or another confirm answers an open one with no.
   */
  function approveSpend(runId: string, estimate: PlanEstimate, streaming: boolean): Promise<boolean> {
    const limitUsd = spendLimit();
    if (limitUsd === undefined || !overSpendLimit(estimate.cost, limitUsd)) return Promise.resolve(true);
    settleConfirm(false, false);
    return new Promise((resolve) => {
      settleSpend = resolve;
      spendConfirm.value = {
        runId,
        estimate,
        limitUsd,
        raisedLimitUsd: raisedLimit(estimate.cost, limitUsd),
        streaming,
      };
    });
  }

  /** The user's answer to the spend confirm. */
  function confirmSpend(ok: boolean): void {
    settleConfirm(ok, true);
  }

  /**
   * Closes the confirm with `ok`. A streaming run not let past the limit stops here, before its held steps
   * could look like the whole plan; `byUser` says so on its view (else a cancel or a newer question did).
   */
  function settleConfirm(ok: boolean, byUser: boolean): void {
    const settle = settleSpend;
    const open = spendConfirm.value;
    settleSpend = undefined;
    spendConfirm.value = undefined;
    if (open?.streaming && !ok && handle?.runId === open.runId) {
      if (byUser) declined.set(open.runId, declinedText(open.estimate, open.limitUsd));
      handle.cancel();
    }
    settle?.(ok);
  }

  /**
   * The streamed steps, held once the plan so far is estimated over the spend limit, until the user agrees
   * (the run's limit is then raised to match) or declines (the run stops, steps done kept).
   */
  async function* withinSpendLimit(
    steps: AsyncIterable<Step>,
    runId: string,
    estimateOf: (steps: readonly Step[]) => PlanEstimate,
  ): AsyncIterable<Step> {
    const sofar: Step[] = [];
    let agreed = false;
    for await (const step of steps) {
      sofar.push(step);
      if (!agreed) {
        const estimate = estimateOf(sofar);
        const limitUsd = spendLimit();
        if (limitUsd !== undefined && overSpendLimit(estimate.cost, limitUsd)) {
          if (!(await approveSpend(runId, estimate, true))) return;
          agreed = true;
          handle?.setSpendLimit(raisedLimit(estimate.cost, limitUsd));
        }
      }
      yield step;
    }
  }

  /** Runs being started (unlock, store, transports): the run view draws once they have (requestsHaveLeft). */
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

  // Egress's "no request on its way out", once a run has opened egress: drawing waits for it.
  let requestsLeft: (() => Promise<void>) | undefined;
  /** What a run's transports are made from; egress, when a run opens it, also gives the drawing its `idle`. */
  const transportServices: Pick<RunServices, 'bridge' | 'egress' | 'codeSandbox'> = {
    bridge: () => services.bridge(),
    ...(services.codeSandbox ? { codeSandbox: services.codeSandbox.bind(services) } : {}),
    egress: async () => {
      const egress = await services.egress();
      requestsLeft ??= egress.idle?.bind(egress);
      return egress;
    },
  };
  /** Settles once no run is being started and no request is on its way out: the run view may draw. */
  async function requestsHaveLeft(): Promise<void> {
    if (starting.size > 0) {
      await Promise.allSettled([...starting]);
      // What a start set off (each first step's request) reaches egress in the microtasks after it.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await requestsLeft?.();
  }
  const afterRequestsLeft = afterRequestsLeave(requestsHaveLeft);
  /**
   * The run as the page draws it: `currentRun` once the requests its change set off have left, at most
   * MAX_HOLD_MS later (src/app/run-updates.ts). Drawn at once, the run view's render and layout came
   * between Run and the first request, and between a step's end and the next request (P13). Changes that
   * come before a draw are drawn together, as the latest; a state that lasts MAX_HOLD_MS is always drawn.
   * What decides (busy, the review, actions) reads `currentRun`, which takes every change at once.
   */
  const drawnRun = signal<RunView | undefined>(currentRun.peek());
  let drawPending = false;
  effect(() => {
    currentRun.value;
    if (drawPending) return;
    drawPending = true;
    afterRequestsLeft(() => {
      drawPending = false;
      drawnRun.value = currentRun.peek();
    });
  });

  async function start(
    runId: string,
    question: string,
    mode: Mode,
    plan: Plan | AsyncIterable<Step>,
    pool: WorkerSpec[],
    spendLimitUsd: number | undefined = spendLimit(),
    /** Apply the plan checks' fixes (a plan nobody reviewed); a reviewed plan runs as the user left it. */
    fix = false,
  ): Promise<RunHandle> {
    const unlocked = await services.ensureUnlocked(pool, 'to run your question');
    if ('steps' in plan) {
      // Every step is known: a missing key or a locked vault fails here, naming the worker, before any send.
      const keyless = await keylessWorkers(pool, services);
      const check = checkPlan(plan, {
        workerLabels: labelsOf(pool),
        hasKey: (id) => !keyless.has(id),
        vaultLocked: !unlocked,
        needsVault: (id) => !onDevice(id),
      });
      if (check.blocked)
        throw new Error(describeFindings(check.findings.filter((f) => f.blocking)).join(' '));
      if (fix) {
        showChecks(runId, describeFindings(check.findings), check.plan.steps);
        plan = check.plan;
      }
    } else if (!unlocked) throw stillLocked();
    const [{ startRun }, store, transport, bridge, failover] = await Promise.all([
      executorModule(),
      services.runStore(),
      transports(pool, transportServices),
      services.bridge(),
      failoverFor(services),
    ]);
    const { maxSteps, maxDepth } = services.planPrefs();
    const chosenBy = currentRun.value?.id === runId ? currentRun.value.chosenBy : undefined;
    const run = startRun({
      ...(chosenBy ? { chosenBy } : {}),
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
      ...(failover ? { failover } : {}),
      ...(spendLimitUsd !== undefined ? { spendLimitUsd } : {}),
      onEvent: withLedgerEstimates(services.ledger, runId, viewUpdates(runId)),
    });
    track(run);
    return run;
  }

  /** Shows under the plan, one line each, what the plan checks found and what was done about it. */
  function showChecks(runId: string, lines: string[], steps?: Step[]): void {
    if (lines.length === 0) return;
    update(runId, (v) => ({ ...v, planChecks: lines, ...(steps ? { plannedSteps: steps } : {}) }));
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

  /** Workflow memory's examples for a question; a memory that cannot be read plans without them. */
  function pastWorkflows(
    question: string,
    mode: Mode,
    pool: readonly WorkerSpec[],
    maxSteps: number,
    maxDepth: number,
  ): Promise<MemoryExample[]> {
    if (!services.memoryExamples) return Promise.resolve([]);
    const allowSelf = mode === 'conductor' && maxDepth > 0 && maxSteps > 1;
    return services.memoryExamples(question, pool, { maxSteps, allowSelf }).catch((error: unknown) => {
      console.warn('Workflow memory could not be read; planning without it.', error);
      return [];
    });
  }

  /**
   * Asks the question in the mode the user picked; in auto mode, the strategy auto mode picks. A pick of one
   * worker sends the question straight to it as a one-step plan made here: the on-device planner does not
   * run (no planning tokens, and no conductor model needed).
   */
  async function ask(
    input: { question: string; mode: AskMode; review: boolean; planOnly?: boolean },
    pool: WorkerSpec[],
  ): Promise<void> {
    if (input.mode !== 'auto') return askPlanned({ ...input, mode: input.mode }, pool);
    const enabled = pool.filter((w) => w.enabled);
    const runId = crypto.randomUUID();
    let choice: { strategy: string; reason: string };
    try {
      if (!services.chooseStrategy) throw new Error('Auto mode is not available on this page.');
      const keyless = await keylessWorkers(enabled, services).catch(() => new Set<string>());
      choice = await services.chooseStrategy(input.question, enabled, keyless);
    } catch (error) {
      currentRun.value = {
        ...newRunView(runId, input.question, 'conductor'),
        phase: 'failed',
        error: `Auto mode could not choose: ${(error as Error).message}`,
        endedAt: Date.now(),
      };
      return;
    }
    const chosenBy: ChosenBy = { by: 'auto', strategy: choice.strategy, reason: choice.reason };
    const worker = choice.strategy.startsWith('single:')
      ? enabled.find((w) => w.id === choice.strategy.slice('single:'.length))
      : undefined;
    if (!worker) {
      const mode: Mode = choice.strategy === 'router' ? 'router' : 'conductor';
      return askPlanned({ ...input, mode }, pool, chosenBy);
    }
    settleConfirm(false, false);
    pendingReview.value = undefined;
    planAbort?.abort();
    const plan: Plan = { steps: [{ worker: worker.id, task: 'Answer the question.', sees: [] }] };
    const pastLengths = await answerLengths();
    const estimate = estimatePlan({
      question: input.question,
      steps: plan.steps,
      pool: enabled,
      answerLengths: pastLengths,
    });
    currentRun.value = {
      ...newRunView(runId, input.question, 'router'),
      workerOrder: enabled.map((w) => w.id),
      workerLabels: labelsOf(enabled),
      plannedSteps: plan.steps,
      estimate,
      planStats: { tokens: 0 },
      chosenBy,
    };
    if (input.review || input.planOnly) {
      await awaitReview(runId, {
        plan,
        pool: enabled,
        mode: 'router',
        planOnly: input.planOnly === true,
        lengths: pastLengths,
      });
      return;
    }
    await runUnreviewed(runId, input.question, 'router', plan, enabled, estimate).catch((error: unknown) =>
      failRun(runId, error),
    );
  }

  /**
   * Runs a whole plan nobody reviewed, with the plan checks' fixes: once the user has agreed to a plan
   * estimated over the spend limit (declining ends the run before anything is sent).
   */
  async function runUnreviewed(
    runId: string,
    question: string,
    mode: Mode,
    plan: Plan,
    pool: WorkerSpec[],
    estimate: PlanEstimate,
  ): Promise<void> {
    const limitUsd = spendLimit();
    if (!(await approveSpend(runId, estimate, false))) {
      update(runId, (v) => ({
        ...v,
        phase: 'cancelled',
        error: declinedText(estimate, limitUsd ?? 0),
        endedAt: Date.now(),
      }));
      return;
    }
    await execute(runId, question, mode, plan, pool, runSpendLimit(estimate.cost, limitUsd), true);
  }

  /**
   * Asks the question: the conductor plans on the device, streaming tokens and steps. Without review each
   * step goes to the executor the moment it is complete (step 0 can run before step 2 is written; see
   * PlanFeed); with review the whole plan waits for the user. Resolves once the plan is written (the run
   * itself goes on; `whenIdle` waits for it).
   */
  async function askPlanned(
    input: { question: string; mode: Mode; review: boolean; planOnly?: boolean },
    pool: WorkerSpec[],
    chosenBy?: ChosenBy,
  ): Promise<void> {
    const enabled = pool.filter((w) => w.enabled);
    // Plan only plans into review: the plan stops there, and nothing is sent until the user runs it.
    const review = input.review || input.planOnly === true;
    settleConfirm(false, false);
    let runId = crypto.randomUUID();
    currentRun.value = {
      ...newRunView(runId, input.question, input.mode),
      workerOrder: enabled.map((w) => w.id),
      workerLabels: labelsOf(enabled),
      ...(chosenBy ? { chosenBy } : {}),
    };
    pendingReview.value = undefined;
    planAbort?.abort();
    const abort = new AbortController();
    planAbort = abort;
    const prefs = services.planPrefs();
    const { maxSteps } = planLimits(input.mode, prefs);
    let feed: PlanFeed | undefined;
    /** The run the streamed steps started, if they did: a failed plan's record is written after it ends. */
    let streamed: Promise<RunHandle> | undefined;
    try {
      const [bridge, pastLengths, examples] = await Promise.all([
        services.bridge(),
        answerLengths(),
        pastWorkflows(input.question, input.mode, enabled, maxSteps, prefs.maxDepth),
      ]);
      if (examples.length > 0)
        update(runId, (v) => ({
          ...v,
          drewOn: examples.map((e) => ({ runId: e.runId, question: e.question })),
        }));
      const estimateOf = (steps: readonly Step[]) =>
        estimatePlan({ question: input.question, steps, pool: enabled, answerLengths: pastLengths });
      const withEstimate = (view: RunView): RunView =>
        view.plannedSteps.length > 0 ? { ...view, estimate: estimateOf(view.plannedSteps) } : view;
      const runWhole = (id: string, plan: Plan): Promise<void> =>
        runUnreviewed(id, input.question, input.mode, plan, enabled, estimateOf(plan.steps));

      // Steps stream to the executor as they are written, unless a worker of the pool has no key: then the
      // whole plan is awaited and checked, so a step for that worker fails the run before anything is sent.
      const hold =
        !review && (await keylessWorkers(enabled, services).catch(() => new Set<string>())).size > 0;
      feed = review || hold ? undefined : new PlanFeed();
      if (feed) {
        const steps = withinSpendLimit(feed.steps, runId, estimateOf);
        streamed = execute(runId, input.question, input.mode, steps, enabled);
        streamed.catch((error: unknown) => {
          abort.abort();
          failRun(runId, error);
        });
      }
      /** The steps that stood when the thread last restarted: a fallback's own step comes after them. */
      let keptAtFallback = 0;
      const onStep = (event: StepEvent) => {
        feed?.onEvent(event);
        if (event.kind === 'restart') {
          keptAtFallback = event.kept ?? 0;
          update(runId, (v) =>
            withEstimate({
              ...v,
              // The steps the conductor keeps stay on screen; the new attempt's follow them.
              plannedSteps: v.plannedSteps.slice(0, event.kept ?? 0),
              planText: `${v.planText}\n\n[${event.reason}: trying again]\n\n`,
            }),
          );
          return;
        }
        update(runId, (v) => {
          const plannedSteps = v.plannedSteps.slice();
          plannedSteps[event.index] = event.step;
          return withEstimate({ ...v, plannedSteps });
        });
      };
      const response = await bridge.plan(
        {
          question: input.question,
          pool: poolEntries(enabled),
          mode: input.mode,
          maxSteps,
          maxDepth: prefs.maxDepth,
          signal: abort.signal,
          ...(examples.length > 0
            ? { examples: examples.map(({ question, plan }) => ({ question, plan })) }
            : {}),
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
        estimate: estimateOf(plan.steps),
        planStats: {
          ms: response.stats.ms,
          tokens: response.stats.completionTokens,
          ...(response.stats.decodeTokensPerSec !== undefined
            ? { tokensPerSec: response.stats.decodeTokensPerSec }
            : {}),
        },
      };
      const note = planNote(response, keptAtFallback, labelsOf(enabled));
      if (note) extras.planNote = note;
      update(runId, (v) => ({ ...v, ...extras }));
      if (hold) {
        await runWhole(runId, plan).catch((error: unknown) => failRun(runId, error));
      } else if (feed) {
        const outcome = feed.finish(plan);
        if (outcome.kind === 'streamed') {
          // Streamed steps started as they were written: what the checks find is shown, not undone.
          const { findings } = checkPlan(plan, { workerLabels: labelsOf(enabled) });
          showChecks(
            runId,
            findings.map(
              (f) => `${f.message} It ran as planned: steps start while the plan is being written.`,
            ),
          );
        }
        if (outcome.kind === 'restart') {
          // What streamed is not the plan's beginning: drop that run, start one from the final plan.
          console.warn(`Restarting the run from the final plan: ${outcome.reason}`);
          handle?.abandon();
          const store = await services.runStore();
          await store.deleteRun(runId);
          const oldId = runId;
          runId = crypto.randomUUID();
          update(oldId, (v) => ({ ...v, id: runId, steps: [], phase: 'running' }));
          await runWhole(runId, plan);
        }
      } else {
        await awaitReview(runId, {
          plan,
          pool: enabled,
          mode: input.mode,
          planOnly: input.planOnly === true,
          lengths: pastLengths,
        });
      }
    } catch (error) {
      feed?.cancel();
      const e = error as { name?: string };
      if (e.name === 'PlanCancelled' || abort.signal.aborted) {
        handle?.cancel();
        update(runId, (v) => ({
          ...v,
          phase: 'cancelled',
          error: 'Cancelled while planning.',
          endedAt: Date.now(),
        }));
      } else {
        const retry = {
          mode: chosenBy ? ('auto' as const) : input.mode,
          review: input.review,
          ...(input.planOnly ? { planOnly: true } : {}),
        };
        await planningFailed(runId, enabled, planningFailure(error), retry, streamed);
      }
    } finally {
      if (planAbort === abort) planAbort = undefined;
    }
  }

  /**
   * The conductor could not plan: the run says what failed (the engine's words behind Details), offers to
   * ask again, and is stored, so History keeps it. Steps that streamed before the failure ran as a run of
   * their own: it is stopped, and its record, once written, says the planning failed.
   */
  async function planningFailed(
    runId: string,
    pool: readonly WorkerSpec[],
    failure: PlanningFailure,
    retry: NonNullable<RunView['retry']>,
    streamed: Promise<RunHandle> | undefined,
  ): Promise<void> {
    const show = () =>
      update(runId, (v) => ({
        ...v,
        phase: 'failed',
        error: failure.text,
        errorDetails: failure.details,
        retry,
        endedAt: v.endedAt ?? Date.now(),
      }));
    show();
    const run = await streamed?.catch(() => undefined);
    if (run) {
      run.cancel();
      await run.result.catch(() => undefined);
      show(); // over the stopped run's own end
    }
    const view = currentRun.value;
    await storeRecord(async (store) => {
      const existing = run ? (await store.getRun(runId).catch(() => undefined))?.run : undefined;
      const base = view?.id === runId ? view : newRunView(runId, '', 'conductor');
      return planningFailedRecord(base, pool, failure, existing);
    });
  }

  /**
   * Puts a plan in review (the plan editor) and stores it as a planned run: History keeps it, and opening
   * it there brings it back to review, to be run or discarded.
   */
  async function awaitReview(runId: string, input: ReviewInput): Promise<void> {
    update(runId, (v) => enterReview(v));
    const view = await showReview(runId, input);
    if (view) await storeRecord(() => plannedRecord(view, input.plan, input.pool, input.planOnly));
  }

  /** Gives the run on screen its plan editor; the view it is for, unless the user moved on meanwhile. */
  async function showReview(runId: string, input: ReviewInput): Promise<RunView | undefined> {
    const [keyless, pastLengths] = await Promise.all([
      keylessWorkers(input.pool, services).catch(() => undefined),
      input.lengths ?? answerLengths(),
    ]);
    const view = currentRun.value;
    if (view?.id !== runId) return undefined;
    pendingReview.value = {
      plan: input.plan,
      pool: input.pool,
      limits: planLimits(input.mode, services.planPrefs()),
      planOnly: input.planOnly,
      answerLengths: pastLengths,
      ...(keyless ? { keyless } : {}),
    };
    return view;
  }

  /**
   * Writes a record the executor does not (a planned run, a failed planning), then reads History again. A
   * store that refuses the write (a full disk) loses the record, never the run on screen.
   */
  async function storeRecord(
    make: (store: RunHistoryStore) => RunRecord | undefined | Promise<RunRecord | undefined>,
  ): Promise<void> {
    try {
      const store = await services.runStore();
      const record = await make(store);
      if (!record) return;
      await store.putRun(record);
    } catch (error) {
      console.warn('The run could not be stored; it stays on this page.', error);
      return;
    }
    await refreshHistory();
  }

  /** Resolves once no run is starting or running here, and the last one's record is written. */
  async function whenIdle(): Promise<void> {
    while (starting.size > 0 || handle) {
      await Promise.allSettled([...starting]);
      await handle?.result.catch(() => undefined);
    }
  }

  /**
   * Runs the reviewed (maybe edited) plan. A plan estimated over the spend limit waits for the user's OK
   * first (`spendConfirm`); declined, it stays in review as it was.
   */
  async function runReviewed(plan: Plan): Promise<void> {
    const view = currentRun.value;
    const review = pendingReview.value;
    if (!view || !review) return;
    const estimate = estimatePlan({
      question: view.question,
      steps: plan.steps,
      pool: review.pool,
      ...(review.answerLengths ? { answerLengths: review.answerLengths } : {}),
    });
    if (!(await approveSpend(view.id, estimate, false))) return;
    // The review may have been left while the confirm was open (a new question, a discard).
    if (pendingReview.value !== review || currentRun.value?.id !== view.id) return;
    const limitUsd = spendLimit();
    pendingReview.value = undefined;
    const { planNote: note, ...rest } = leaveReview(view);
    currentRun.value = {
      ...rest,
      // The note is about the plan the conductor wrote: once the user changed it, it no longer applies.
      ...(note && samePlan(plan, review.plan) ? { planNote: note } : {}),
      phase: 'running',
      plannedSteps: plan.steps,
      thought: plan.thought,
      estimate,
    };
    const runLimit = runSpendLimit(estimate.cost, limitUsd);
    await execute(view.id, view.question, view.mode, plan, review.pool, runLimit).catch((error: unknown) =>
      failRun(view.id, error),
    );
  }

  function discardReview(): void {
    settleConfirm(false, false);
    const view = currentRun.value;
    pendingReview.value = undefined;
    if (!view) return;
    currentRun.value = {
      ...leaveReview(view),
      phase: 'cancelled',
      error: 'Plan discarded.',
      endedAt: Date.now(),
    };
    // History keeps the plan, as discarded.
    void storeRecord(async (store) => {
      const stored = await store.getRun(view.id).catch(() => undefined);
      if (stored?.run.status !== 'planned') return undefined;
      return { ...stored.run, status: 'cancelled', error: 'Plan discarded.', updatedAt: Date.now() };
    });
  }

  function cancelRun(): void {
    settleConfirm(false, false);
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
      const view = viewFromRecord(stored.run, stored.steps);
      if (stored.run.status !== 'planned') {
        const stopped =
          stored.run.status === 'running' && handle?.runId !== id && !(await runningElsewhere([id])).has(id);
        currentRun.value = stopped ? await interrupted(view, stored.steps) : view;
        return undefined;
      }
      // A plan not run yet goes back to review. It has waited for review since it was stored: not the run's time.
      const now = Date.now();
      currentRun.value = { ...view, reviewSince: now, reviewMs: Math.max(0, now - stored.run.updatedAt) };
      const { run } = stored;
      await showReview(id, {
        plan: run.plan,
        pool: run.pool,
        mode: view.mode,
        planOnly: run.planOnly === true,
      });
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
    const [{ resumeRun }, store, bridge, ledger, failover] = await Promise.all([
      executorModule(),
      services.runStore(),
      services.bridge(),
      services.ledger(),
      failoverFor(services),
    ]);
    const stored = await store.getRun(id);
    if (!stored) throw new Error('it is no longer in your history.');
    currentRun.value = {
      ...viewFromRecord(stored.run, stored.steps),
      phase: 'running',
      endedAt: undefined,
      resumedAt: Date.now(),
    };
    const run = await resumeRun({
      maxDepth: services.planPrefs().maxDepth,
      store,
      runId: id,
      // Steps whose paid answer was lost are told apart by what the ledger saw leave.
      ledger,
      transport: await transports(stored.run.pool, transportServices),
      conductor: replannerFor(bridge, replanContext(stored.run.pool)),
      ...(failover ? { failover } : {}),
      ...(spendLimit() !== undefined ? { spendLimitUsd: spendLimit() } : {}),
      onEvent: withLedgerEstimates(services.ledger, id, viewUpdates(id)),
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
    unfinishedLost.value = await lostPerRun(open);
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

  /**
   * A stored run no page runs any more, as it is: interrupted, not running (no Cancel), saying why, how to
   * go on, and which paid answers were lost.
   */
  async function interrupted(view: RunView, steps: readonly StepRecord[]): Promise<RunView> {
    const lost = (await lostPerRun([{ id: view.id }], new Map([[view.id, steps]]))).get(view.id) ?? [];
    const error = [
      'This run stopped before it finished: the page was closed or reloaded while it ran. Resume it from ' +
        'Ask, where unfinished runs are offered, or discard it there.',
      ...lost,
    ].join(' ');
    return { ...view, phase: 'interrupted', error };
  }

  /** What each of `runs` lost that resuming pays for again, from its stored steps and the ledger. */
  async function lostPerRun(
    runs: readonly Pick<RunRecord, 'id'>[],
    known = new Map<string, readonly StepRecord[]>(),
  ): Promise<Map<string, string[]>> {
    const lost = new Map<string, string[]>();
    if (runs.length === 0) return lost;
    const [{ lostAnswers, lostAnswerNotice, sentPerStep }, store, ledger] = await Promise.all([
      import('../executor/resume.ts'),
      services.runStore(),
      services.ledger(),
    ]);
    for (const run of runs) {
      const steps = known.get(run.id) ?? (await store.getRun(run.id).catch(() => undefined))?.steps;
      if (!steps) continue;
      const notes = lostAnswers(steps, await sentPerStep(ledger, run.id)).map(lostAnswerNotice);
      if (notes.length > 0) lost.set(run.id, notes);
    }
    return lost;
  }

  /** After a run ends, an import or a delete: the unfinished runs, and History's list if it is shown. */
  async function refreshHistory(): Promise<void> {
    lengths = undefined;
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
    drawnRun,
    pendingReview,
    spendConfirm,
    confirmSpend,
    resumeProblem,
    unfinished,
    unfinishedElsewhere,
    unfinishedLost,
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
