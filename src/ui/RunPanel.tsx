import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ESTIMATED, estimateNote, formatDuration, formatTokens } from '../app/format.ts';
import { costText, estimateCostText, estimateText } from '../app/price-text.ts';
import type { StepStreams } from '../app/runs/draw-timing.ts';
import { modeText } from '../app/runs/mode-text.ts';
import { isActive, liveTotals, type RunView, runElapsed, snapshotOfView } from '../app/runs/run-model.ts';
import { downloadText } from '../app/save-file.ts';
import { workerColor } from '../app/worker-color.ts';
import { workerDisplayName } from '../app/worker-names.ts';
import { Answer } from './Answer.tsx';
import { Citations } from './Citations.tsx';
import { CutAnswer } from './CutAnswer.tsx';
import { focusAfterStop, typing } from './key-targets.ts';
import { Notice } from './Notice.tsx';
import { RunFiles, stepFilesText } from './RunFiles.tsx';
import { StepCard } from './StepCard.tsx';
import { Timeline } from './Timeline.tsx';
import { renderedOnChange } from './unchanged.ts';
import { WorkflowGraph } from './WorkflowGraph.tsx';

/**
 * The time of this render; while `active`, the view is drawn again `ms` after its last draw, so running
 * bars and latencies move. A clock of its own drew frames between the ones streamed text already draws,
 * each costing as much as the other; re-armed on every draw, it only ticks when nothing else does. A
 * layout effect: a plain one is run after the next paint, through an animation frame and a timer asked
 * for on every draw.
 */
function useNow(active: boolean, ms = 250): number {
  const [, setTick] = useState(0);
  useLayoutEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => setTick((tick) => tick + 1), ms);
    return () => clearTimeout(timer);
  });
  return Date.now();
}

const PHASE_TEXT: Record<RunView['phase'], string> = {
  planning: 'Planning on this device…',
  review: 'Waiting for your review',
  running: 'Running',
  interrupted: 'Interrupted',
  done: 'Done',
  partial: 'Done (some steps failed)',
  failed: 'Failed',
  cancelled: 'Stopped',
};

/** The graph is laid out again only when its steps' workers, tasks, inputs or states change. */
const Graph = renderedOnChange(WorkflowGraph);
const NO_LABELS: Record<string, string> = {};

/**
 * Whether a step's card shows a time that moves: while it runs or waits (a retry, a slot, the first
 * token). An ended step's times are fixed, and a step queued behind its inputs shows none until it starts:
 * given the clock anyway, the cards of every step still to come were rendered again on every draw.
 */
function ticking(step: RunView['steps'][number]): boolean {
  return (
    step.state === 'running' ||
    step.wait !== undefined ||
    (step.state === 'queued' && step.timings.startedAt !== undefined)
  );
}

export interface RunActions {
  cancelRun?: () => void;
  cancelStep?: (index: number) => void;
  rerunStep?: (index: number) => void;
  /** Asks a step's worker for the rest of the answer its provider cut at the output limit. */
  continueAnswer?: (index: number) => void;
  exportJson?: () => void;
  /** The JSON export without the attached files' contents (their names and sizes stay). */
  exportJsonWithoutFiles?: () => void;
  exportMarkdown?: () => void;
  /** Asks the question again as it was asked (offered when the conductor could not plan it). */
  retry?: () => void;
  /** Marks the finished run good or bad (workflow memory learns from the good ones); again replaces it. */
  mark?: (good: boolean) => void;
}

/** The run's current mark, for the buttons; `error` says why the last mark could not be saved. */
export interface RunMark {
  good?: boolean;
  error?: string;
}

/**
 * Thumbs up or down, drawn here: an emoji renders as an empty box where no emoji font is installed. The
 * button's own text names it.
 */
function Thumb({ down = false }: { down?: boolean }) {
  return (
    <svg class="thumb" viewBox="0 0 24 24" aria-hidden="true" focusable="false" data-down={down || undefined}>
      <path
        d="M7 10v11H3V10h4zm2 11h8.2a2 2 0 0 0 2-1.6l1.3-6.6A2 2 0 0 0 18.5 10H14l.8-4.2A1.7 1.7 0 0 0 13.1 4L9 10v11z"
        fill="currentColor"
      />
    </svg>
  );
}

/** Good / Bad by the answer, pressed as marked; `g` and `b` do the same from inside the run view. */
function MarkButtons({ mark, onMark }: { mark: RunMark; onMark: (good: boolean) => void }) {
  return (
    <div class="row" data-testid="run-mark">
      <span class="small muted">Was this answer good?</span>
      <button
        type="button"
        aria-pressed={mark.good === true}
        aria-keyshortcuts="g"
        onClick={() => onMark(true)}
        data-testid="mark-good"
      >
        <Thumb /> Good
      </button>
      <button
        type="button"
        aria-pressed={mark.good === false}
        aria-keyshortcuts="b"
        onClick={() => onMark(false)}
        data-testid="mark-bad"
      >
        <Thumb down /> Bad
      </button>
      {mark.error && (
        <span class="small" role="alert">
          {mark.error}
        </span>
      )}
    </div>
  );
}

/** Whether a key press is typing (in a field), not a shortcut. */
/** "Drew on 2 past runs: …", each a link that opens the run. */
function DrewOn({ runs }: { runs: NonNullable<RunView['drewOn']> }) {
  return (
    <p class="small muted" data-testid="drew-on">
      Drew on {runs.length} past run{runs.length === 1 ? '' : 's'}:{' '}
      {runs.map((run, i) => (
        <span key={run.runId}>
          {i > 0 && ', '}
          <a href={`#/run/${encodeURIComponent(run.runId)}`} title={run.question}>
            {run.question.length > 60 ? `${run.question.slice(0, 59)}…` : run.question}
          </a>
        </span>
      ))}
    </p>
  );
}

/** Downloads the run as the page holds it: for a run the store could not save, this is the only copy. */
async function exportFromMemory(view: RunView): Promise<void> {
  const m = await import('../app/export.ts');
  const { run, steps } = snapshotOfView(view);
  downloadText(m.exportFilename(run, 'json'), m.exportRunJson(run, steps), 'application/json');
}

/** Watch one run: the plan as it streams, the graph, the timeline, the step cards and the final answer. */
export function RunPanel({
  view,
  workerOrder,
  actions = {},
  mark = {},
  streams,
}: {
  view: RunView;
  workerOrder: readonly string[];
  actions?: RunActions;
  mark?: RunMark;
  /** The live run's streamed text (draw-timing.ts): its running steps draw tokens in place. */
  streams?: StepStreams | undefined;
}) {
  const active = isActive(view.phase);
  const reviewing = view.phase === 'review';
  const finished = !active && !reviewing && view.steps.length > 0;
  const now = useNow(active);
  const totals = view.totals ?? liveTotals(view.steps);
  const labels = view.workerLabels ?? NO_LABELS;
  // A token changes a step's record, not its place in the graph: the graph's steps are made again only
  // when a step is added, changes state or is taken over.
  const graphKey = view.steps.map((s) => `${s.worker}:${s.state}`).join();
  const graphSteps = useMemo(
    () =>
      view.steps.length > 0
        ? view.steps.map((s) => ({ worker: s.worker, task: s.task, sees: s.sees, state: s.state }))
        : view.plannedSteps,
    [graphKey, view.plannedSteps, view.id],
  );
  const finalIndex = view.finalStep;
  const finalStep = finalIndex !== undefined ? view.steps[finalIndex] : undefined;
  const elapsed = runElapsed(view, now);
  const approx = totals.estimated ? ESTIMATED : '';
  const estimateTitle = totals.estimated ? `In part ${estimateNote(totals.estimator)}` : undefined;
  const titleRef = useRef<HTMLHeadingElement>(null);
  const cancelRun = actions.cancelRun
    ? () => {
        actions.cancelRun?.();
        focusAfterStop(titleRef.current);
      }
    : undefined;

  const answered = finalStep?.state === 'done';
  // Only an answer can be good or bad: a run that ended without one is not marked.
  const onMark = finished && answered ? actions.mark : undefined;
  const markKeys = onMark
    ? (event: KeyboardEvent) => {
        if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
        if (event.key === 'g' || event.key === 'b') onMark(event.key === 'g');
      }
    : undefined;

  return (
    <section
      class="run"
      aria-labelledby="run-title"
      data-testid="run"
      data-phase={view.phase}
      data-run-id={view.id}
      onKeyDown={markKeys}
      // Focusable, so a click anywhere in the run (the answer's text) lets `g`/`b` mark it.
      tabIndex={markKeys ? -1 : undefined}
    >
      <div class="card">
        <div class="run-head">
          <h2 id="run-title" class="visually-hidden" tabIndex={-1} ref={titleRef}>
            Run
          </h2>
          <p class="run-question">{view.question}</p>
          <RunFiles refs={view.attachments} />
          <span class="badge" data-status={view.phase} data-testid="run-phase" role="status">
            {PHASE_TEXT[view.phase]}
          </span>
          <span class="badge" data-testid="run-mode">
            {modeText(view)}
          </span>
          <span class="spacer" />
          {active && cancelRun && (
            <button
              type="button"
              class="danger"
              onClick={cancelRun}
              aria-keyshortcuts="Escape"
              title="Stop the run (Esc): the steps done are kept, nothing more is sent"
              data-testid="cancel-run"
            >
              Stop
            </button>
          )}
          {/* These read the store; while it is not saving, the banner's export (from the page) is the one. */}
          {finished && !view.notSaved && actions.exportJson && (
            <button type="button" onClick={actions.exportJson}>
              Export JSON
            </button>
          )}
          {finished && !view.notSaved && view.attachments?.length && actions.exportJsonWithoutFiles ? (
            <button type="button" onClick={actions.exportJsonWithoutFiles} data-testid="export-without-files">
              Export JSON without files
            </button>
          ) : null}
          {finished && !view.notSaved && actions.exportMarkdown && (
            <button type="button" onClick={actions.exportMarkdown}>
              Export Markdown
            </button>
          )}
        </div>
        {view.planNote && (
          <Notice kind="warn" text={view.planNote.text} details={view.planNote.details} testId="plan-note" />
        )}
        {view.planChecks && (
          <ul class="alert" data-kind="warn" data-testid="plan-checks">
            {view.planChecks.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        {view.notSaved && (
          <div class="alert" data-kind="error" role="alert" data-testid="run-not-saved">
            <p>
              This run is not being saved ({view.notSaved}). It is kept on this page until you leave it:
              export it to keep a copy. Saving goes on by itself once there is space again (deleting old runs
              in History or the cached model in Settings frees some).
            </p>
            <button type="button" onClick={() => void exportFromMemory(view)} data-testid="export-unsaved">
              Export JSON
            </button>
          </div>
        )}
        {view.error && (
          <Notice kind="error" role="alert" text={view.error} details={view.errorDetails} testId="run-error">
            {view.retry && actions.retry && (
              <button type="button" class="small" onClick={actions.retry} data-testid="retry-planning">
                Try again
              </button>
            )}
          </Notice>
        )}
        {view.thought && <p class="thought">Plan: {view.thought}</p>}
        {view.drewOn && view.drewOn.length > 0 && <DrewOn runs={view.drewOn} />}
        {view.phase === 'planning' && (
          <details open>
            <summary class="small">Conductor output</summary>
            <pre class="plan-stream" data-testid="plan-stream" aria-live="off">
              {view.planText || '…'}
            </pre>
          </details>
        )}
        {view.estimate && active && (
          <p class="small muted" data-testid="plan-estimate-line">
            Estimated before it runs: {estimateText(view.estimate, labels)}
          </p>
        )}
        <dl class="totals" data-testid="run-totals">
          <div>
            <dt>Steps</dt>
            <dd>
              {totals.done}/{graphSteps.length}
            </dd>
          </div>
          {view.limits && (
            <div
              data-testid="run-step-cap"
              title={`${view.limits.maxSteps} per plan, and self-checks may add corrective plans up to ${view.limits.maxDepth} levels deep`}
            >
              <dt>Step cap</dt>
              <dd>{view.limits.maxTotalSteps} per run</dd>
            </div>
          )}
          {totals.requests !== undefined && totals.requests > 0 && (
            <div>
              <dt>Requests</dt>
              <dd>{totals.requests}</dd>
            </div>
          )}
          <div title={estimateTitle}>
            <dt>Tokens in</dt>
            <dd>
              {approx}
              {formatTokens(totals.promptTokens)}
            </dd>
          </div>
          <div title={estimateTitle}>
            <dt>Tokens out</dt>
            <dd>
              {approx}
              {formatTokens(totals.completionTokens)}
            </dd>
          </div>
          {view.estimate && (
            <div data-testid="run-estimate" title={estimateText(view.estimate, labels)}>
              <dt>Estimated</dt>
              <dd>{estimateCostText(view.estimate)}</dd>
            </div>
          )}
          <div data-testid="run-cost" title={estimateTitle}>
            <dt>Cost</dt>
            <dd>
              {approx}
              {costText(totals.cost, totals.unpriced)}
              {totals.estimated ? ' (estimated)' : ''}
            </dd>
          </div>
          <div>
            <dt>Time</dt>
            <dd>{formatDuration(elapsed)}</dd>
          </div>
          {view.planStats?.tokensPerSec !== undefined && (
            <div>
              <dt>Conductor</dt>
              <dd>{view.planStats.tokensPerSec.toFixed(0)} tok/s</dd>
            </div>
          )}
        </dl>
      </div>

      {finalStep && answered && (
        <section class="card" aria-labelledby="final-title" data-testid="final-answer">
          <h2 id="final-title">Answer</h2>
          <Answer text={view.answer ?? finalStep.text} />
          <Citations citations={finalStep.citations} testId="final-citations" />
          {finalStep.cutAtLimit && (
            <CutAnswer
              onContinue={
                finished && actions.continueAnswer
                  ? () => actions.continueAnswer?.(finalStep.index)
                  : undefined
              }
            />
          )}
          {onMark && <MarkButtons mark={mark} onMark={onMark} />}
        </section>
      )}

      {graphSteps.length > 0 && !reviewing && (
        <div class="grid-2">
          <section class="card" aria-labelledby="graph-title">
            <h2 id="graph-title">Workflow</h2>
            <Graph steps={graphSteps} workerOrder={workerOrder} workerLabels={labels} />
          </section>
          <section class="card" aria-labelledby="timeline-title">
            <h2 id="timeline-title">Timeline</h2>
            {view.steps.some((s) => s.timings.startedAt !== undefined) ? (
              <Timeline steps={view.steps} now={now} workerOrder={workerOrder} workerLabels={labels} />
            ) : (
              <p class="muted">No step has started yet.</p>
            )}
          </section>
        </div>
      )}

      {view.steps.length > 0 && (
        <section aria-labelledby="steps-title">
          <h2 id="steps-title">Steps</h2>
          <div class="steps">
            {view.steps.map((step) => (
              <StepCard
                key={step.index}
                step={step}
                color={workerColor(step.worker, workerOrder)}
                workerName={workerDisplayName(step.worker, labels)}
                filesText={stepFilesText(step.files, view.attachments)}
                labels={labels}
                final={step.index === finalIndex}
                now={ticking(step) ? now : 0}
                onCancel={actions.cancelStep}
                onRerun={active ? undefined : actions.rerunStep}
                stream={streams?.of(view.id, step.index)}
              />
            ))}
          </div>
        </section>
      )}
    </section>
  );
}
