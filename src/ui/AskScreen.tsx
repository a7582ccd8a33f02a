import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatTime } from '../app/format.ts';
import { estimateText, formatLimit, stepPriceText } from '../app/price-text.ts';
import { estimateRun } from '../app/runs/run-estimate.ts';
import { type AskInput, holdsThePage, isActive, type RunView } from '../app/runs/run-model.ts';
import type { PendingReview } from '../app/runs/run-services.ts';
import type { ThreadState } from '../app/threads/thread-core.ts';
import type { TurnContext } from '../app/turn-context.ts';
import type { Attachment } from '../attachments/types.ts';
import { overSpendLimit } from '../executor/spend-limit.ts';
import { singleWorkerOf } from '../learning/outcome.ts';
import { formatCost } from '../shared/format-cost.ts';
import type { Step } from '../shared/plan/index.ts';
import { answersAlone, labelsOf } from '../shared/worker-ids.ts';
import { AttachmentChips } from './AttachmentChips.tsx';
import { useAppState } from './app-context.ts';
import { Composer } from './Composer.tsx';
import { directOptions } from './DirectPicker.tsx';
import { FilesConfirm } from './FilesConfirm.tsx';
import { JumpToLatest, useFollowLatest } from './FollowLatest.tsx';
import { PlanEditor } from './lazy.tsx';
import type { PlanPrice } from './PlanEditor.tsx';
import { RunPanel } from './RunPanel.tsx';
import { SpendConfirm } from './SpendConfirm.tsx';
import { ThreadsBeside } from './ThreadsBeside.tsx';
import { LaterTurns, ThreadFooter, ThreadTurns, useShownThread } from './ThreadView.tsx';
import { ToolConfirm } from './ToolConfirm.tsx';

/** The price column of the review: each step's estimate and the total, against the spend limit. */
function reviewPrice(
  review: PendingReview,
  question: string,
  limitUsd: number | null,
  turn: TurnContext | undefined,
  files: readonly Attachment[],
): (steps: readonly Step[]) => PlanPrice {
  const labels = labelsOf(review.pool);
  return (steps) => {
    const estimate = estimateRun({
      question,
      steps,
      pool: review.pool,
      ...(review.answerLengths ? { answerLengths: review.answerLengths } : {}),
      turn,
      files,
    });
    const price: PlanPrice = {
      steps: estimate.steps.map(stepPriceText),
      total: estimateText(estimate, labels),
    };
    if (limitUsd !== null && overSpendLimit(estimate.cost, limitUsd)) {
      price.over = `${formatCost(estimate.cost)} is over your ${formatLimit(limitUsd)} spend limit per run: running it asks you first.`;
    }
    return price;
  };
}

/** After a reload: a run that was still going is offered for resume or discard. */
function UnfinishedBanner() {
  const { unfinished, unfinishedElsewhere, unfinishedLost, resumeProblem, resume, discardUnfinished } =
    useAppState().runs;
  const runs = unfinished.value;
  const elsewhere = unfinishedElsewhere.value;
  const lost = unfinishedLost.value;
  const problem = resumeProblem.value;
  if (runs.length === 0 && !problem) return null;
  return (
    <section class="alert" data-kind="info" aria-label="Unfinished runs" data-testid="unfinished-banner">
      {problem && (
        <p role="alert" data-testid="resume-problem">
          {problem.text}
        </p>
      )}
      {runs.map((run) => (
        <div class="row" key={run.id}>
          <span>
            Unfinished run from {formatTime(run.createdAt)}: <strong>{run.question.slice(0, 80)}</strong>
            {lost.get(run.id)?.map((note) => (
              <span class="small" key={note} data-testid="lost-answer">
                <br />
                {note}
              </span>
            ))}
          </span>
          <span class="spacer" />
          {elsewhere.has(run.id) ? (
            <span class="badge" data-status="running" data-testid="running-elsewhere">
              running in another tab
            </span>
          ) : (
            <>
              <button
                type="button"
                class="small primary"
                onClick={() => void resume(run.id)}
                data-testid="resume-run"
              >
                Resume
              </button>
              <button
                type="button"
                class="small"
                onClick={() => void discardUnfinished(run.id)}
                data-testid="discard-run"
              >
                Discard
              </button>
            </>
          )}
        </div>
      ))}
    </section>
  );
}

/**
 * A new turn on screen under turns before it (a follow-up, an edit, another branch, a turn opened from
 * History in its place) is scrolled to, once its thread is drawn around it: once per run, so the page
 * stays where the user puts it after that. A thread's first turn stays under the Ask box, where it was asked.
 */
function useTurnInView(
  screen: RefObject<HTMLElement | null>,
  view: RunView | undefined,
  thread: ThreadState | undefined,
): void {
  const scrolled = useRef<string | undefined>(undefined);
  // Drawn around it: the turn before it is the last of the earlier turns on screen (not those of the run
  // that was on screen before it, nor none yet while they are read).
  const parent = view?.thread?.link.parentRunId;
  const drawnAround = parent !== undefined && thread?.earlier.at(-1)?.id === parent;
  useEffect(() => {
    // An interrupted run is shown under the banner that offers its resume: the banner stays in view.
    if (!view || !drawnAround || view.phase === 'interrupted' || scrolled.current === view.id) return;
    scrolled.current = view.id;
    screen.current?.querySelector('[data-testid="run"]')?.scrollIntoView({ block: 'start' });
  }, [view?.id, view?.phase, drawnAround, screen]);
}

/**
 * After a reload, the newest unfinished turn of a thread is shown, interrupted, under the banner that offers
 * its resume: the thread it belongs to with it, as it was when the page closed.
 */
function useUnfinishedThread(onAsk: boolean): void {
  const { unfinished, unfinishedElsewhere, currentRun, openRun } = useAppState().runs;
  const runs = unfinished.value;
  useEffect(() => {
    if (!onAsk || currentRun.value) return;
    const turn = runs.find((r) => (r.turn ?? 0) > 0 && !unfinishedElsewhere.value.has(r.id));
    if (turn) void openRun(turn.id);
  }, [onAsk, runs]);
}

export function AskScreen({ runId }: { runId?: string }) {
  const [missing, setMissing] = useState<string | undefined>();
  const {
    currentRun,
    drawnRun,
    streams,
    pendingReview,
    ask,
    openRun,
    runReviewed,
    discardReview,
    cancelRun,
    cancelStep,
    rerunStep,
    exportCurrent,
    spendConfirm,
    confirmSpend,
  } = useAppState().runs;
  const app = useAppState();
  const { router } = app;
  const { askPrefs, spendPrefs } = app.prefs;
  const { runPool, workerOrder } = app.pool;
  const conductor = app.conductor.state;
  const { outcomes } = app;
  // The marks are read once, for the buttons by the answer; a store that cannot open leaves them unmarked.
  useEffect(() => {
    outcomes.load().catch((error: unknown) => console.warn('The outcome marks could not be read.', error));
  }, [outcomes]);
  useEffect(() => {
    if (!runId) return;
    void openRun(runId).then(setMissing);
  }, [runId, openRun]);
  const view = currentRun.value;
  const review = pendingReview.value;
  const ready = conductor.value.status === 'ready';
  const workers = runPool.value;
  const busy = view !== undefined && holdsThePage(view);
  const plannerMissing = ready ? undefined : 'Load a conductor model first (Start), or ask in Auto mode.';
  // The code sandbox, on by default, only runs other steps' code: a pool of it alone answers nothing.
  const disabledReason = !workers.some((w) => answersAlone(w.id))
    ? 'Add a worker to your pool first, or offer the on-device model as one (Settings).'
    : busy
      ? 'A run is in progress.'
      : undefined;
  const shown = runId ? (view?.id === runId ? view : undefined) : view;
  // The run view draws the run a task behind, once the requests a change set off have left (drawnRun).
  const drawn = shown && drawnRun.value?.id === shown.id ? drawnRun.value : undefined;
  const mark = shown ? outcomes.outcomeOf(shown.id) : undefined;
  const limitUsd = spendPrefs.value.runLimitUsd;
  const question = shown?.question ?? '';
  // One function per review (and limit), so the editor recomputes the price only when its steps change.
  const price = useMemo(
    () =>
      review
        ? reviewPrice(review, question, limitUsd, shown?.thread, shown ? app.runs.filesOf(shown.id) : [])
        : undefined,
    [review, question, limitUsd, shown?.thread],
  );
  const confirm = spendConfirm.value;
  const filesAsk = app.runs.filesConfirm.value;
  const toolAsk = app.tools.pending.value[0];
  const thread = useShownThread(shown, runId !== undefined);
  const screen = useRef<HTMLDivElement>(null);
  useTurnInView(screen, drawn, thread);
  const follow = useFollowLatest(screen, drawn !== undefined && isActive(drawn.phase));
  useUnfinishedThread(runId === undefined);

  return (
    <div class="conversation-layout">
      <h1 class="visually-hidden">{runId ? 'Run' : 'Ask'}</h1>
      <ThreadsBeside />
      <div class="conversation" data-testid="ask-screen" ref={screen}>
        {!runId && <UnfinishedBanner />}
        {!runId && (
          <Composer
            // Ask opens a new thread; the follow-up box under its answer adds turns (ThreadView).
            onAsk={(input) =>
              void app.threads.startThread({ ...input, attachments: app.attachments.take() }, runPool.value)
            }
            attachments={<AttachmentChips state={app.attachments} />}
            onFiles={(files) => void app.attachments.add(files)}
            filesBusy={app.attachments.busy.value}
            recall={view?.question}
            // A question the conductor could not plan comes back to the box, to ask again or change.
            {...(view?.retry ? { restore: { text: view.question, key: view.id } } : {})}
            disabled={disabledReason !== undefined}
            disabledReason={disabledReason}
            {...(plannerMissing ? { plannerMissing } : {})}
            initialReview={askPrefs.value.reviewPlan}
            onReviewChange={(reviewPlan) => {
              askPrefs.value = { ...askPrefs.value, reviewPlan };
            }}
            directWorkers={directOptions(workers)}
            initialDirect={askPrefs.value.direct}
            onDirectChange={(direct) => {
              askPrefs.value = { ...askPrefs.value, direct };
            }}
          />
        )}
        {runId && missing && (
          <p class="alert" data-kind="error">
            {missing}
          </p>
        )}
        {review?.planOnly && shown?.phase === 'review' && (
          <p class="alert" data-kind="info" data-testid="plan-only-note">
            Planned on this device: nothing was sent anywhere. Running it asks for your keys only then.
          </p>
        )}
        {review && shown?.phase === 'review' && (
          <PlanEditor
            price={price}
            plan={review.plan}
            workers={review.pool.map((w) => ({ id: w.id, label: w.label, vision: w.vision === true }))}
            {...(shown.attachments ? { attachments: shown.attachments } : {})}
            previewFiles={(step, index) => app.runs.previewFiles(shown.id, step, index)}
            maxSteps={review.limits.maxSteps}
            allowSelf={review.limits.allowSelf}
            {...(review.keyless ? { hasKey: (id: string) => !review.keyless?.has(id) } : {})}
            {...(review.tools ? { tools: review.tools } : {})}
            onRun={(plan) => void runReviewed(plan)}
            onDiscard={discardReview}
          />
        )}
        {confirm && shown?.id === confirm.runId && (
          <SpendConfirm
            confirm={confirm}
            labels={shown.workerLabels}
            onAnswer={(ok) => {
              const streaming = confirm.streaming;
              confirmSpend(ok);
              // Declined in review: back to the plan's Run button, where the user was.
              if (!ok && !streaming) document.querySelector<HTMLElement>('[data-testid="run-plan"]')?.focus();
            }}
          />
        )}
        {toolAsk && <ToolConfirm confirm={toolAsk} />}
        {filesAsk && shown?.id === filesAsk.runId && (
          <FilesConfirm confirm={filesAsk} onAnswer={(ok, remember) => app.runs.confirmFiles(ok, remember)} />
        )}
        {shown?.chosenBy && <AutoChoiceNote view={shown} />}
        {thread && drawn && <ThreadTurns state={thread} view={drawn} />}
        {drawn && (
          <RunPanel
            key={drawn.id}
            view={drawn}
            stepsOpen={app.prefs.viewPrefs.value.stepsOpen}
            streams={streams}
            workerOrder={drawn.workerOrder ?? workerOrder.value}
            actions={{
              cancelRun,
              cancelStep,
              rerunStep: (index) => void rerunStep(index),
              continueAnswer: (index) => void app.runs.continueAnswer(index),
              exportJson: () => void exportCurrent('json', drawn.id),
              exportJsonWithoutFiles: () => void exportCurrent('json', drawn.id, { withoutFiles: true }),
              exportMarkdown: () => void exportCurrent('md', drawn.id),
              ...(drawn.retry
                ? { retry: () => retryQuestion(drawn, (input) => void ask(input, runPool.value), router) }
                : {}),
              mark: (good) => void outcomes.mark(drawn, good),
              fileOf: (id) => app.runs.fileOf(drawn.id, drawn.attachments, id),
            }}
            mark={{
              ...(mark ? { good: mark.good } : {}),
              ...(outcomes.markError.value ? { error: outcomes.markError.value } : {}),
            }}
          />
        )}
        {thread && drawn && <ThreadFooter state={thread} view={drawn} />}
        {thread && drawn && <LaterTurns state={thread} view={drawn} />}
        {follow.away && <JumpToLatest onJump={follow.jump} />}
      </div>
    </div>
  );
}

/** Asks a question the conductor could not plan again, as it was asked, from the Ask screen. */
function retryQuestion(
  view: RunView,
  ask: (input: AskInput) => void,
  router: { navigate(route: { name: 'ask' }): void },
): void {
  if (!view.retry) return;
  router.navigate({ name: 'ask' });
  ask({ question: view.question, ...view.retry });
}

/** Auto mode's choice for the run on screen, and its one-line reason; or why Direct mode's worker was replaced. */
function AutoChoiceNote({ view }: { view: RunView }) {
  const chosen = view.chosenBy!;
  const id = singleWorkerOf(chosen.strategy);
  // Direct mode: the run's header names the worker; a note only when another answered in its place.
  if (chosen.by === 'user') {
    return chosen.reason ? (
      <p class="alert" data-kind="info" data-testid="direct-note">
        {chosen.reason}
      </p>
    ) : null;
  }
  const what =
    id !== undefined
      ? `${view.workerLabels?.[id] ?? id}, directly (no planning)`
      : chosen.strategy === 'router'
        ? 'the router'
        : 'the conductor';
  return (
    <p class="alert" data-kind="info" data-testid="auto-choice">
      {chosen.by === 'thread' ? `The router sent it to ${what}.` : `Auto mode chose ${what}.`} {chosen.reason}
    </p>
  );
}
