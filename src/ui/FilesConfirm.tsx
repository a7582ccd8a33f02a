import { useState } from 'preact/hooks';
import type { FilesConfirm as Confirm, FileDestination } from '../app/runs/files-confirm.ts';
import { useConfirmKeys } from './confirm-keys.ts';

/**
 * Before a plan nobody reviewed sends the user's files to more than one provider, or to one they have not
 * sent files to before: one line naming the files and where they go. Focus starts on "Don't send", and
 * Escape gives it too: a stray Enter never sends a file.
 */
export function FilesConfirm({
  confirm,
  onAnswer,
}: {
  confirm: Confirm;
  onAnswer: (ok: boolean, remember: boolean) => void;
}) {
  const [remember, setRemember] = useState(false);
  const { safe, onKeyDown } = useConfirmKeys(confirm, () => onAnswer(false, false));
  const many = confirm.destinations.length > 1;
  return (
    <section
      class="alert files-confirm"
      data-kind="warn"
      role="alertdialog"
      aria-labelledby="files-confirm-text"
      data-testid="files-confirm"
      onKeyDown={onKeyDown}
    >
      <p id="files-confirm-text">
        Send {confirm.destinations.map(destinationText).join('; ')}?{' '}
        {confirm.streaming ? 'Steps without files go on; the rest wait for you.' : 'Nothing has been sent.'}
      </p>
      <div class="row">
        <button
          type="button"
          class="primary"
          onClick={() => onAnswer(true, remember)}
          data-testid="files-send"
        >
          Send
        </button>
        <button type="button" ref={safe} onClick={() => onAnswer(false, false)} data-testid="files-decline">
          Don't send: stop the run{confirm.streaming ? ' (steps done are kept)' : ''}
        </button>
        <label class="small">
          <input
            type="checkbox"
            checked={remember}
            onChange={(e) => setRemember(e.currentTarget.checked)}
            data-testid="files-remember"
          />{' '}
          Don't ask again for {many ? 'these providers' : 'this provider'}
        </label>
      </div>
    </section>
  );
}

function destinationText(d: FileDestination): string {
  return `${d.files.join(', ')} to ${d.name} (${d.workers.join(', ')})`;
}
