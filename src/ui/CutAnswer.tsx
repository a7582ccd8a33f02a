/**
 * Under an answer the provider cut at its output limit: said in words, and Continue, which asks the same
 * worker for the rest and appends it to this answer (src/executor/continuation.ts).
 */
export function CutAnswer({ onContinue }: { onContinue: (() => void) | undefined }) {
  return (
    <p class="row small" data-testid="answer-cut">
      <span>Cut at the output limit.</span>
      {onContinue && (
        <button
          type="button"
          class="small"
          onClick={onContinue}
          title="Ask the same worker for the rest, added to this answer (a new request: it costs tokens)"
          data-testid="continue-answer"
        >
          Continue
        </button>
      )}
    </p>
  );
}
