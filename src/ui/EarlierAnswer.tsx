import { useEffect, useMemo, useState } from 'preact/hooks';
import { findCitations } from '../attachments/passage-cites.ts';
import type { Attachment } from '../attachments/types.ts';
import { finalStepIndex } from '../executor/step-status.ts';
import type { RunSummary, StepRecord } from '../records/runs-db.ts';
import { useAppState } from './app-context.ts';
import { CitedAnswer } from './CitedAnswer.tsx';

interface TurnCites {
  steps: readonly StepRecord[];
  step: number;
  fileOf: (id: string) => Promise<Attachment | undefined>;
}

const NO_STEPS: readonly StepRecord[] = [];

/**
 * An earlier turn's final answer, its citations of the passages its run sent linked as the last turn's
 * are. The summary has no steps: the turn's run is read from the store only when the answer has something
 * that looks like a citation, so a long thread opens with one read per citing turn at most.
 */
export function EarlierAnswer({ summary, text }: { summary: RunSummary; text: string }) {
  const app = useAppState();
  const [cites, setCites] = useState<TurnCites | undefined>();
  const citing = useMemo(() => findCitations(text).length > 0, [text]);
  useEffect(() => {
    if (!citing) return;
    let live = true;
    void (async () => {
      const stored = await (await app.services.runStore()).getRun(summary.id).catch(() => undefined);
      const final = stored && finalStepIndex(stored.steps);
      if (!live || !stored || final === undefined) return;
      const { id, attachments } = stored.run;
      setCites({
        steps: stored.steps,
        step: stored.steps[final]?.index ?? final,
        fileOf: (file) => app.runs.fileOf(id, attachments, file),
      });
    })();
    return () => {
      live = false;
    };
  }, [summary.id, citing, app]);
  return (
    <CitedAnswer
      text={text}
      steps={cites?.steps ?? NO_STEPS}
      step={cites?.step ?? 0}
      fileOf={cites?.fileOf}
    />
  );
}
