import { useState } from 'preact/hooks';
import { withArticle } from '../app/indefinite-article.ts';
import { type FoundKey, findKeyShapes, KEY_REMOVED, removeKeyShapes } from '../providers/key-shapes.ts';
import { maskKey } from '../vault/redact.ts';
import { useConfirmKeys } from './confirm-keys.ts';

/**
 * A key pasted into a question, caught before it is sent: sent, it would go to this turn's workers and, as
 * history, to every later turn's, and stay in plain text in History and exports, outside the vault. The
 * box asks once per send: remove it (replaced with "[key removed]"), keep it, or go back and edit.
 */

/** How a question was let through: `keptKey` when the user chose to send a key-shaped text in it. */
export type SendQuestion = (text: string, keptKey: boolean) => void;

export function useKeyWarning({
  enabled = true,
  box,
}: {
  enabled?: boolean;
  box?: { current: HTMLTextAreaElement | null };
} = {}) {
  const [pending, setPending] = useState<{ text: string; keys: FoundKey[]; send: SendQuestion }>();
  return {
    /** Sends `text` now, or holds it behind the warning when it holds key-shaped text. */
    submit(text: string, send: SendQuestion): void {
      const keys = enabled ? findKeyShapes(text) : [];
      if (keys.length === 0) send(text, false);
      else setPending({ text, keys, send });
    },
    /** The warning while a question waits on it; undefined otherwise. */
    warning: pending && (
      <KeyWarning
        keys={pending.keys}
        onRemove={() => {
          setPending(undefined);
          pending.send(removeKeyShapes(pending.text), false);
        }}
        onKeep={() => {
          setPending(undefined);
          pending.send(pending.text, true);
        }}
        onEdit={() => {
          setPending(undefined);
          box?.current?.focus();
        }}
      />
    ),
    /** Whether a question waits on the warning (the box's own send waits too). */
    waiting: pending !== undefined,
  };
}

function what(keys: readonly FoundKey[]): string {
  const named = keys.map((k) => `${withArticle(k.provider)} key (${maskKey(k.text)})`);
  const unique = [...new Set(named)];
  return unique.length === 1 ? (unique[0] as string) : `${unique.length} keys: ${unique.join(', ')}`;
}

function KeyWarning({
  keys,
  onRemove,
  onKeep,
  onEdit,
}: {
  keys: readonly FoundKey[];
  onRemove: () => void;
  onKeep: () => void;
  onEdit: () => void;
}) {
  // The choice takes the keyboard at once: Enter removes the key, Escape goes back to the question.
  const { safe, onKeyDown } = useConfirmKeys(keys, onEdit);
  return (
    <div
      class="alert small key-warning"
      data-kind="warn"
      role="alertdialog"
      aria-labelledby="key-warning-text"
      data-testid="key-warning"
      onKeyDown={onKeyDown}
    >
      <p id="key-warning-text">
        This question holds what looks like {what(keys)}. Sent as it is, it goes to the workers (and to later
        turns' workers as history) and is kept in plain text in History and exports.
      </p>
      <div class="row">
        <button type="button" class="small primary" ref={safe} onClick={onRemove} data-testid="key-remove">
          Remove it and send
        </button>
        <button type="button" class="small" onClick={onKeep} data-testid="key-keep">
          Send with the key
        </button>
        <button type="button" class="small" onClick={onEdit} data-testid="key-edit">
          Edit the question
        </button>
      </div>
      <p class="muted">
        Removed, it reads "{KEY_REMOVED}". A key Baton should use belongs in Settings → API keys.
      </p>
    </div>
  );
}

/** The input's share of the choice: `keptKey` only when the user kept a key. */
export function keptKeyOf(kept: boolean): { keptKey?: true } {
  return kept ? { keptKey: true } : {};
}
