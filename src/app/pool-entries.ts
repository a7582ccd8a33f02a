import type { PoolEntry } from '../shared/conductor-api.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { callsTools } from '../tools/tool-workers.ts';

/**
 * What the conductor is told about the pool: ids, the user's labels, strengths, cost tiers, who searches, who
 * takes images, and (with `tools`: some are offered) who calls tools.
 */
export function poolEntries(pool: readonly WorkerSpec[], tools = false): PoolEntry[] {
  return pool.map((w) => {
    const entry: PoolEntry = { id: w.id, label: w.label, strengths: w.strengths };
    if (w.costTier) entry.costTier = w.costTier;
    if (w.webSearch) entry.webSearch = true;
    if (w.vision) entry.vision = true;
    if (tools && callsTools(w)) entry.tools = true;
    return entry;
  });
}
