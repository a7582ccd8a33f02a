import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { StepStreams } from '../app/runs/draw-timing.ts';
import { isActive, type RunView, snapshotOfView } from '../app/runs/run-model.ts';
import { downloadText } from '../app/save-file.ts';
import { progressLine, turnLine } from '../app/turn-line.ts';
import { Citations } from './Citations.tsx';
import { CitedAnswer } from './CitedAnswer.tsx';
import { CutAnswer } from './CutAnswer.tsx';
import { focusAfterStop, typing } from './key-targets.ts';
import { RunMachinery } from './lazy.tsx';
import { Notice } from './Notice.tsx';
import { RunFiles } from './RunFiles.tsx';
import type { RunActions } from './RunMachinery.tsx';

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

/** Downloads the run as the page holds it: for a run the store could not save, this is the only copy. */
async function exportFromMemory(view: RunView): Promise<void> {
  const m = await import('../app/export.ts');
  const { run, steps } = snapshotOfView(view);
  downloadText(m.exportFilename(run, 'json'), m.exportRunJson(run, steps), 'application/json');
}

/** The step whose text a live run shows under its question while its machinery is closed. */
function streamingStep(view: RunView): RunView['steps'][number] | undefined {
  const running = view.steps.filter((s) => s.state === 'running');
  return running.find((s) => s.index === view.finalStep) ?? running.at(-1);
}

/** The running step's text as it streams: its text signal in text position, drawn in place. */
function LiveStep({ view, streams }: { view: RunView; streams: StepStreams | undefined }) {
  const step = streamingStep(view);
  const stream = step && streams?.of(view.id, step.index);
  if (!step || !stream) return null;
  return (
    <div class="answer live-step" data-testid="live-step" data-streaming="true">
      <p class="plain">{stream.text}</p>
    </div>
  );
}

/**
 * One run as a turn of the conversation: the question, the answer, and one quiet line (or, while it runs,
 * the compact progress line and the step writing now) that opens the machinery in place: the plan, graph,
 * timeline, step cards, costs and the run's requests (RunMachinery). `stepsOpen`: open from the start
 * (Settings can ask for it; a page without the setting, the run harness, shows it all).
 */
export function RunPanel({
  view,
  workerOrder,
  actions = {},
  mark = {},
  streams,
  stepsOpen = true,
}: {
  view: RunView;
  workerOrder: readonly string[];
  actions?: RunActions;
  mark?: RunMark;
  /** The live run's streamed text (draw-timing.ts): its running steps draw tokens in place. */
  streams?: StepStreams | undefined;
  stepsOpen?: boolean;
}) {
  const [open, setOpen] = useState(stepsOpen);
  const active = isActive(view.phase);
  const reviewing = view.phase === 'review';
  const finished = !active && !reviewing && view.steps.length > 0;
  const now = useNow(active);
  const finalIndex = view.finalStep;
  const finalStep = finalIndex !== undefined ? view.steps[finalIndex] : undefined;
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
  // A run that ended well says so on its line: its badge stays for screen readers only.
  const quietPhase = !open && (view.phase === 'done' || active);
  const machineryId = `machinery-${view.id}`;

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
      <div class="card turn-card">
        <div class="run-head">
          <h2 id="run-title" class="visually-hidden" tabIndex={-1} ref={titleRef}>
            Run
          </h2>
          <p class="run-question">{view.question}</p>
          <RunFiles refs={view.attachments} />
          <span
            class={quietPhase ? 'visually-hidden' : 'badge'}
            data-status={view.phase}
            data-testid="run-phase"
            role="status"
          >
            {PHASE_TEXT[view.phase]}
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
        {finalStep && answered && (
          <section aria-labelledby={`final-title-${view.id}`} data-testid="final-answer">
            <h2 id={`final-title-${view.id}`} class="visually-hidden">
              Answer
            </h2>
            <CitedAnswer
              text={view.answer ?? finalStep.text}
              steps={view.steps}
              step={finalStep.index}
              fileOf={actions.fileOf}
            />
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
          </section>
        )}
        {active && !open && <LiveStep view={view} streams={streams} />}
        {!reviewing && (
          <button
            type="button"
            class="link turn-line"
            aria-expanded={open}
            aria-controls={machineryId}
            onClick={() => setOpen(!open)}
            data-testid="turn-line"
            title={open ? 'Hide the plan and steps' : 'Show the plan, graph, timeline, steps and costs'}
          >
            {active ? progressLine(view, now) : turnLine(view, now)}
          </button>
        )}
        {onMark && <MarkButtons mark={mark} onMark={onMark} />}
      </div>
      <div id={machineryId}>
        {(open || reviewing) && (
          <RunMachinery view={view} workerOrder={workerOrder} actions={actions} streams={streams} now={now} />
        )}
      </div>
    </section>
  );
}
