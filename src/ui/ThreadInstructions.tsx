import { useEffect, useId, useState } from 'preact/hooks';
import type { ThreadState } from '../app/threads/thread-core.ts';
import { estimateTokens } from '../shared/token-estimate.ts';
import { useAppState } from './app-context.ts';

/**
 * The thread's standing instructions: a disclosure over a textarea, saved on blur or Save. What they
 * cost is said here (tokens per worker step) because every step of every later turn carries them whole;
 * the estimate and the spend limit count them as they count the rest of a step's input.
 */
export function ThreadInstructions({ state }: { state: ThreadState }) {
  const { threads } = useAppState();
  const id = useId();
  const saved = state.instructions ?? '';
  const [draft, setDraft] = useState(saved);
  const [status, setStatus] = useState<string | undefined>(undefined);
  // Another thread on screen: the box shows what it stores, and no word of the last one's save.
  useEffect(() => setStatus(undefined), [state.id]);
  useEffect(() => setDraft(saved), [state.id, saved]);

  const save = () => {
    if (draft.trim() === saved) return;
    threads.setInstructions(state.id, draft).then(
      () => setStatus(draft.trim() ? 'Saved: the next turn’s workers get them.' : 'Removed.'),
      (error: unknown) =>
        setStatus(
          `Not saved (${error instanceof Error ? error.message : String(error)}); your text is kept here.`,
        ),
    );
  };
  const tokens = saved ? estimateTokens(saved) : 0;
  return (
    <details class="thread-instructions" data-testid="thread-instructions">
      <summary>
        Instructions
        {saved ? (
          <span class="small muted" data-testid="thread-instructions-cost">
            {' '}
            · about {tokens.toLocaleString('en-US')} tokens in each worker step
          </span>
        ) : null}
      </summary>
      <label for={id} class="small">
        Instructions for every worker in this thread (a system prompt)
      </label>
      <textarea
        id={id}
        rows={4}
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onBlur={save}
        data-testid="thread-instructions-text"
      />
      <div class="row">
        <button type="button" class="small" onClick={save} data-testid="thread-instructions-save">
          Save
        </button>
        <span class="small muted" role="status" data-testid="thread-instructions-status">
          {status}
        </span>
      </div>
      <p class="small muted">
        Sent whole with every worker step of the turns you ask from now on, and counted in their estimate and
        spend limit; the planner is shown their first 200 characters.
      </p>
    </details>
  );
}
