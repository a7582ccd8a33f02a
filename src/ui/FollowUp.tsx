import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fileHandlers } from './AttachmentChips.tsx';
import { useKeyWarning } from './KeyWarning.tsx';
import { recallKey } from './key-targets.ts';
import { usePromptPicker } from './PromptPicker.tsx';

/**
 * The follow-up box under the last answer: Enter sends (Shift+Enter adds a line), an empty box sends
 * nothing. While the last turn runs, a follow-up is refused with the reason (shown under the box), not
 * queued: the user may want to cancel or change it first.
 */
export function FollowUp({
  onSend,
  problem,
  label = 'Follow up',
  initial = '',
  testId = 'follow-up',
  onCancel,
  attachments,
  onFiles,
  filesBusy,
  keyCheck = true,
  onRecall,
  autoFocus = false,
}: {
  /**
   * Sends the question; false when it was refused (the box keeps it). `keptKey`: the user chose to send
   * the key-shaped text it holds (KeyWarning.tsx).
   */
  onSend: (question: string, keptKey: boolean) => boolean | undefined;
  problem?: string | undefined;
  label?: string;
  initial?: string;
  testId?: string;
  onCancel?: () => void;
  /** The chips of the files attached to it, shown under the box. */
  attachments?: ComponentChildren;
  /** Files dropped on the box or pasted into it. Absent: no files are taken. */
  onFiles?: (files: File[]) => void;
  /** A file is still being read: sending waits. */
  filesBusy?: boolean;
  /** Warn of a key pasted into the text before it is sent (a question; not a thread's new title). */
  keyCheck?: boolean;
  /** ↑ in the empty box: edit the last question (the thread's Edit question). */
  onRecall?: () => void;
  /** Take the focus when shown, the caret after the text (an edit opened from the keyboard). */
  autoFocus?: boolean;
}) {
  const [text, setText] = useState(initial);
  const files = fileHandlers(onFiles);
  const box = useRef<HTMLTextAreaElement>(null);
  const keys = useKeyWarning({ enabled: keyCheck, box });
  // A question box (not a thread's new title) takes a saved prompt with `/`, as the Ask box does.
  const picker = usePromptPicker(`${testId}-text`, text, setText, box, keyCheck);
  useEffect(() => {
    const element = box.current;
    if (!autoFocus || !element) return;
    element.focus();
    element.setSelectionRange(element.value.length, element.value.length);
  }, []);
  function send() {
    const question = text.trim();
    if (!question || filesBusy || keys.waiting) return;
    keys.submit(question, (asked, keptKey) => {
      if (onSend(asked, keptKey) !== false) setText('');
      // Refused (the last turn still runs): the box keeps the question as it was sent, key removed or not.
      else if (asked !== question) setText(asked);
    });
  }
  return (
    <form
      class="follow-up"
      data-testid={testId}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      {...files.drop}
    >
      <label class="visually-hidden" for={`${testId}-text`}>
        {label}
      </label>
      <textarea
        ref={box}
        id={`${testId}-text`}
        rows={2}
        value={text}
        placeholder={label === 'Follow up' ? 'Ask a follow-up (Enter sends)' : undefined}
        data-testid={`${testId}-text`}
        {...picker.comboProps}
        onInput={(e) => {
          picker.onInput(e.currentTarget.value);
          setText(e.currentTarget.value);
        }}
        onPaste={files.onPaste}
        onKeyDown={(e) => {
          if (picker.onKeyDown(e)) return;
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === 'Escape' && onCancel) {
            // Closes this box only: the page's Esc (stop the run) is not meant.
            e.preventDefault();
            onCancel();
          } else if (onRecall && recallKey(e, text)) {
            e.preventDefault();
            onRecall();
          }
        }}
      />
      {picker.popup}
      {keys.warning}
      {attachments}
      <div class="row">
        <button type="submit" class="small primary" data-testid={`${testId}-send`}>
          {label === 'Follow up' ? 'Send' : label}
        </button>
        {onCancel && (
          <button type="button" class="small" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {problem && (
        <p class="alert small" data-kind="warn" role="alert" data-testid={`${testId}-problem`}>
          {problem}
        </p>
      )}
    </form>
  );
}
