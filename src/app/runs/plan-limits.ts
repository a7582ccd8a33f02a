import { SELF_WORKER } from '../../pool/types.ts';
import type { PlanLimits, ValidateOptions } from '../../shared/plan/index.ts';

/** Validation options for a plan over `workers`, whose messages name the workers by their labels alone. */
export function poolValidateOptions(
  workers: readonly { id: string; label: string }[],
  limits: PlanLimits,
): ValidateOptions {
  const workerLabels: Record<string, string> = {};
  for (const w of workers) if (w.id !== SELF_WORKER) workerLabels[w.id] = w.label;
  return {
    workerIds: workers.filter((w) => w.id !== SELF_WORKER).map((w) => w.id),
    workerLabels,
    labelsOnly: true,
    maxSteps: limits.maxSteps,
    allowSelf: limits.allowSelf,
  };
}
