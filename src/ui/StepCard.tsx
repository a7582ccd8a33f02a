import { formatCost, formatDuration, formatTokens } from '../app/format.ts';
import type { StepStatus } from '../executor/types.ts';
import { Answer } from './Answer.tsx';

function seesText(sees: StepStatus['sees'], index: number): string {
  // "all" on the first step (or the first of a corrective batch with nothing before it) sees nothing.
  if (sees === 'all') return index === 0 ? 'sees nothing (first step)' : 'sees all earlier steps';
  if (sees.length === 0) return 'sees nothing';
  return `sees ${sees.map((i) => `step ${i}`).join(', ')}`;
}

export function stepLatency(step: StepStatus, now: number): number | undefined {
  const { startedAt, endedAt } = step.timings;
  if (startedAt === undefined) return undefined;
  return (endedAt ?? now) - startedAt;
}

/** One step: its worker, task, state, streamed answer (sanitized markdown) and metrics, with its actions. */
export function StepCard({
  step,
  color,
  workerName,
  final,
  now,
  onCancel,
  onRerun,
}: {
  step: StepStatus;
  color: string;
  /** The user's label for the step's worker (the id goes in a tooltip). */
  workerName?: string;
  final: boolean;
  now: number;
  onCancel?: (index: number) => void;
  onRerun?: (index: number) => void;
}) {
  const latency = stepLatency(step, now);
  const ttft =
    step.timings.firstTokenAt !== undefined && step.timings.startedAt !== undefined
      ? step.timings.firstTokenAt - step.timings.startedAt
      : undefined;
  const running = step.state === 'running' || step.state === 'queued';
  const headingId = `step-${step.index}-title`;
  return (
    <article
      class="step-card"
      style={{ '--chip': color }}
      data-testid={`step-card-${step.index}`}
      data-state={step.state}
      data-final={final ? 'true' : 'false'}
      aria-labelledby={headingId}
      aria-busy={running ? 'true' : 'false'}
    >
      <div class="step-head">
        <h3 id={headingId} style={{ margin: 0 }}>
          <span class="worker-chip" title={`Worker id: ${step.worker}`}>
            Step {step.index} · {workerName ?? step.worker}
          </span>
        </h3>
        <span class="badge" data-status={step.state}>
          {step.state}
          {step.attempts > 1 ? ` (attempt ${step.attempts})` : ''}
        </span>
        {final && <span class="badge">final answer</span>}
        <span class="muted small">{seesText(step.sees, step.index)}</span>
        <span class="spacer" />
        {running && onCancel && (
          <button type="button" class="small danger" onClick={() => onCancel(step.index)}>
            Cancel step {step.index}
          </button>
        )}
        {!running && onRerun && (
          <button type="button" class="small" onClick={() => onRerun(step.index)}>
            Rerun step {step.index}
          </button>
        )}
      </div>
      <details>
        <summary class="small">Task</summary>
        <p class="step-task">{step.task}</p>
      </details>
      {step.error && (
        <p class="alert" data-kind={step.state === 'failed' ? 'error' : 'warn'}>
          {step.error}
        </p>
      )}
      {(step.text || step.state === 'running') && (
        <Answer text={step.text} streaming={step.state === 'running'} />
      )}
      <p class="step-metrics" data-testid={`step-metrics-${step.index}`}>
        {step.usage
          ? `${formatTokens(step.usage.promptTokens)} in · ${formatTokens(step.usage.completionTokens)} out`
          : 'tokens —'}{' '}
        · {formatCost(step.cost)} · {latency !== undefined ? formatDuration(latency) : '—'}
        {ttft !== undefined ? ` · first token ${formatDuration(ttft)}` : ''}
      </p>
    </article>
  );
}
