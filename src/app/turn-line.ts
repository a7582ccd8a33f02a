import type { StoredRunStatus } from '../records/runs-db.ts';
import { SELF_WORKER } from '../shared/worker-ids.ts';
import { ESTIMATED, formatDuration } from './format.ts';
import { costText } from './price-text.ts';
import { liveTotals, type RunView, runElapsed } from './runs/run-model.ts';
import { statusText } from './status-text.ts';
import { workerDisplayName } from './worker-names.ts';

/**
 * The one quiet line under an answer, which opens its plan, graph, timeline, steps, costs and ledger rows:
 * "3 steps · 2 workers · $0.0003 · 6 s", or "Walker general, directly · $0.0003 · 6 s" for a run of one step
 * by one worker; a run that did not end well says so in words ("· stopped at step 2"). While the run is
 * live, the compact progress line instead: what is happening now, what it has cost so far.
 */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A cost, marked ≈ when some of it is an estimate; none known (workers without a price) said in words. */
function costWords(cost: number, unpriced: number, estimated: boolean | undefined): string {
  const text = costText(cost, unpriced);
  return text === 'unknown' ? 'cost unknown' : `${estimated ? ESTIMATED : ''}${text}`;
}

/** What the run's steps have cost so far. */
function spent(view: RunView): string {
  const totals = view.totals ?? liveTotals(view.steps);
  return costWords(totals.cost, totals.unpriced ?? 0, totals.estimated);
}

/** How a run that did not end well ended, in words, and at which step (its number, from 1). */
function endedText(view: RunView): string | undefined {
  const status = view.phase;
  if (status === 'interrupted') return 'interrupted';
  if (status !== 'partial' && status !== 'failed' && status !== 'cancelled') return undefined;
  const words = statusText(status as StoredRunStatus);
  const step = view.steps.find((s) => s.state === 'failed' || s.state === 'cancelled');
  if (!step) return words;
  return `${words}${status === 'partial' ? ': step' : ' at step'} ${step.index + 1}`;
}

/** The quiet line of an ended run (`now`: the clock its time is read at, for a run without an end). */
export function turnLine(view: RunView, now: number): string {
  const labels = view.workerLabels ?? {};
  const workers = [...new Set(view.steps.map((s) => s.worker).filter((w) => w !== SELF_WORKER))];
  const only = workers[0];
  // A run that ended before any step (its planning failed, or it was stopped then): how it ended, alone.
  if (view.steps.length === 0) {
    const ended = endedText(view);
    return ended ? `No step ran · ${ended}` : 'No step ran';
  }
  const head =
    view.steps.length === 1 && only !== undefined
      ? `${workerDisplayName(only, labels)}, directly`
      : `${plural(view.steps.length, 'step')} · ${plural(workers.length, 'worker')}`;
  const parts = [head, spent(view), formatDuration(runElapsed(view, now))];
  const ended = endedText(view);
  if (ended) parts.push(ended);
  return parts.join(' · ');
}

/** The compact progress line of a live run: planning, or which steps run now, and the spend so far. */
export function progressLine(view: RunView, now: number): string {
  const time = formatDuration(runElapsed(view, now));
  if (view.phase === 'planning') {
    const planned = view.plannedSteps.length;
    return [
      'Planning on this device',
      ...(planned > 0 ? [`${plural(planned, 'step')} planned`] : []),
      time,
    ].join(' · ');
  }
  const labels = view.workerLabels ?? {};
  const total = Math.max(view.steps.length, view.plannedSteps.length);
  const done = view.steps.filter((s) => s.state === 'done').length;
  const running = view.steps.filter((s) => s.state === 'running');
  // "Step 2: Walker general, step 3: Writer": who is writing now.
  const current =
    running.length === 0
      ? 'Waiting'
      : running
          .map(
            (s, i) => `${i === 0 ? 'Step' : 'step'} ${s.index + 1}: ${workerDisplayName(s.worker, labels)}`,
          )
          .join(', ');
  const failed = view.steps.filter((s) => s.state === 'failed').length;
  return [
    current,
    `${done} of ${plural(total, 'step')} done`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    spent(view),
    time,
  ].join(' · ');
}

/**
 * The quiet line of an earlier turn, from what History keeps of it (its summary): steps, spend, and how it
 * ended when not well. The full line is the turn's own, once it is opened.
 */
export function summaryLine(summary: {
  steps: number;
  cost: number;
  unpriced?: true;
  estimated?: true;
  status: StoredRunStatus;
}): string {
  const parts = [
    plural(summary.steps, 'step'),
    costWords(summary.cost, summary.unpriced ? 1 : 0, summary.estimated),
  ];
  if (summary.status !== 'done') parts.push(statusText(summary.status));
  return parts.join(' · ');
}
