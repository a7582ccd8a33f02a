import type { PlanEstimate } from '../../executor/estimate.ts';
import type { MemoryExample } from '../../learning/memory.ts';
import type { ChosenBy } from '../../records/runs-db.ts';
import type { ConductorEvent, OfferedTool, PlanRequest, PlanResponse } from '../../shared/conductor-api.ts';
import { type PlanMode, planLimitsFor, type Step } from '../../shared/plan/index.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { poolEntries } from '../pool-entries.ts';
import { planRequestFiles } from '../run-files.ts';
import { conversationOf } from '../turn-context.ts';
import { planNote } from './plan-notes.ts';
import { beginPlanning, type Planning } from './planning-state.ts';
import type { Review } from './review.ts';
import type { RunCore } from './run-core.ts';
import { estimateRun } from './run-estimate.ts';
import { type AskInput, applyPlanEvent, type RunView } from './run-model.ts';
import type { RunServices } from './run-services.ts';
import type { SpendConfirmation } from './spend-confirm.ts';
import type { RunStarts } from './starting.ts';
import { createStoppedPlanning } from './stopped-planning.ts';
import { createStreamedSteps } from './streamed-steps.ts';

/**
 * Asking with a plan: the conductor plans on the device, streaming tokens and steps. Without review each
 * step goes to the executor the moment it is complete (step 0 can run before step 2 is written; see
 * PlanFeed); with review the whole plan waits for the user.
 */
export function createPlanning(core: RunCore, spend: SpendConfirmation, starts: RunStarts, review: Review) {
  const { services } = core;
  const { runWhole, streamSteps, finishStream } = createStreamedSteps(core, spend, starts);
  const { planningStopped } = createStoppedPlanning(core);

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

  /** The tools offered to the conductor; tools that cannot be read are not offered (and planning goes on). */
  function offeredTools(tools: RunServices['tools']): Promise<OfferedTool[]> {
    return (tools?.offered() ?? Promise.resolve([])).catch((error: unknown) => {
      console.warn('The tools could not be read; planning without them.', error);
      return [];
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

  /** Resolves once the plan is written (the run itself goes on; `whenIdle` waits for it). */
  async function askPlanned(
    input: AskInput<PlanMode>,
    pool: WorkerSpec[],
    chosenBy?: ChosenBy,
  ): Promise<void> {
    const p = beginPlanning(core, spend, input, pool, chosenBy);
    try {
      const prefs = services.planPrefs();
      const { maxSteps } = planLimitsFor(input.mode, prefs);
      const [bridge, pastLengths, examples, tools] = await Promise.all([
        services.bridge(),
        core.answerLengths(),
        pastWorkflows(p, maxSteps, prefs.maxDepth),
        offeredTools(services.tools),
      ]);
      if (examples.length > 0) {
        const drewOn = examples.map((e) => ({ runId: e.runId, question: e.question }));
        core.update(p.runId, (v) => ({ ...v, drewOn }));
      }
      const estimateOf = (steps: readonly Step[]) =>
        estimateRun({
          question: input.question,
          steps,
          pool: p.enabled,
          answerLengths: pastLengths,
          turn: input.thread,
          files: input.attachments,
        });
      p.estimateOf = estimateOf;
      await streamSteps(p, estimateOf);
      const request: PlanRequest = {
        question: input.question,
        pool: poolEntries(p.enabled, tools.length > 0),
        mode: input.mode,
        maxSteps,
        maxDepth: prefs.maxDepth,
        signal: p.abort.signal,
        ...(examples.length > 0
          ? { examples: examples.map(({ question, plan }) => ({ question, plan })) }
          : {}),
        ...conversationOf(input.thread),
        ...planRequestFiles(input.attachments ?? [], services.wholeFileTokens?.()),
        ...(tools.length > 0 ? { tools } : {}),
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
