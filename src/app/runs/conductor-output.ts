import type { RunView } from './run-model.ts';

/**
 * Whether the conductor is still writing the run's plan, so its output is shown: from the question until the
 * plan is written (`planStats`). Steps streamed to the executor run before that (phase `running`) while the
 * conductor goes on; shown only until the first step started, its output was never drawn at all when the
 * tokens and that step came between two draws (a busy page), though the rest of the plan took seconds.
 */
export function conductorWriting(view: RunView): boolean {
  if (view.phase === 'planning') return true;
  return view.phase === 'running' && view.planText !== '' && view.planStats === undefined;
}
