import { attribute, WRONG_CAUSES } from '../../evaluation/attribution.ts';
import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import type { Task } from '../../evaluation/taskset.ts';
import { CAUSE_LABELS } from './missed-items.ts';

/**
 * Where the wrong answers came from: per strategy, its wrong items by cause; per worker, how many of its step
 * answers were right. Causes no strategy had are left out, so the table shows what happened.
 */
export function WrongCauses({
  results,
  tasks,
  strategyOrder,
  labelOf,
  workerLabelOf,
}: {
  results: readonly BenchItemResult[];
  tasks: readonly Task[];
  strategyOrder: readonly string[];
  labelOf: (strategyId: string) => string;
  workerLabelOf: (workerId: string) => string;
}) {
  const { strategies, workers } = attribute(results, tasks);
  if (!strategies.some((s) => s.wrong > 0 || s.unscored > 0)) return null;
  const anyUnscored = strategies.some((s) => s.unscored > 0);
  strategies.sort((a, b) => strategyOrder.indexOf(a.strategyId) - strategyOrder.indexOf(b.strategyId));
  const causes = WRONG_CAUSES.filter((cause) => strategies.some((s) => s.causes[cause] > 0));
  return (
    <section class="bench-causes" data-testid="bench-causes" aria-label="Where it went wrong">
      <h4>Where it went wrong</h4>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table must be keyboard-scrollable (axe scrollable-region-focusable) */}
      <section class="table-wrap" tabIndex={0} aria-label="Wrong items by cause">
        <table class="data" data-testid="causes-table">
          <caption class="visually-hidden">Wrong items per strategy, by cause</caption>
          <thead>
            <tr>
              <th scope="col">Strategy</th>
              <th scope="col">Wrong</th>
              {causes.map((cause) => (
                <th scope="col" key={cause}>
                  {CAUSE_LABELS[cause]}
                </th>
              ))}
              {anyUnscored && <th scope="col">Not scored (not wrong)</th>}
            </tr>
          </thead>
          <tbody>
            {strategies.map((s) => (
              <tr key={s.strategyId} data-strategy={s.strategyId}>
                <th scope="row">{labelOf(s.strategyId)}</th>
                <td data-col="wrong">{s.wrong}</td>
                {causes.map((cause) => (
                  <td key={cause} data-col={cause}>
                    {s.causes[cause]}
                  </td>
                ))}
                {anyUnscored && <td data-col="unscored">{s.unscored}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {workers.length > 0 && (
        <>
          <p class="small muted">
            Each worker's step answers, in every strategy, scored as if each were the final answer (a step
            asked only for a plan counts as not right):
          </p>
          <ul class="bench-worker-rates" data-testid="worker-rates">
            {workers.map((w) => (
              <li key={w.workerId} data-worker={w.workerId}>
                {workerLabelOf(w.workerId)}: {w.right} of {w.answers} right (
                {Math.round((w.right / w.answers) * 100)}%)
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
