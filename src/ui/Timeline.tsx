import { activeAxis } from '../app/active-time.ts';
import { formatDuration } from '../app/format.ts';
import { workerColor } from '../app/worker-color.ts';
import { type WorkerLabels, workerDisplayName } from '../app/worker-names.ts';
import type { StepStatus } from '../records/run-types.ts';

/** A stretch longer than this with no step running is cut out of the chart (a run waiting to be resumed). */
const LONGEST_SHOWN_GAP_MS = 60_000;

/**
 * A Gantt chart of the steps: one bar from start to end (or to now while running), on a shared time axis
 * from the run's start, so steps that ran in parallel overlap.
 */
export function Timeline({
  steps,
  now,
  workerOrder,
  workerLabels = {},
}: {
  steps: readonly StepStatus[];
  now: number;
  workerOrder: readonly string[];
  workerLabels?: WorkerLabels;
}) {
  const started = steps.filter((s) => s.timings.startedAt !== undefined);
  if (started.length === 0) return null;
  // The axis starts with the first step, not the question: planning time would squash the bars. A long
  // stretch with no step running (the run sat unfinished until it was resumed) is cut out, marked.
  const axis = activeAxis(
    started.map((s) => [s.timings.startedAt!, s.timings.endedAt ?? now] as const),
    LONGEST_SHOWN_GAP_MS,
  );
  const span = Math.max(axis.span, 1);
  return (
    <div class="timeline" data-testid="timeline">
      {steps.map((step) => {
        const start = step.timings.startedAt;
        if (start === undefined) return null;
        const stop = step.timings.endedAt ?? now;
        const from = axis.position(start);
        const to = axis.position(stop);
        const left = (from / span) * 100;
        const width = Math.max(0.5, ((to - from) / span) * 100);
        const color = workerColor(step.worker, workerOrder);
        const name = workerDisplayName(step.worker, workerLabels);
        const text = `Step ${step.index} (${name}): from ${formatDuration(from)} to ${formatDuration(to)}${step.timings.endedAt === undefined ? ', running' : ''}`;
        return (
          <div key={step.index} style={{ display: 'contents' }}>
            <span
              class="worker-chip"
              style={{ '--chip': color }}
              title={`${name} (worker id: ${step.worker})`}
              data-testid={`timeline-label-${step.index}`}
            >
              <span class="chip-text">
                {step.index}. {name}
              </span>
            </span>
            <div class="timeline-track" title={text}>
              <div
                class="timeline-bar"
                data-testid={`timeline-bar-${step.index}`}
                data-start={from}
                data-end={step.timings.endedAt === undefined ? '' : to}
                data-status={step.state}
                style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%`, '--chip': color }}
              />
              {axis.breaks.map((cut) => (
                <span
                  key={cut.at}
                  class="timeline-break"
                  style={{ left: `${(cut.at / span) * 100}%` }}
                  aria-hidden="true"
                />
              ))}
              <span class="visually-hidden">{text}</span>
            </div>
          </div>
        );
      })}
      <div class="timeline-axis" aria-hidden="true">
        <span>0 s</span>
        <span>{formatDuration(axis.span)}</span>
      </div>
      {axis.breaks.length > 0 && (
        <p class="timeline-note small muted" data-testid="timeline-breaks">
          Not shown: {axis.breaks.map((cut) => formatDuration(cut.idleMs)).join(', ')} with no step running
          (at the dashed line).
        </p>
      )}
    </div>
  );
}
