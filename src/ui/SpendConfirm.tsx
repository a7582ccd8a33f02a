import { estimateText, formatLimit } from '../app/price-text.ts';
import type { SpendConfirm as Confirm } from '../app/runs/spend-confirm.ts';
import type { WorkerLabels } from '../app/worker-names.ts';
import { formatCost } from '../shared/format-cost.ts';
import { useConfirmKeys } from './confirm-keys.ts';

/**
 * A plan estimated over the spend limit waits here for the user's OK. Focus starts on the answer that
 * spends nothing, Escape gives it too: a stray Enter never spends.
 */
export function SpendConfirm({
  confirm,
  labels,
  onAnswer,
}: {
  confirm: Confirm;
  labels?: WorkerLabels;
  onAnswer: (ok: boolean) => void;
}) {
  const { safe, onKeyDown } = useConfirmKeys(confirm, () => onAnswer(false));
  return (
    <section
      class="alert"
      data-kind="warn"
      role="alertdialog"
      aria-labelledby="spend-confirm-title"
      aria-describedby="spend-confirm-text"
      data-testid="spend-confirm"
      onKeyDown={onKeyDown}
    >
      <h2 id="spend-confirm-title">Over your spend limit</h2>
      <p id="spend-confirm-text">
        This plan is estimated at {formatCost(confirm.estimate.cost)}, over your{' '}
        {formatLimit(confirm.limitUsd)} limit per run ({estimateText(confirm.estimate, labels)}).{' '}
        {confirm.streaming
          ? 'Its steps within the limit go on; the rest wait for you.'
          : 'Nothing has been sent.'}
      </p>
      <div class="row">
        <button type="button" class="primary" onClick={() => onAnswer(true)} data-testid="spend-confirm-run">
          Run it, with a {formatLimit(confirm.raisedLimitUsd)} limit for this run
        </button>
        <button type="button" ref={safe} onClick={() => onAnswer(false)} data-testid="spend-confirm-decline">
          {confirm.streaming ? 'Stop the run (steps done are kept)' : 'Back to the plan'}
        </button>
      </div>
    </section>
  );
}
