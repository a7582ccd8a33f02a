import type { ToolUse } from '../providers/tool-use.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { StepStatus } from '../records/run-types.ts';
import type { Step } from '../shared/plan/index.ts';
import { estimateTokens } from '../shared/token-estimate.ts';
import { labelOf, SELF_WORKER } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { CANCEL_REASON, StopSignal } from './abort.ts';
import { answerStep } from './attempt.ts';
import { assembleMessages } from './context.ts';
import { continuationMessages, continuedFrom } from './continuation.ts';
import { DEFAULT_FIRST_TOKEN_TIMEOUT_MS, DEFAULT_STEP_TIMEOUT_MS } from './run-options.ts';
import type { RunState } from './run-state.ts';
import { runSelf } from './self-step.ts';
import { instructionsSpend } from './spend.ts';
import { unpricedNotice } from './spend-limit.ts';
import { checkStepFiles, chooseStepFiles, sentFilesOf, withStepFiles } from './step-files.ts';
import { finalStepIndex } from './step-status.ts';
import { Takeovers } from './takeovers.ts';
import { type FittedHistory, fitHistory } from './turn-history.ts';
import { rankTurns, type TurnRanking } from './turn-relevance.ts';

/**
 * Runs one step the scheduler started: a `self` step asks the conductor (self-step.ts); a worker step is
 * sent to its worker within its endpoint's request slots, with the context it reads, and taken over by
 * another worker when its own stays unavailable. However it ends, the step's end is said and the run
 * scheduled again.
 */
export class StepDispatch {
  private readonly takeovers: Takeovers;
  /** Each worker's share of the thread's earlier turns: the same for every step it answers in this run. */
  private readonly histories = new Map<string, FittedHistory>();
  /** The earlier turns in the order they are offered to each worker's budget (turn-relevance.ts). */
  private ranking: Promise<TurnRanking | undefined> | undefined;

  constructor(private readonly run: RunState) {
    this.takeovers = new Takeovers(run);
  }

  async runStep(index: number): Promise<void> {
    const run = this.run;
    const controller = new AbortController();
    run.stepControllers.set(index, controller);
    // The run's one abort listener (RunState's) stops every step begun; one begun after it fired stops here.
    if (run.runController.signal.aborted) controller.abort(run.runController.signal.reason);
    try {
      const step = run.steps[index] as Step;
      if (step.worker === SELF_WORKER) await runSelf(run, index, controller.signal);
      else await this.askWorker(index, controller.signal);
    } catch (error) {
      const cause = error instanceof StopSignal ? error.why : undefined;
      if (cause === 'abandon') return;
      if (
        cause === 'cancel-step' ||
        cause === 'cancel-run' ||
        cause === 'plan-error' ||
        cause === 'spend-limit'
      ) {
        run.endStep(index, 'cancelled', CANCEL_REASON[cause]);
      } else if (cause === 'step-timeout') {
        const seconds = (run.options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS) / 1000;
        run.endStep(index, 'failed', `The step took longer than its ${seconds} s limit.`);
      } else run.endStep(index, 'failed', error instanceof Error ? error.message : String(error));
    } finally {
      run.stepControllers.delete(index);
      // The steps that read this one start now; their requests wait for its write (inputsStored), the
      // run's result for every write.
      run.schedule();
    }
  }

  private async askWorker(index: number, signal: AbortSignal): Promise<void> {
    const status = this.run.statuses[index] as StepStatus;
    // The step's worker now: the plan's, or (on resume) the one that had taken it over.
    let worker = this.run.workers.get(status.worker);
    if (!worker) throw new Error(`Worker "${status.worker}" is not in the pool.`);
    // A worker that already stayed unavailable in this run is not asked again while another can answer.
    const earlier = this.takeovers.failedWorkers.get(worker.id);
    if (earlier && this.run.options.failover && !status.pin) {
      const choice = await this.takeovers.substituteFor(worker, earlier.cause, index);
      if (signal.aborted) throw signal.reason;
      // Read after the worker's name on the card: "Claude failed (earlier in this run: …) → GPT took over".
      if ('worker' in choice)
        worker = this.takeovers.handOver(
          status,
          worker,
          choice.worker,
          `earlier in this run: ${earlier.reason}`,
        );
    }
    for (;;) {
      try {
        await this.answerOn(index, worker, signal);
        return;
      } catch (error) {
        worker = await this.takeovers.takeOver(status, worker, error, signal);
      }
    }
  }

  /**
   * Sends the step to `worker` (within its endpoint's request slots) until it answers, then ends it done
   * while it still holds its slot (so no step counts as running beside the next one), or gives up.
   */
  private async answerOn(index: number, worker: WorkerSpec, signal: AbortSignal): Promise<void> {
    const run = this.run;
    const options = run.options;
    const status = run.statuses[index] as StepStatus;
    const { endpoint, semaphore } = run.limits.for(worker);
    // The limit counts only what it can price: said on the step, not passed over in silence.
    if (run.spendLimit !== undefined && !worker.price && !status.notice) {
      status.notice = unpricedNotice(labelOf(worker), run.spendLimit);
      run.emitStep(status, { type: 'step-notice', notice: status.notice });
    }
    if (semaphore.full) run.setWait(status, { kind: 'slot', endpoint, limit: semaphore.limit });
    await semaphore.acquire(signal);
    try {
      const history = await this.historyFor(worker);
      if (history.history) status.history = history.history;
      else delete status.history;
      // Said on the step card: large instructions are paid for in every step.
      const instructions = options.instructions?.trim();
      if (instructions) status.instructions = instructionsSpend(worker, instructions);
      else delete status.instructions;
      const step = run.steps[index] as Step;
      const attachments = options.attachments ?? [];
      // Refused before the request: the worker (a substitute, or one changed since planning) takes no images.
      checkStepFiles(step, index, worker, attachments);
      const files = await chooseStepFiles(step, index, attachments, {
        ...(options.passages ? { library: options.passages } : {}),
        ...(options.wholeFileTokens !== undefined ? { wholeFileTokens: options.wholeFileTokens } : {}),
        question: options.question,
      });
      // Said on the step card: each file whole, or which passages of it.
      if (files.length > 0) status.sent = sentFilesOf(files);
      else delete status.sent;
      const messages = withStepFiles(
        assembleMessages({
          question: options.question,
          includeQuestion: options.includeQuestion ?? true,
          systemPrompt: worker.systemPrompt,
          ...(options.instructions ? { instructions: options.instructions } : {}),
          steps: run.steps,
          answers: run.statuses.map((s) => (s.state === 'done' ? s.text : undefined)),
          index,
          history: history.messages,
        }),
        files,
      );
      // Continuing a cut answer (continuation.ts): the same messages, the answer so far, a request for the rest.
      const prefix = continuedFrom(status);
      await answerStep(run, {
        ...(prefix !== undefined ? { prefix } : {}),
        status,
        worker,
        transport: this.transportFor(worker),
        messages: continuationMessages(messages, prefix),
        signal,
        firstTokenTimeoutMs: options.firstTokenTimeoutMs ?? DEFAULT_FIRST_TOKEN_TIMEOUT_MS,
        stepTimeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
        ready: run.inputsStored(index),
        ...(options.maxAnswerChars !== undefined ? { maxAnswerChars: options.maxAnswerChars } : {}),
        // Known only once the plan is complete: a streamed plan may still add the step that reads this one.
        ...(run.planComplete && index === finalStepIndex(run.statuses) ? { final: true } : {}),
        ...toolsOf(options.toolsFor?.(step, index, worker, run.runId)),
        takenOverOnStall: async (error) =>
          Boolean(options.failover) &&
          !status.pin &&
          'worker' in (await this.takeovers.substituteFor(worker, error, index)),
      });
      run.endStep(index, 'done');
    } finally {
      semaphore.release();
    }
  }

  private async historyFor(worker: WorkerSpec): Promise<FittedHistory> {
    const history = this.run.options.history;
    if (!history || history.turns.length === 0) return { messages: [] };
    const known = this.histories.get(worker.id);
    if (known) return known;
    // Ranked once for the run (the question is the run's); a search that fails leaves newest first.
    // The history may come ranked for this question already (the estimate ranked it: turn-context.ts).
    this.ranking ??= history.ranking
      ? Promise.resolve(history.ranking)
      : rankTurns(history.turns, this.run.options.question).catch(() => undefined);
    const ranking = await this.ranking;
    const fitted =
      this.histories.get(worker.id) ??
      fitHistory(history.turns, history.budgetFor(worker), estimateTokens, ranking);
    this.histories.set(worker.id, fitted);
    return fitted;
  }

  private transportFor(worker: WorkerSpec): ChatTransport {
    const t = this.run.options.transport;
    return typeof t === 'function' ? t(worker) : t;
  }
}

/** A step's granted tools as its attempt takes them (nothing when it has none). */
function toolsOf(tools: ToolUse | undefined): { tools?: ToolUse } {
  return tools ? { tools } : {};
}
