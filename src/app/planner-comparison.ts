import { signal } from '@preact/signals';
import { type PlannerSummary, summarizePlanner } from '../evaluation/compare-planners.ts';
import {
  type ComparisonProgress,
  type ComparisonRun,
  runPlannerComparison,
  type StatsConductor,
} from '../evaluation/compare-planners-run.ts';
import type { PlannerCompareStore, StoredPlannerScore } from '../evaluation/compare-planners-store.ts';
import { plannerSample } from '../evaluation/planner-set.ts';
import { type StoreSource, screenStore } from './screen-store.ts';

/** One model's row: its five figures over every question it was measured on, and the last measure's time. */
export interface PlannerRow {
  model: string;
  summary: PlannerSummary;
  lastAt: number;
  /** Each question's score, to show why a figure is what it is. */
  scores: StoredPlannerScore[];
}

export interface PlannerComparisonOptions extends StoreSource<PlannerCompareStore> {
  /** Opens the store (IndexedDB `baton-planner-compare` on the page). */
  openStore: () => Promise<PlannerCompareStore>;
}

export type PlannerComparison = ReturnType<typeof createPlannerComparison>;

/**
 * "Compare planners"' state and actions: the stored rows per model, running the set (a sample of it) on
 * the loaded conductor with progress and cancel, forgetting a model. The screen only shows them.
 */
export function createPlannerComparison(options: PlannerComparisonOptions) {
  const held = screenStore(options);
  const { store } = held;
  const storeError = signal<string | undefined>(undefined);
  const rows = signal<PlannerRow[]>([]);
  /** The last run started here, and the model it measures: its progress stays shown once it ends. */
  const progress = signal<{ model: string; progress: ComparisonProgress } | undefined>(undefined);
  let active: ComparisonRun | undefined;

  async function refresh(): Promise<void> {
    const s = store.value;
    if (!s) return;
    const grouped = await s.byModel();
    rows.value = [...grouped].map(([model, scores]) => ({
      model,
      summary: summarizePlanner(scores),
      lastAt: Math.max(...scores.map((score) => score.at)),
      scores,
    }));
  }

  async function open(): Promise<void> {
    try {
      if (await held.open()) await refresh();
    } catch (error) {
      storeError.value = `Scores cannot be kept here (they are shown until you leave): ${(error as Error).message}`;
    }
  }

  /** Plans the first `size` questions of the set on `conductor`, storing each score under `model`. */
  function run(conductor: StatsConductor, model: string, size: number): ComparisonRun | undefined {
    if (active) return undefined;
    const questions = plannerSample(size);
    // Without a store the scores of this run are still shown, kept in memory.
    const unstored: StoredPlannerScore[] = [];
    const runner = runPlannerComparison({
      conductor,
      questions,
      onScore: async (score) => {
        const stored = { ...score, model, at: Date.now() };
        const s = store.value;
        if (s) {
          await s.put(stored);
          await refresh();
        } else {
          unstored.push(stored);
          rows.value = [
            ...rows.value.filter((r) => r.model !== model),
            { model, summary: summarizePlanner(unstored), lastAt: stored.at, scores: [...unstored] },
          ];
        }
      },
      onProgress: (p) => {
        progress.value = { model, progress: p };
      },
    });
    active = runner;
    void runner.finished.then(() => {
      if (active === runner) active = undefined;
    });
    return runner;
  }

  async function forget(model: string): Promise<void> {
    const s = store.value;
    if (!s || progress.value?.progress.state === 'running') return;
    await s.deleteModel(model);
    await refresh();
  }

  /** Leaving the page stops the run: the question in progress has no score, the stored ones stay. */
  function close(): void {
    active?.cancel();
    held.close();
  }

  return { store, storeError, rows, progress, open, run, forget, close, cancel: () => active?.cancel() };
}
