import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AskInput, AskMode, DirectChoice } from '../app/runs/run-model.ts';
import { fileHandlers } from './AttachmentChips.tsx';
import { type DirectOption, DirectPicker } from './DirectPicker.tsx';
import { useKeyWarning } from './KeyWarning.tsx';
import { recallKey } from './key-targets.ts';
import { usePromptPicker } from './PromptPicker.tsx';

/**
 * The question box: Enter asks, Ctrl+Enter (⌘+Enter) plans only, Shift+Enter adds a line; mode
 * router/conductor/auto, or Direct to one chosen worker; optional plan review.
 */
export function Composer({
  onAsk,
  disabled,
  disabledReason,
  plannerMissing,
  initialMode = 'conductor',
  initialReview = false,
  onReviewChange,
  restore,
  attachments,
  onFiles,
  filesBusy,
  recall,
  directWorkers = [],
  initialDirect,
  onDirectChange,
}: {
  onAsk: (input: AskInput) => void;
  disabled?: boolean;
  disabledReason?: string;
  /** Why the router and conductor modes cannot plan now (no conductor model): auto mode may still answer. */
  plannerMissing?: string;
  initialMode?: AskMode;
  initialReview?: boolean;
  /** Called when the user ticks or clears "Review the plan", so the choice can be remembered. */
  onReviewChange?: (review: boolean) => void;
  /** A question to put back in the box (once per `key`): one the conductor could not plan. */
  restore?: { text: string; key: string };
  /** The attached files' chips and button, under the question. */
  attachments?: ComponentChildren;
  /** Files dropped on or pasted into the box. */
  onFiles?: (files: File[]) => void;
  /** Files are still being read: asking waits for them. */
  filesBusy?: boolean;
  /** The last question asked here: ↑ in the empty box puts it back to edit. */
  recall?: string | undefined;
  /** The workers Direct mode can talk to, by label. */
  directWorkers?: readonly DirectOption[];
  /** Direct mode's last choice, to find again. */
  initialDirect?: DirectChoice | undefined;
  onDirectChange?: (choice: DirectChoice) => void;
}) {
  const [question, setQuestion] = useState('');
  useEffect(() => {
    if (restore) setQuestion(restore.text);
  }, [restore?.key]);
  const [mode, setMode] = useState<AskMode>(initialMode);
  const [review, setReview] = useState(initialReview);
  const [direct, setDirect] = useState<DirectChoice | undefined>(initialDirect);
  // The remembered worker while it is in the pool, else the first one offered.
  const directChoice =
    direct && directWorkers.some((w) => w.id === direct.worker)
      ? direct
      : directWorkers[0] && { worker: directWorkers[0].id };
  const isDirect = mode === 'direct';
  // Auto mode may answer without a planner, and Direct never plans.
  const blockedBy = disabledReason ?? (mode !== 'auto' && !isDirect ? plannerMissing : undefined);
  disabled = disabled || blockedBy !== undefined;

  const files = fileHandlers(onFiles);
  const box = useRef<HTMLTextAreaElement>(null);
  const keys = useKeyWarning({ box });
  const picker = usePromptPicker('question', question, setQuestion, box);
  const send = (planOnly = false) => {
    const text = question.trim();
    if (!text || disabled || filesBusy || keys.waiting) return;
    keys.submit(text, (asked, keptKey) => {
      onAsk({
        question: asked,
        mode,
        review: review && !isDirect,
        ...(isDirect && directChoice ? { direct: directChoice } : {}),
        ...(planOnly && !isDirect ? { planOnly } : {}),
        ...(keptKey ? { keptKey } : {}),
      });
      setQuestion('');
    });
  };

  return (
    <form
      class="card composer"
      aria-labelledby="ask-title"
      data-testid="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      {...files.drop}
    >
      <h2 id="ask-title">Ask</h2>
      <label for="question" class="visually-hidden">
        Your question
      </label>
      <textarea
        ref={box}
        id="question"
        rows={3}
        placeholder="Ask anything. Enter asks, Ctrl+Enter plans only, Shift+Enter adds a line."
        value={question}
        aria-describedby="composer-hint"
        {...picker.comboProps}
        onInput={(e) => {
          picker.onInput(e.currentTarget.value);
          setQuestion(e.currentTarget.value);
        }}
        onPaste={files.onPaste}
        onKeyDown={(e) => {
          if (picker.onKeyDown(e)) return;
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send(e.ctrlKey || e.metaKey);
          } else if (recall && recallKey(e, question)) {
            e.preventDefault();
            setQuestion(recall);
          }
        }}
      />
      {picker.popup}
      {keys.warning}
      {attachments}
      <div class="composer-bar">
        <fieldset class="segmented" style={{ padding: 0, margin: 0 }}>
          <legend class="visually-hidden">Mode</legend>
          <label title="One step: the conductor picks the best worker">
            <input
              type="radio"
              name="mode"
              value="router"
              checked={mode === 'router'}
              onChange={() => setMode('router')}
            />
            Router
          </label>
          <label title="A full workflow over the pool">
            <input
              type="radio"
              name="mode"
              value="conductor"
              checked={mode === 'conductor'}
              onChange={() => setMode('conductor')}
            />
            Conductor
          </label>
          <label title="Baton picks per question from what it learned: the conductor, the router, or one worker directly">
            <input
              type="radio"
              name="mode"
              value="auto"
              checked={mode === 'auto'}
              onChange={() => setMode('auto')}
              data-testid="mode-auto"
            />
            Auto
          </label>
          <label title="No planning: talk to one worker you choose">
            <input
              type="radio"
              name="mode"
              value="direct"
              checked={isDirect}
              onChange={() => setMode('direct')}
              data-testid="mode-direct"
            />
            Direct
          </label>
        </fieldset>
        {isDirect && (
          <DirectPicker
            idPrefix="composer-direct"
            workers={directWorkers}
            value={directChoice}
            onChange={(choice) => {
              setDirect(choice);
              onDirectChange?.(choice);
            }}
          />
        )}
        {!isDirect && (
          <label style={{ fontWeight: 400 }}>
            <input
              type="checkbox"
              checked={review}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setReview(on);
                onReviewChange?.(on);
              }}
              data-testid="review-toggle"
            />{' '}
            Review the plan before it runs
          </label>
        )}
        <span class="spacer" />
        {!isDirect && (
          <button
            type="button"
            disabled={disabled || !question.trim()}
            onClick={() => send(true)}
            aria-keyshortcuts="Control+Enter Meta+Enter"
            title="Plan on this device and stop: the workflow and its price, nothing sent, no key needed"
            data-testid="plan-only"
          >
            Plan only
          </button>
        )}
        <button
          type="submit"
          class="primary"
          disabled={disabled || !question.trim()}
          aria-keyshortcuts="Enter"
          data-testid="ask-send"
        >
          Ask
        </button>
      </div>
      <p id="composer-hint" class="field-hint">
        {disabled && blockedBy
          ? blockedBy
          : isDirect
            ? 'Enter sends to the chosen worker, no planning · Shift+Enter adds a line'
            : 'Enter asks · Ctrl+Enter plans only (nothing sent) · Shift+Enter adds a line'}
      </p>
    </form>
  );
}
