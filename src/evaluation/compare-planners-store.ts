import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { PlannerItemScore } from './compare-planners.ts';

export const PLANNER_COMPARE_DB_NAME = 'baton-planner-compare';

/** One question's score for one conductor model, and when it was measured. */
export interface StoredPlannerScore extends PlannerItemScore {
  /** The model's display name (src/app/conductor.ts `modelLabel`): the key a user compares by. */
  model: string;
  at: number;
}

interface PlannerCompareDB extends DBSchema {
  scores: { key: [string, string]; value: StoredPlannerScore; indexes: { model: string } };
}

/**
 * Planner-comparison scores, one record per (model, question): a later run on the same model replaces that
 * question's score, so a sample of 10 then the whole set adds up rather than counting questions twice. A
 * database of its own, not the bench's: its records are not bench runs, and the bench's schema stays as is.
 */
export class PlannerCompareStore {
  private constructor(private readonly db: IDBPDatabase<PlannerCompareDB>) {}

  static async open(name = PLANNER_COMPARE_DB_NAME): Promise<PlannerCompareStore> {
    const db = await openDB<PlannerCompareDB>(name, 1, {
      upgrade(db) {
        db.createObjectStore('scores', { keyPath: ['model', 'questionId'] }).createIndex('model', 'model');
      },
    });
    return new PlannerCompareStore(db);
  }

  async put(score: StoredPlannerScore): Promise<void> {
    await this.db.put('scores', score);
  }

  /** Every model's scores, models by name (a stable order to compare by), scores as measured. */
  async byModel(): Promise<Map<string, StoredPlannerScore[]>> {
    const all = (await this.db.getAll('scores')).sort(
      (a, b) => a.model.localeCompare(b.model) || a.at - b.at,
    );
    const out = new Map<string, StoredPlannerScore[]>();
    for (const score of all) {
      const list = out.get(score.model) ?? [];
      list.push(score);
      out.set(score.model, list);
    }
    return out;
  }

  async deleteModel(model: string): Promise<void> {
    const tx = this.db.transaction('scores', 'readwrite');
    for (const key of await tx.store.index('model').getAllKeys(model)) await tx.store.delete(key);
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}
