import { useEffect, useState } from 'preact/hooks';
import { formatDuration, formatTime } from '../../app/format.ts';
import type { PlannerComparison, PlannerRow } from '../../app/planner-comparison.ts';
import type { ComparisonProgress, StatsConductor } from '../../evaluation/compare-planners-run.ts';
import { PLANNER_SET, REFERENCE_POOL } from '../../evaluation/planner-set.ts';

export interface ComparePlannersProps {
  /** The loaded conductor and its model's name; without it the run is disabled and says why. */
  conductor?: { model: string; service: StatsConductor };
  /** The app's comparison (src/app/bench-state.ts): its rows and progress outlive this screen. */
  comparison: PlannerComparison;
}

/** The sample sizes offered: a small one first, since a laptop GPU takes seconds per plan. */
const SIZES = [3, 10, PLANNER_SET.length] as const;

const percent = (x: number) => `${Math.round(x * 100)}%`;

function stateText(p: ComparisonProgress): string {
  switch (p.state) {
    case 'running':
      return p.current ? `Planning ${p.finished + 1} of ${p.total}: ${p.current.question}` : 'Starting';
    case 'cancelled':
      return `Cancelled after ${p.finished} of ${p.total} questions`;
    case 'failed':
      return `Stopped after ${p.finished} of ${p.total} questions`;
    case 'done':
      return `Done: ${p.total} questions planned`;
  }
}

/**
 * "Compare planners": plans labelled questions on the loaded conductor alone and keeps each model's
 * figures, so a user loads models one after another and picks the one that plans best on this device.
 */
export function ComparePlanners({ conductor, comparison }: ComparePlannersProps) {
  const [size, setSize] = useState<number>(SIZES[1]);
  // Leaving the screen stops a comparison in progress (what was planned is kept).
  useEffect(() => () => comparison.cancel(), [comparison]);
  const rows = comparison.rows.value;
  const shown = comparison.progress.value;
  const p = shown?.progress;
  const running = p?.state === 'running';
  const reason = conductor
    ? undefined
    : 'Load a conductor model on Start first: the questions are planned with it.';
  const workers = REFERENCE_POOL.map((w) => w.label).join(', ');

  return (
    <section class="card" aria-labelledby="compare-planners-title" data-testid="compare-planners">
      <h2 id="compare-planners-title">Compare planners</h2>
      <p class="muted">
        Plans labelled questions (facts, math, code, writing, analysis, multi-part) with the loaded conductor
        alone, for a fixed pool of four workers ({workers}). Nothing is sent and no key is needed: only the
        plans are scored. Each model's figures are kept on this device; load another model on Start and run
        again to compare.
      </p>
      {comparison.storeError.value && (
        <p class="alert" data-kind="warn" role="alert">
          {comparison.storeError.value}
        </p>
      )}
      <div class="row">
        <label for="compare-planners-size">Questions</label>
        <select
          id="compare-planners-size"
          value={String(size)}
          disabled={running}
          onChange={(e) => setSize(Number(e.currentTarget.value))}
        >
          {SIZES.map((n) => (
            <option key={n} value={String(n)}>
              {n === PLANNER_SET.length ? `all ${n}` : n}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="primary"
          disabled={!conductor || running}
          aria-describedby={reason ? 'compare-planners-reason' : undefined}
          onClick={() => conductor && comparison.run(conductor.service, conductor.model, size)}
        >
          {conductor ? `Run on ${conductor.model}` : 'Run on the loaded model'}
        </button>
      </div>
      {reason && (
        <p id="compare-planners-reason" class="field-hint" data-testid="compare-planners-reason">
          {reason}
        </p>
      )}

      {shown && p && (
        <div class="bench-progress" data-testid="compare-planners-progress" data-state={p.state}>
          <div
            class="bench-bar"
            role="progressbar"
            aria-label={`Planner comparison progress on ${shown.model}`}
            aria-valuemin={0}
            aria-valuemax={p.total}
            aria-valuenow={p.finished}
            aria-valuetext={`${p.finished} of ${p.total} questions`}
          >
            <div class="bench-bar-fill" style={{ width: `${p.total ? (p.finished / p.total) * 100 : 0}%` }} />
          </div>
          <p class="small" aria-live="polite" data-testid="compare-planners-state">
            {stateText(p)}
          </p>
          {p.error && (
            <p class="alert" data-kind="error" role="alert">
              {p.error}
            </p>
          )}
          <div class="row">
            <button type="button" class="danger" onClick={() => comparison.cancel()} disabled={!running}>
              Cancel
            </button>
          </div>
        </div>
      )}

      {rows.length === 0 ? (
        <p class="muted">No model measured yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="data" data-testid="compare-planners-results">
            <caption class="visually-hidden">Planner figures per conductor model</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Questions</th>
                <th scope="col">Valid plans</th>
                <th scope="col">Shape agreement</th>
                <th scope="col">Worker fit</th>
                <th scope="col">Plan tokens (mean)</th>
                <th scope="col">Planning time (mean)</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ model, summary: s, lastAt }) => (
                <tr key={model} data-model={model}>
                  <th scope="row">
                    {model}
                    <div class="small muted">{formatTime(lastAt)}</div>
                  </th>
                  <td data-figure="questions">{s.questions}</td>
                  <td data-figure="valid">{percent(s.validRate)}</td>
                  <td data-figure="shape">{percent(s.shapeAgreement)}</td>
                  <td data-figure="fit">{percent(s.workerFit)}</td>
                  <td data-figure="tokens">
                    {s.meanPlanTokens === undefined ? '—' : Math.round(s.meanPlanTokens)}
                  </td>
                  <td data-figure="time">
                    {s.meanPlanningMs === undefined ? '—' : formatDuration(s.meanPlanningMs)}
                  </td>
                  <td>
                    <button
                      type="button"
                      class="small danger"
                      disabled={running}
                      aria-label={`Forget the figures of ${model}`}
                      onClick={() => {
                        if (confirm(`Forget the planner figures of ${model}?`)) void comparison.forget(model);
                      }}
                    >
                      Forget
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows.length > 0 && (
        <p class="field-hint">
          Valid plans: the model's first output was a valid plan for these workers. Shape agreement: the plan
          has the expected shape (one step; steps with a check; parallel steps, then merged). Worker fit: the
          share of its steps on a worker of a kind the question needs. Plan tokens: what the model wrote,
          repair included. A repaired plan still counts for shape and fit; a fallback or an error is a miss.
        </p>
      )}
      {rows.map((row) => (
        <PerQuestion key={row.model} row={row} />
      ))}
    </section>
  );
}

const SHAPE_NAMES: Record<string, string> = {
  'one-step': 'one step',
  check: 'steps with a check',
  'parallel-merge': 'parallel, then merged',
  unjoined: 'steps that never meet',
};

/** One model's score per question: the labelled shape beside the plan's, its fit, and what went wrong. */
function PerQuestion({ row }: { row: PlannerRow }) {
  const byId = new Map(PLANNER_SET.map((q) => [q.id, q]));
  return (
    <details class="compare-planners-detail" data-testid="compare-planners-detail" data-model={row.model}>
      <summary>Per question: {row.model}</summary>
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Question</th>
              <th scope="col">Expected</th>
              <th scope="col">Planned</th>
              <th scope="col">Worker fit</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {row.scores.map((score) => {
              const question = byId.get(score.questionId);
              return (
                <tr key={score.questionId} data-question={score.questionId}>
                  <th scope="row">{question?.question ?? score.questionId}</th>
                  <td>{question ? SHAPE_NAMES[question.shape] : '—'}</td>
                  <td>{score.shape ? SHAPE_NAMES[score.shape] : 'no plan of its own'}</td>
                  <td>{percent(score.workerFit)}</td>
                  <td class="small">{score.problem ?? (score.valid ? 'none' : '—')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}
