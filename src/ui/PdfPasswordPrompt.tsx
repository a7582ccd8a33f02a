import { useState } from 'preact/hooks';
import type { AttachmentsState, LockedPdf } from '../app/attachments-state.ts';

/**
 * Asks for the password of a PDF that needs one, where the file was attached: Unlock reads it again with
 * the password, Remove drops it. Not a form of its own (it sits inside the question's form): Enter in
 * the field unlocks instead of asking the question. The password is typed into this field only and goes
 * to the PDF reader for this one read.
 */
export function PdfPasswordPrompt({ entry, state }: { entry: LockedPdf; state: AttachmentsState }) {
  const [password, setPassword] = useState('');
  const busy = state.busy.value;
  const inputId = `pdf-password-${entry.id}`;
  const unlock = () => {
    if (!password || busy) return;
    void state.unlock(entry.id, password);
    setPassword('');
  };
  return (
    <fieldset class="alert pdf-password" data-kind="warn" data-testid="pdf-password">
      <p role="alert" data-testid="pdf-password-message">
        {entry.message}
      </p>
      <label for={inputId}>Password for {entry.file.name}</label>{' '}
      <input
        id={inputId}
        type="password"
        autocomplete="off"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          unlock();
        }}
        data-testid="pdf-password-input"
      />{' '}
      <button type="button" disabled={!password || busy} onClick={unlock} data-testid="pdf-password-unlock">
        Unlock
      </button>{' '}
      <button
        type="button"
        class="link"
        aria-label={`Remove ${entry.file.name}`}
        onClick={() => state.forget(entry.id)}
        data-testid="pdf-password-remove"
      >
        Remove
      </button>
    </fieldset>
  );
}
