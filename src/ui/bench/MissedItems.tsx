import type { BenchItemResult } from '../../evaluation/bench-runner.ts';
import type { Task } from '../../evaluation/taskset.ts';
import { missedItems } from './missed-items.ts';

/**
 * Every item a strategy failed or got wrong, each opening to its question, its error or its answer, and
 * the expected value. Answers are model output: shown as plain text, never as markup.
 */
export function MissedItems({
  results,
  tasks,
  strategyOrder,
  labelOf,
}: {
  results: readonly BenchItemResult[];
  tasks: readonly Task[];
  strategyOrder: readonly string[];
  labelOf: (strategyId: string) => string;
}) {
  const missed = missedItems(results, tasks, strategyOrder);
  if (missed.length === 0) return null;
  return (
    <section class="bench-misses" data-testid="bench-misses" aria-label="Failed or wrong items">
      <h4>
        Failed or wrong items ({missed.length} of {results.length})
      </h4>
      <ul>
        {missed.map(({ result, task, reason, expected }) => (
          <li key={`${result.strategyId}/${result.taskId}`}>
            <details data-testid="bench-miss" data-task={result.taskId} data-strategy={result.strategyId}>
              <summary>
                {labelOf(result.strategyId)} · {result.taskId}: {reason}
              </summary>
              <dl class="kv">
                <dt>Question</dt>
                <dd>{task?.question ?? '—'}</dd>
                {result.error && (
                  <>
                    <dt>Error</dt>
                    <dd data-testid="miss-error">{result.error}</dd>
                  </>
                )}
                <dt>Expected</dt>
                <dd data-testid="miss-expected">{expected}</dd>
                <dt>Answer read</dt>
                <dd data-testid="miss-extracted">{result.extracted ?? '—'}</dd>
                <dt>Full answer</dt>
                <dd>
                  {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long answer scrolls in its box, so the keyboard must reach it */}
                  <pre class="bench-answer" data-testid="miss-answer" tabIndex={0}>
                    {result.answer ?? '—'}
                  </pre>
                </dd>
              </dl>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
