import { useState } from 'preact/hooks';
import type { RunView } from '../app/runs/run-model.ts';
import { viewFromRecord } from '../app/runs/stored-view.ts';
import { summaryLine } from '../app/turn-line.ts';
import type { RunSummary } from '../records/runs-db.ts';
import { useAppState } from './app-context.ts';
import { RunMachinery } from './lazy.tsx';

/**
 * An earlier turn's quiet line (its steps, spend and how it ended, from its summary), which opens that
 * turn's plan, graph, timeline, steps and requests in place: its run is read from the store only then.
 */
export function EarlierTurnLine({ summary }: { summary: RunSummary }) {
  const app = useAppState();
  const [open, setOpen] = useState(false);
  const [view, setView] = useState<RunView | { problem: string } | undefined>();
  const id = `machinery-${summary.id}`;
  const toggle = async () => {
    setOpen(!open);
    if (open || view) return;
    const stored = await (await app.services.runStore()).getRun(summary.id).catch(() => undefined);
    setView(stored ? viewFromRecord(stored.run, stored.steps) : { problem: 'This turn could not be read.' });
  };
  return (
    <>
      <button
        type="button"
        class="link turn-line"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => void toggle()}
        data-testid="turn-line"
      >
        {summaryLine(summary)}
      </button>
      <div id={id}>
        {open &&
          (view === undefined ? (
            <p class="muted small" aria-busy="true">
              Reading this turn…
            </p>
          ) : 'problem' in view ? (
            <p class="alert small" data-kind="error">
              {view.problem}
            </p>
          ) : (
            <RunMachinery
              view={view}
              workerOrder={view.workerOrder ?? []}
              actions={{ fileOf: (file) => app.runs.fileOf(view.id, view.attachments, file) }}
              now={view.endedAt ?? view.startedAt}
            />
          ))}
      </div>
    </>
  );
}
