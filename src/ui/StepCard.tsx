import type { ReadonlySignal } from '@preact/signals';
import { ESTIMATED, estimateNote, formatDuration, formatTokens } from '../app/format.ts';
import { costText } from '../app/price-text.ts';
import type { StepStream } from '../app/runs/draw-timing.ts';
import { seesText } from '../app/sees-text.ts';
import { workerDisplayName as nameOf, type WorkerLabels } from '../app/worker-names.ts';
import type { Attachment } from '../attachments/types.ts';
import { estimateTokens, totalsOf } from '../executor/spend.ts';
import { describeWait } from '../executor/step-status.ts';
import { historyCutText, sentTurnsText } from '../executor/turn-history.ts';
import type { StepStatus } from '../records/run-types.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { Citations } from './Citations.tsx';
import { CitedAnswer } from './CitedAnswer.tsx';
import { renderedOnChange } from './unchanged.ts';

/** What a follow-up's step was sent of the thread's earlier turns, and what was cut and why. */
function HistoryNote({ step }: { step: StepStatus }) {
  const history = step.history;
  if (!history) return null;
  const cut = historyCutText(history);
  const which = sentTurnsText(history);
  const kept = `Sent ${history.kept} earlier turn${history.kept === 1 ? '' : 's'} of this thread (${formatTokens(history.tokens)} tokens)${which ? `: ${which}` : ''}.`;
  return (
    <p
      class={cut ? 'alert small' : 'muted small'}
      {...(cut ? { 'data-kind': 'info' } : {})}
      data-testid={`step-history-${step.index}`}
    >
      {kept}
      {cut ? ` ${cut}` : ''}
    </p>
  );
}

/**
 * What the step's request carried of each attached file: all of it, or which passages (by place), and the
 * bytes that left. File names are the user's files' text, rendered as text.
 */
function SentFilesNote({ step }: { step: StepStatus }) {
  return (
    <ul class="plain muted small" data-testid={`step-sent-${step.index}`}>
      {step.sent?.map((file) => (
        <li key={file.id}>
          Sent {file.name}:{' '}
          {file.passages
            ? `${file.passages.map((p) => p.place).join(', ')} (${file.passages.length} of ${file.total} passages, ${formatBytes(file.bytes)})`
            : `the whole file (${formatBytes(file.bytes)})`}
          {file.weak ? '. The search matched weakly.' : ''}
        </li>
      ))}
    </ul>
  );
}

/** What the thread's standing instructions added to the step's input, and what that cost at its price. */
function InstructionsNote({ step }: { step: StepStatus }) {
  const sent = step.instructions;
  if (!sent) return null;
  const cost = sent.cost === undefined ? '' : `, about ${costText(sent.cost)}`;
  return (
    <p class="muted small" data-testid={`step-instructions-${step.index}`}>
      Sent the thread's instructions ({formatTokens(sent.tokens)} tokens{cost}).
    </p>
  );
}

/**
 * The model's reasoning, collapsed: its token count (the provider's, else an estimate marked ~), and its
 * text as plain text (Preact escapes it: never HTML, never markdown), apart from the answer.
 */
function Reasoning({ step, streamed }: { step: StepStatus; streamed?: ReadonlySignal<string> | undefined }) {
  const text = step.reasoning;
  if (!text && !streamed?.peek()) return null;
  const counted = step.usage?.reasoningTokens;
  const tokens = counted !== undefined && !step.usage?.estimated ? counted : undefined;
  // While it streams, the request in flight counts it (once per piece): counting the whole text again on
  // every draw grew with its length.
  const estimate =
    step.usage?.reasoningTokens ?? step.requests?.at(-1)?.reasoningTokens ?? estimateTokens(text ?? '');
  const label =
    tokens !== undefined ? `${formatTokens(tokens)} tokens` : `~${formatTokens(estimate)} tokens (estimated)`;
  return (
    <details class="step-reasoning" data-testid={`step-reasoning-${step.index}`}>
      <summary class="small">
        Reasoning <span class="muted">· {label}</span>
      </summary>
      <p class="step-task">{streamed ?? text}</p>
    </details>
  );
}

export function stepLatency(step: StepStatus, now: number): number | undefined {
  const { startedAt, endedAt } = step.timings;
  if (startedAt === undefined) return undefined;
  return (endedAt ?? now) - startedAt;
}

/**
 * One step: its worker, task, state, answer and metrics, with its actions. While the step runs, its answer
 * is its stream's text signal, drawn in place as plain text (a token changes one text node, this card is
 * not rendered again); once it has ended, its answer as sanitized markdown, rendered once.
 */
function StepCardView({
  step,
  color,
  workerName,
  filesText,
  labels,
  final,
  now,
  onCancel,
  onRerun,
  stream,
  fileOf,
}: {
  step: StepStatus;
  color: string;
  /** The user's label for the step's worker (the id goes in a tooltip). */
  workerName?: string;
  /** Which attached files the step was sent ("sent a.csv, b.png"); empty when none. */
  filesText?: string;
  /** The run's worker labels: a takeover names both workers by them. */
  labels?: WorkerLabels;
  final: boolean;
  now: number;
  onCancel?: (index: number) => void;
  onRerun?: (index: number) => void;
  /** The live run's streamed text for this step (none for a stored run). */
  stream?: StepStream | undefined;
  /** Reads one of the run's files here, when the step was sent passages its answer may cite. */
  fileOf?: ((id: string) => Promise<Attachment | undefined>) | undefined;
}) {
  const latency = stepLatency(step, now);
  const ttft =
    step.timings.firstTokenAt !== undefined && step.timings.startedAt !== undefined
      ? step.timings.firstTokenAt - step.timings.startedAt
      : undefined;
  const running = step.state === 'running' || step.state === 'queued';
  const waiting = describeWait(step, now);
  // Over every request the step sent (retries, reruns, cancelled ones), as the run's totals count them.
  const spend = totalsOf([step]);
  const requests = spend.requests ?? 0;
  const counted = requests > 0 || step.usage !== undefined;
  // A request to a worker with no price is unknown, never a $0 nobody knows (costText).
  const unpriced = step.requests ? (spend.unpriced ?? 0) : step.cost === undefined && counted ? 1 : 0;
  const approx = spend.estimated ? ESTIMATED : '';
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
        {step.wait?.kind === 'slot' && step.state === 'queued' && (
          <span class="badge">waiting for a slot</span>
        )}
        {final && <span class="badge">final answer</span>}
        {step.pin && <span class="badge">pinned to its worker</span>}
        <span class="muted small">{seesText(step.sees, step.index)}</span>
        {filesText && (
          <span class="muted small" data-testid={`step-files-${step.index}`}>
            {filesText}
          </span>
        )}
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
      {step.takeovers?.map((t, i) => (
        <p class="alert" data-kind="warn" key={i} data-testid={`step-takeover-${step.index}`}>
          {nameOf(t.from, labels)} failed ({t.reason.replace(/\.$/, '')}) → {nameOf(t.to, labels)} took over.
        </p>
      ))}
      {step.history && <HistoryNote step={step} />}
      {step.instructions && <InstructionsNote step={step} />}
      {step.sent && <SentFilesNote step={step} />}
      {step.notice && (
        <p class="alert" data-kind="warn" data-testid={`step-notice-${step.index}`}>
          {step.notice}
        </p>
      )}
      {waiting && (
        <p class="step-wait muted small" role="status" data-testid={`step-wait-${step.index}`}>
          {waiting}
        </p>
      )}
      {step.error && step.wait?.kind !== 'retry' && (
        <p class="alert" data-kind={step.state === 'failed' ? 'error' : 'warn'}>
          {step.error}
        </p>
      )}
      <Reasoning step={step} streamed={step.state === 'running' ? stream?.reasoning : undefined} />
      {step.state === 'running' && stream ? (
        <div class="answer" data-testid="answer" data-streaming="true">
          <p class="plain">{stream.text}</p>
        </div>
      ) : (
        (step.text || step.state === 'running') && (
          <CitedAnswer text={step.text} steps={[step]} step={step.index} fileOf={fileOf} />
        )
      )}
      <Citations citations={step.citations} testId={`step-citations-${step.index}`} />
      {step.toolCalls?.length ? (
        <p class="small muted" data-testid={`step-tools-${step.index}`}>
          Tools:{' '}
          {step.toolCalls
            .map(
              (call) =>
                `${call.tool} (${call.outcome === 'locked' ? 'not called: the vault stayed locked' : call.outcome})`,
            )
            .join(', ')}
        </p>
      ) : null}
      <p
        class="step-metrics"
        data-testid={`step-metrics-${step.index}`}
        title={spend.estimated ? estimateNote(spend.estimator) : undefined}
      >
        {counted
          ? `${approx}${formatTokens(spend.promptTokens)} in · ${approx}${formatTokens(spend.completionTokens)} out`
          : 'tokens —'}{' '}
        · {unpriced > 0 && spend.cost === 0 ? '' : approx}
        {costText(spend.cost, unpriced)}
        {requests > 1 ? ` · ${requests} requests` : ''}
        {spend.estimated ? ' (estimated)' : ''} · {latency !== undefined ? formatDuration(latency) : '—'}
        {ttft !== undefined ? ` · first token ${formatDuration(ttft)}` : ''}
      </p>
    </article>
  );
}

/**
 * A card is rendered again only when its props change: its step's record (each executor event replaces
 * only the record of the step it is about), its final mark, its actions, or the time while it runs.
 */
export const StepCard = renderedOnChange(StepCardView);
