import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RunView } from '../app/runs/run-model.ts';
import { viewFromRecord } from '../app/runs/stored-view.ts';
import { findCitations } from '../attachments/passage-cites.ts';
import type { RunSummary } from '../records/runs-db.ts';
import { useAppState } from './app-context.ts';
import { CitedAnswer } from './CitedAnswer.tsx';

const NO_STEPS: RunView['steps'] = [];

/**
 * An earlier turn's final answer, its citations of the passages its run sent linked as the last turn's
 * are. The summary has no steps: the turn's run is read from the store only when the answer has something
 * that looks like a citation, so a long thread opens with one read per citing turn at most. Its view is the
 * stored run's as every screen reads it (`viewFromRecord`: its steps, its final step).
 */
export function EarlierAnswer({ summary, text }: { summary: RunSummary; text: string }) {
  const app = useAppState();
  const [view, setView] = useState<RunView | undefined>();
  const citing = useMemo(() => findCitations(text).length > 0, [text]);
  useEffect(() => {
    if (!citing) return;
    let live = true;
    void (async () => {
      const stored = await (await app.services.runStore()).getRun(summary.id).catch(() => undefined);
      if (live && stored) setView(viewFromRecord(stored.run, stored.steps));
    })();
    return () => {
      live = false;
    };
  }, [summary.id, citing, app]);
  const final = view?.finalStep === undefined ? undefined : view.steps[view.finalStep];
  if (!view || !final) return <CitedAnswer text={text} steps={NO_STEPS} step={0} fileOf={undefined} />;
  return (
    <CitedAnswer
      text={text}
      steps={view.steps}
      step={final.index}
      fileOf={(file) => app.runs.fileOf(view.id, view.attachments, file)}
    />
  );
}
