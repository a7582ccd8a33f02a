import type { ComponentChildren } from 'preact';
import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import type { Task } from '../../evaluation/taskset.ts';
import { missedItems, type StepVerdict, unscoredItems } from './missed-items.ts';

interface Props {
  results: readonly BenchItemResult[];
  tasks: readonly Task[];
  strategyOrder: readonly string[];
  labelOf: (strategyId: string) => string;
  workerLabelOf: (workerId: string) => string;
}

/**
 * Text that keeps its line breaks and indentation (a question's code, a Python answer), scrolling in its
 * box. Always a text node: a question or an answer is never markup.
 */
function Verbatim({ text, testid }: { text: string; testid?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a long text scrolls in its box, so the keyboard must reach it
    <pre class="bench-answer" data-testid={testid} tabIndex={0}>
      {text}
    </pre>
  );
}

/** A verdict's badge colour: the app's status colours. */
const VERDICT_STATUS: Record<StepVerdict['verdict'], string> = {
  right: 'done',
  wrong: 'failed',
  'not scored': 'pending',
  'no answer': 'cancelled',
};

function StepList({ steps, workerLabelOf }: { steps: StepVerdict[]; workerLabelOf: (id: string) => string }) {
  return (
    <ol class="bench-steps" data-testid="miss-steps">
      {steps.map((step) => (
        <li key={step.index} data-testid="miss-step" data-verdict={step.verdict}>
          <details>
            <summary>
              {workerLabelOf(step.worker)}
              {step.takenOverFrom !== undefined && ` (took over from ${workerLabelOf(step.takenOverFrom)})`}:{' '}
              <span class="badge" data-status={VERDICT_STATUS[step.verdict]}>
                {step.verdict}
              </span>
            </summary>
            {step.answer !== undefined && <Verbatim text={step.answer} />}
          </details>
        </li>
      ))}
    </ol>
  );
}

/** One bench item, closed to a line (`summary`), opening to what is known of it (`children`: dt/dd pairs). */
function ItemDetails(props: {
  result: BenchItemResult;
  testid: string;
  summary: string;
  children: ComponentChildren;
}) {
  return (
    <li>
      <details
        data-testid={props.testid}
        data-task={props.result.taskId}
        data-strategy={props.result.strategyId}
      >
        <summary>{props.summary}</summary>
        <dl class="kv">{props.children}</dl>
      </details>
    </li>
  );
}

/**
 * Every item a strategy failed or got wrong, each opening to its question, its error or its answer, the
 * expected value, what the scorer found and each step's own verdict; then, apart, the items that could not
 * be scored, with why. Questions and answers are shown as plain text, never as markup.
 */
export function MissedItems({ results, tasks, strategyOrder, labelOf, workerLabelOf }: Props) {
  const missed = missedItems(results, tasks, strategyOrder);
  const unscored = unscoredItems(results, tasks, strategyOrder);
  if (missed.length === 0 && unscored.length === 0) return null;
  return (
    <>
      {missed.length > 0 && (
        <section class="bench-misses" data-testid="bench-misses" aria-label="Failed or wrong items">
          <h4>
            Failed or wrong items ({missed.length} of {results.length})
          </h4>
          <ul>
            {missed.map(({ result, task, reason, expected, steps }) => (
              <ItemDetails
                key={`${result.strategyId}/${result.taskId}`}
                result={result}
                testid="bench-miss"
                summary={`${labelOf(result.strategyId)} · ${result.taskId}: ${reason}`}
              >
                <dt>Question</dt>
                <dd>
                  <Verbatim text={task?.question ?? '—'} testid="miss-question" />
                </dd>
                {!result.parsed && (
                  <>
                    <dt>Plan</dt>
                    <dd>The conductor's plan did not parse; a fallback plan ran.</dd>
                  </>
                )}
                {result.error && (
                  <>
                    <dt>Error</dt>
                    <dd data-testid="miss-error">{result.error}</dd>
                  </>
                )}
                <dt>Expected</dt>
                <dd data-testid="miss-expected">{expected}</dd>
                <dt>Answer read</dt>
                <dd>
                  <Verbatim text={result.extracted || '—'} testid="miss-extracted" />
                </dd>
                {result.scoreDetail !== undefined && (
                  <>
                    <dt>Tests said</dt>
                    <dd>
                      <Verbatim text={result.scoreDetail} testid="miss-detail" />
                    </dd>
                  </>
                )}
                {steps.length > 1 && (
                  <>
                    <dt>Each step's own answer</dt>
                    <dd>
                      <StepList steps={steps} workerLabelOf={workerLabelOf} />
                    </dd>
                  </>
                )}
                <dt>Full answer</dt>
                <dd>
                  <Verbatim text={result.answer ?? '—'} testid="miss-answer" />
                </dd>
              </ItemDetails>
            ))}
          </ul>
        </section>
      )}
      {unscored.length > 0 && (
        <section class="bench-misses" data-testid="bench-unscored" aria-label="Items not scored">
          <h4>
            Not scored ({unscored.length} of {results.length}): not counted as right or wrong
          </h4>
          <ul>
            {unscored.map(({ result, task, reason }) => (
              <ItemDetails
                key={`${result.strategyId}/${result.taskId}`}
                result={result}
                testid="bench-unscored-item"
                summary={`${labelOf(result.strategyId)} · ${result.taskId}: not scored`}
              >
                <dt>Why</dt>
                <dd data-testid="unscored-reason">{reason}</dd>
                <dt>Question</dt>
                <dd>
                  <Verbatim text={task?.question ?? '—'} />
                </dd>
                <dt>Full answer</dt>
                <dd>
                  <Verbatim text={result.answer ?? '—'} />
                </dd>
              </ItemDetails>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
