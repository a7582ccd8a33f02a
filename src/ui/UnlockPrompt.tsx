import { useEffect, useRef, useState } from 'preact/hooks';
import { useAppState } from './app-context.ts';

/**
 * The passphrase prompt a run opens when it needs the locked vault: a modal dialog (focus moves into it,
 * Escape cancels, focus goes back where it was), a wrong passphrase says so and keeps it open.
 */
export function UnlockPrompt() {
  const app = useAppState();
  const request = app.unlock.unlockRequest.value;
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const returnFocus = useRef<Element | null>(null);
  const [pass, setPass] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (request && !element.open) {
      returnFocus.current = document.activeElement;
      setPass('');
      setError(undefined);
      element.showModal();
      input.current?.focus();
    } else if (!request && element.open) {
      element.close();
      (returnFocus.current as HTMLElement | null)?.focus?.();
      returnFocus.current = null;
    }
  }, [request]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!request || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await app.unlock.answer(pass);
      setPass('');
    } catch (caught) {
      setError((caught as { message?: string }).message ?? 'The vault could not be unlocked.');
      input.current?.select();
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="card unlock-prompt"
      aria-labelledby="unlock-prompt-title"
      aria-describedby="unlock-prompt-why"
      data-testid="unlock-prompt"
      onCancel={(event) => {
        // Escape: close through the same path as Cancel, so the run hears of it.
        event.preventDefault();
        request?.settle(false);
      }}
    >
      <form onSubmit={(event) => void submit(event)}>
        <h2 id="unlock-prompt-title">Unlock the vault</h2>
        <p id="unlock-prompt-why" class="small">
          Your API keys are locked with a passphrase. Enter it {request?.purpose ?? 'to go on'}.
        </p>
        {error && (
          <p class="alert" data-kind="error" role="alert" data-testid="unlock-prompt-error">
            {error}
          </p>
        )}
        <div class="field">
          <label for="unlock-prompt-pass">Passphrase</label>
          <input
            ref={input}
            id="unlock-prompt-pass"
            type="password"
            autocomplete="current-password"
            value={pass}
            aria-invalid={error ? true : undefined}
            onInput={(e) => setPass(e.currentTarget.value)}
          />
        </div>
        <div class="row">
          <button
            type="submit"
            class="primary"
            disabled={busy}
            aria-busy={busy}
            data-testid="unlock-prompt-submit"
          >
            {busy ? 'Unlocking…' : 'Unlock'}
          </button>
          <button type="button" onClick={() => request?.settle(false)} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
