import { SELF_WORKER } from '../../pool/types.ts';
import type { PlanMode } from '../../shared/conductor-api.ts';
import type { ValidateOptions } from '../../shared/plan/index.ts';
import type { PlanPrefs } from '../prefs.ts';

/** The limits a first plan is written and checked under: the conductor's and the review's are the same. */
export interface PlanLimits {
  maxSteps: number;
  /** A first plan may hand a step to the conductor itself (`self`, a self-check). */
  allowSelf: boolean;
}

/**
 * The rule the conductor thread plans by (`planPrompt`): the router writes one step and never recurses;
 * otherwise `self` is allowed while the user allows any depth of self-checks.
 */
export function planLimits(mode: PlanMode, prefs: PlanPrefs): PlanLimits {
  if (mode === 'router') return { maxSteps: 1, allowSelf: false };
  return { maxSteps: prefs.maxSteps, allowSelf: prefs.maxDepth > 0 };
}

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
