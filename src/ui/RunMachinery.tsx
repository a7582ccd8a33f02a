import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { ESTIMATED, estimateNote, formatDuration, formatTokens } from '../app/format.ts';
import { namesOf } from '../app/ledger-documents.ts';
import { costText, estimateCostText, estimateText } from '../app/price-text.ts';
import { conductorWriting } from '../app/runs/conductor-output.ts';
import type { StepStreams } from '../app/runs/draw-timing.ts';
import { modeText } from '../app/runs/mode-text.ts';
import { isActive, liveTotals, type RunView, runElapsed } from '../app/runs/run-model.ts';
import { workerColor } from '../app/worker-color.ts';
import { workerDisplayName } from '../app/worker-names.ts';
import type { Attachment } from '../attachments/types.ts';
import type { LedgerEntry } from '../egress/ledger.ts';
import { AppStateContext } from './app-context.ts';
import { LedgerTable } from './LedgerPanel.tsx';
import { stepFilesText } from './RunFiles.tsx';
import { StepCard } from './StepCard.tsx';
import { Timeline } from './Timeline.tsx';
import { renderedOnChange } from './unchanged.ts';
import { WorkflowGraph } from './WorkflowGraph.tsx';

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
  /** One of the run's files, by content hash, from this device (an answer's citation opens its passage). */
  fileOf?: (id: string) => Promise<Attachment | undefined>;
}

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

/**
 * The run's own requests from the ledger, read once it has ended (a live run's rows change with every
 * piece of its answers: reading them then would redraw for nothing). Where the page has no ledger (a
 * harness), nothing.
 */
function RunRequests({ view }: { view: RunView }) {
  const app = useContext(AppStateContext);
  const ended = !isActive(view.phase) && view.phase !== 'review';
  const [entries, setEntries] = useState<readonly LedgerEntry[] | undefined>();
  useEffect(() => {
    if (!ended || !app) return;
    let stale = false;
    app.ledgerView.ofRun(view.id).then(
      (read) => !stale && setEntries(read),
      () => !stale && setEntries([]),
    );
    return () => {
      stale = true;
    };
  }, [view.id, ended, app]);
  if (!entries || entries.length === 0) return null;
  return (
    <section class="card" aria-labelledby={`requests-title-${view.id}`} data-testid="run-requests">
      <h2 id={`requests-title-${view.id}`}>Requests</h2>
      <div class="table-wrap">
        <LedgerTable
          entries={entries}
          caption="This answer's requests, oldest first"
          names={namesOf(view.attachments)}
        />
      </div>
    </section>
  );
}

/**
 * What made an answer: the conductor's output while it plans, the plan's thought, the totals and costs,
 * the graph, the timeline, the step cards and the run's requests. Shown under the answer's quiet line
 * when it is opened (or always, as Settings can ask).
 */
export function RunMachinery({
  view,
  workerOrder,
  actions,
  streams,
  now,
}: {
  view: RunView;
  workerOrder: readonly string[];
  actions: RunActions;
  streams?: StepStreams | undefined;
  now: number;
}) {
  const active = isActive(view.phase);
  const reviewing = view.phase === 'review';
  const finished = !active && !reviewing && view.steps.length > 0;
  const totals = view.totals ?? liveTotals(view.steps);
  const labels = view.workerLabels ?? NO_LABELS;
  // One reader of the run's files per run (they never change): a new one on every draw would draw every
  // step card again.
  const fileOf = useMemo(() => actions.fileOf, [view.id]);
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
  const elapsed = runElapsed(view, now);
  const approx = totals.estimated ? ESTIMATED : '';
  const estimateTitle = totals.estimated ? `In part ${estimateNote(totals.estimator)}` : undefined;
  const exports = finished && !view.notSaved;

  return (
    <div class="machinery" data-testid="machinery">
      <div class="card">
        <div class="row">
          <span class="badge" data-testid="run-mode">
            {modeText(view)}
          </span>
          <span class="spacer" />
          {/* These read the store; while it is not saving, the banner's export (from the page) is the one. */}
          {exports && actions.exportJson && (
            <button type="button" onClick={actions.exportJson}>
              Export JSON
            </button>
          )}
          {exports && view.attachments?.length && actions.exportJsonWithoutFiles ? (
            <button type="button" onClick={actions.exportJsonWithoutFiles} data-testid="export-without-files">
              Export JSON without files
            </button>
          ) : null}
          {exports && actions.exportMarkdown && (
            <button type="button" onClick={actions.exportMarkdown}>
              Export Markdown
            </button>
          )}
        </div>
        {view.thought && <p class="thought">Plan: {view.thought}</p>}
        {view.drewOn && view.drewOn.length > 0 && <DrewOn runs={view.drewOn} />}
        {conductorWriting(view) && (
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

      {graphSteps.length > 0 && !reviewing && (
        <div class="grid-2">
          <section class="card" aria-labelledby={`graph-title-${view.id}`}>
            <h2 id={`graph-title-${view.id}`}>Workflow</h2>
            <Graph steps={graphSteps} workerOrder={workerOrder} workerLabels={labels} />
          </section>
          <section class="card" aria-labelledby={`timeline-title-${view.id}`}>
            <h2 id={`timeline-title-${view.id}`}>Timeline</h2>
            {view.steps.some((s) => s.timings.startedAt !== undefined) ? (
              <Timeline steps={view.steps} now={now} workerOrder={workerOrder} workerLabels={labels} />
            ) : (
              <p class="muted">No step has started yet.</p>
            )}
          </section>
        </div>
      )}

      {view.steps.length > 0 && (
        <section aria-labelledby={`steps-title-${view.id}`}>
          <h2 id={`steps-title-${view.id}`}>Steps</h2>
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
                fileOf={step.sent?.some((file) => file.passages) ? fileOf : undefined}
              />
            ))}
          </div>
        </section>
      )}
      <RunRequests view={view} />
    </div>
  );
}
