import { useState } from 'preact/hooks';

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
}: {
  onSend: (question: string) => void;
  problem?: string | undefined;
  label?: string;
  initial?: string;
  testId?: string;
  onCancel?: () => void;
}) {
  const [text, setText] = useState(initial);
  function send() {
    const question = text.trim();
    if (!question) return;
    onSend(question);
    setText('');
  }
  return (
    <form
      class="follow-up"
      data-testid={testId}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label class="visually-hidden" for={`${testId}-text`}>
        {label}
      </label>
      <textarea
        id={`${testId}-text`}
        rows={2}
        value={text}
        placeholder={label === 'Follow up' ? 'Ask a follow-up (Enter sends)' : undefined}
        data-testid={`${testId}-text`}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === 'Escape' && onCancel) onCancel();
        }}
      />
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
