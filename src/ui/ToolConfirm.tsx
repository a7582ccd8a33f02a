import type { PendingToolConfirm } from '../app/tools.ts';
import { useConfirmKeys } from './confirm-keys.ts';

/**
 * Before a call to a tool that may change things: which step, which server and tool, and the arguments the
 * model wrote, shown as text (they are the model's, so inert). Focus starts on "Don't call", and Escape
 * gives it too: a stray Enter never makes the call.
 */
export function ToolConfirm({ confirm }: { confirm: PendingToolConfirm }) {
  const { safe, onKeyDown } = useConfirmKeys(confirm, () => confirm.answer(false));
  return (
    <section
      class="alert"
      data-kind="warn"
      role="alertdialog"
      aria-labelledby="tool-confirm-text"
      data-testid="tool-confirm"
      onKeyDown={onKeyDown}
    >
      <p id="tool-confirm-text">
        Step {confirm.stepIndex} asks to call <code>{`${confirm.server}.${confirm.tool}`}</code>, which{' '}
        {confirm.destructive ? 'may delete or overwrite data' : 'changes data'}. Its arguments:
      </p>
      <pre class="small" data-testid="tool-confirm-args">
        {JSON.stringify(confirm.args, null, 2)}
      </pre>
      <div class="row">
        <button type="button" class="primary" onClick={() => confirm.answer(true)} data-testid="tool-allow">
          Call it
        </button>
        <button type="button" ref={safe} onClick={() => confirm.answer(false)} data-testid="tool-decline">
          Don't call: the model is told you declined
        </button>
      </div>
    </section>
  );
}
