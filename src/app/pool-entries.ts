import type { PoolEntry } from '../shared/conductor-api.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/** What the conductor is told about the pool: ids, the user's labels, strengths, cost tiers, who searches, who takes images. */
export function poolEntries(pool: readonly WorkerSpec[]): PoolEntry[] {
  return pool.map((w) => {
    const entry: PoolEntry = { id: w.id, label: w.label, strengths: w.strengths };
    if (w.costTier) entry.costTier = w.costTier;
    if (w.webSearch) entry.webSearch = true;
    if (w.vision) entry.vision = true;
    return entry;
  });
}
