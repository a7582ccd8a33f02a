import { singleWorkerOf } from '../../learning/outcome.ts';
import type { RunView } from './run-model.ts';

/**
 * How a run was answered, in the run's header: "Walker general, directly" for a question the user sent to
 * one worker (Direct mode), else its mode ("router", "conductor").
 */
export function modeText(view: Pick<RunView, 'mode' | 'chosenBy' | 'workerLabels'>): string {
  const worker = view.chosenBy?.by === 'user' ? singleWorkerOf(view.chosenBy.strategy) : undefined;
  if (worker === undefined) return view.mode;
  return `${view.workerLabels?.[worker] ?? worker}, directly`;
}
