import { formatDuration, formatTime } from '../../app/format.ts';
import { namerFor } from '../../app/worker-names.ts';
import type { BenchItemResult } from '../../evaluation/bench-item.ts';
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import type { Interval, PairedComparison } from '../../evaluation/stats.ts';
import { strategyLabel } from '../../evaluation/strategies.ts';
import {
  compareReadingPairs,
  compareWithBestSingle,
  notScoredCauses,
  type StrategySummary,
  summarize,
} from '../../evaluation/summary.ts';
import { formatBytes } from '../../shared/format-bytes.ts';
import { formatCost } from '../../shared/format-cost.ts';
import { labelsOf } from '../../shared/worker-ids.ts';
import { AccuracyCostChart, TokensByWorkerChart } from './charts.tsx';
import { MissedItems } from './MissedItems.tsx';
import { WrongCauses } from './WrongCauses.tsx';

/** "75% (3/4)", over the scored items only; a dash when none could be scored. */
export function accuracyText(s: Pick<StrategySummary, 'accuracy' | 'correct' | 'scored'>): string {
  if (s.accuracy === undefined) return '— (none scored)';
  return `${Math.round(s.accuracy * 100)}% (${s.correct}/${s.scored})`;
}

const tokens = (n: number) => String(Math.round(n));

const percent = (x: number) => `${Math.round(x * 100)}%`;
export const intervalText = (ci: Interval | undefined) =>
  ci ? `${percent(ci.low)}–${percent(ci.high)}` : '—';

const points = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(Math.round(x * 100))}`;

/** "+12 points (−3 to +27), 5 won, 1 lost": a gain whose interval includes 0 is called noise in words too. */
export function comparisonText(c: PairedComparison): string {
  const range = `${points(c.interval.low)} to ${points(c.interval.high)}`;
  const verdict = c.interval.low > 0 ? 'better' : c.interval.high < 0 ? 'worse' : 'no clear difference';
  return `${points(c.difference)} points (${range}), ${c.wins} won, ${c.losses} lost: ${verdict}`;
}

/** One bench run's results: the table per strategy (the charts' text alternative) and both charts. */
export function ResultsPanel({
  run,
  results,
  title,
  testid,
}: {
  run: BenchRunRecord;
  results: readonly BenchItemResult[];
  title: string;
  testid: string;
}) {
  const summaries = summarize(results);
  // Strategies without results yet keep their place in the order they were chosen.
  const order = run.strategies.map((s) => s.id);
  summaries.sort((a, b) => order.indexOf(a.strategyId) - order.indexOf(b.strategyId));
  const workerLabelOf = namerFor(labelsOf(run.pool));
  // Named from the bench's own pool, so a bench stored with ids in its names reads with labels too.
  const labels = new Map(run.strategies.map((s) => [s.id, strategyLabel(s.config, workerLabelOf)]));
  const labelOf = (id: string) => labels.get(id) ?? id;
  const versus = compareWithBestSingle(results, run.strategies);
  const reading = compareReadingPairs(results, run.strategies);
  const documentSent = summaries.some((s) => s.documentBytesPerItem !== undefined);
  const captionId = `${testid}-caption`;
  /** What the cause table and the item list both read: one classification, one set of names. */
  const items = { results, tasks: run.tasks, strategyOrder: order, labelOf, workerLabelOf };
  const notScored = notScoredCauses(results);
  const unscored = notScored.reduce((sum, c) => sum + c.items, 0);
  return (
    <section class="card bench-results" data-testid={testid} data-run={run.id} aria-labelledby={captionId}>
      <h3 id={captionId}>
        {title}: {run.name}
      </h3>
      <p class="small muted">
        {formatTime(run.createdAt)} · {run.tasks.length} task{run.tasks.length === 1 ? '' : 's'} ·{' '}
        {results.length} of {run.tasks.length * run.strategies.length} items · {run.state}
        {run.stopReason ? ` — ${run.stopReason}` : ''}
      </p>
      {summaries.length === 0 ? (
        <p class="muted">No results yet.</p>
      ) : (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than its column (side by side) must be keyboard-scrollable (axe scrollable-region-focusable) */}
          <section class="table-wrap" tabIndex={0} aria-label={`Results per strategy: ${run.name}`}>
            <table class="data" data-testid="results-table">
              <caption class="visually-hidden">Results per strategy</caption>
              <thead>
                <tr>
                  <th scope="col">Strategy</th>
                  <th scope="col">Accuracy</th>
                  <th scope="col">95% interval</th>
                  {versus && <th scope="col">Against {labelOf(versus.bestId)}, same items</th>}
                  {reading.size > 0 && <th scope="col">Passages against whole, same items</th>}
                  <th scope="col">Tokens per task</th>
                  {documentSent && <th scope="col">Document sent per task</th>}
                  <th scope="col">Cost</th>
                  <th scope="col">Latency median</th>
                  <th scope="col">Latency p90</th>
                  <th scope="col">Failures</th>
                  {unscored > 0 && <th scope="col">Not scored</th>}
                </tr>
              </thead>
              <tbody>
                {summaries.map((s) => (
                  <tr key={s.strategyId} data-strategy={s.strategyId}>
                    <th scope="row">{labelOf(s.strategyId)}</th>
                    <td data-col="accuracy">{accuracyText(s)}</td>
                    <td data-col="interval">{intervalText(s.accuracyInterval)}</td>
                    {versus && (
                      <td data-col="vs-best">
                        {s.strategyId === versus.bestId
                          ? 'best single worker'
                          : versus.against.get(s.strategyId)
                            ? comparisonText(versus.against.get(s.strategyId)!)
                            : '—'}
                      </td>
                    )}
                    {reading.size > 0 && (
                      <td data-col="vs-whole">
                        {reading.get(s.strategyId) ? comparisonText(reading.get(s.strategyId)!) : '—'}
                      </td>
                    )}
                    <td data-col="tokens">{tokens(s.tokensPerItem)}</td>
                    {documentSent && (
                      <td data-col="document-sent">
                        {s.documentBytesPerItem !== undefined ? formatBytes(s.documentBytesPerItem) : '—'}
                      </td>
                    )}
                    <td data-col="cost">{formatCost(s.cost)}</td>
                    <td data-col="latency-median">{formatDuration(s.latencyMedianMs)}</td>
                    <td data-col="latency-p90">{formatDuration(s.latencyP90Ms)}</td>
                    <td data-col="failures">{s.failures}</td>
                    {unscored > 0 && <td data-col="unscored">{s.unscored}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {unscored > 0 && (
            <div class="alert" data-kind="warn" data-testid="bench-not-scored">
              <p style={{ margin: 0 }}>
                {unscored} item{unscored === 1 ? ' was' : 's were'} not scored, so{' '}
                {unscored === 1 ? 'it is' : 'they are'} left out of accuracy, intervals and the comparison
                (not counted as wrong):
              </p>
              <ul data-testid="not-scored-causes">
                {notScored.map((c) => (
                  <li key={c.cause}>
                    {c.items} × {c.cause}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {versus && (
            <p class="small muted">
              The interval is where the true accuracy lies with 95% confidence (Wilson). Against the best
              single worker, each strategy is compared on the items both answered: points gained, a 95%
              interval for the gain (paired), and the items it got right where that worker did not (won) and
              the reverse (lost). A gain whose interval includes 0 may be noise; run more items.
            </p>
          )}
          <WrongCauses {...items} />
          <MissedItems {...items} />
          <div class="bench-charts">
            <AccuracyCostChart summaries={summaries} labelOf={labelOf} />
            <TokensByWorkerChart
              summaries={summaries}
              labelOf={labelOf}
              workers={run.pool.map((w) => w.id)}
              workerLabelOf={workerLabelOf}
            />
          </div>
        </>
      )}
    </section>
  );
}
