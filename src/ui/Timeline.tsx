import { formatDuration } from '../app/format.ts';
import { workerColor } from '../app/graph.ts';
import { type WorkerLabels, workerName } from '../app/worker-names.ts';
import type { StepStatus } from '../executor/types.ts';

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
  // The axis starts with the first step, not the question: planning time would squash the bars.
  const origin = Math.min(...started.map((s) => s.timings.startedAt!));
  const end = Math.max(...started.map((s) => s.timings.endedAt ?? now), origin + 1);
  const span = end - origin;
  return (
    <div class="timeline" data-testid="timeline">
      {steps.map((step) => {
        const start = step.timings.startedAt;
        if (start === undefined) return null;
        const stop = step.timings.endedAt ?? now;
        const left = ((start - origin) / span) * 100;
        const width = Math.max(0.5, ((stop - start) / span) * 100);
        const color = workerColor(step.worker, workerOrder);
        const name = workerName(step.worker, workerLabels);
        const text = `Step ${step.index} (${name}): from ${formatDuration(start - origin)} to ${formatDuration(stop - origin)}${step.timings.endedAt === undefined ? ', running' : ''}`;
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
                data-start={start - origin}
                data-end={step.timings.endedAt === undefined ? '' : stop - origin}
                data-status={step.state}
                style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%`, '--chip': color }}
              />
              <span class="visually-hidden">{text}</span>
            </div>
          </div>
        );
      })}
      <div class="timeline-axis" aria-hidden="true">
        <span>0 s</span>
        <span>{formatDuration(span)}</span>
      </div>
    </div>
  );
}
