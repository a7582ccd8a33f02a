/**
 * Puts a run's token estimates in the egress ledger: a provider that sent no usage leaves its request's
 * entry without tokens (egress reads only what the provider says), while the run counted them itself. So
 * the ledger shows the same ≈ counts as the step card, marked as estimates, instead of nothing.
 */
import type { Ledger } from '../../egress/ledger.ts';
import type { ExecutorEvent } from '../../executor/types.ts';

export function withLedgerEstimates(
  ledger: () => Promise<Pick<Ledger, 'noteEstimate'>>,
  runId: string,
  onEvent: (event: ExecutorEvent) => void,
): (event: ExecutorEvent) => void {
  return (event) => {
    if (
      event.type === 'step-request' &&
      event.request.estimated &&
      event.request.outcome !== 'in-flight' &&
      event.request.outcome !== 'interrupted'
    ) {
      const { promptTokens, completionTokens, estimator } = event.request;
      const endedAt = Date.now();
      void ledger()
        .then((l) =>
          l.noteEstimate({
            runId,
            stepIndex: event.index,
            promptTokens,
            completionTokens,
            estimator: estimator ?? 'chars',
            endedAt,
          }),
        )
        .catch((error: unknown) => console.error('ledger estimate failed', error));
    }
    onEvent(event);
  };
}
