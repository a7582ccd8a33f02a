import { RUN_WORKER, SELF_WORKER } from '../worker-ids.ts';
import { quote } from './describe.ts';
import { imagesRefused, type PlanFiles } from './files.ts';
import type { Plan, Sees, Step } from './schema.ts';
import { issueWorkerName } from './validate.ts';

/**
 * Checks of a valid plan before it runs, deterministic and pure: the plan is well formed (validate.ts),
 * but would it waste the user's money or fail half way? `self` anywhere but last is already rejected by
 * validation (`self-not-last`), so it never reaches these checks.
 *
 * - `unread-step`: a step (not the last) whose answer no later step reads is paid for and thrown away.
 *   Dropped; a step read only by dropped steps is dropped too.
 * - `blind-last-step`: the last step sees nothing while earlier steps exist, so the final answer uses none
 *   of them. Fixed by letting it see every earlier step (the likeliest intent: a last step that checks
 *   or combines), which also keeps them from being dropped as unread.
 * - `no-key` / `vault-locked`: a step's worker has no key saved, or the vault is locked. The
 *   run cannot work; it must fail before anything is sent, naming the worker.
 * - `image-to-text-worker`: a step gives an attached image to a worker that takes no images (a plan the
 *   user edited, or a worker changed since). Blocks before anything is sent, naming the step and worker.
 * - `run-sees-no-code`: a `run` step sees only steps that cannot hold code (other `run` steps, `self`):
 *   it will answer "No code to run". Only warned: nothing is spent. Whether a worker's answer will hold code
 *   cannot be known before it answers; then the run step itself says so (src/executor/run-step.ts). A `run`
 *   step that sees no step at all is no valid plan (validate.ts, `run-sees-nothing`).
 */
export type PlanCheckRule =
  | 'unread-step'
  | 'blind-last-step'
  | 'no-key'
  | 'vault-locked'
  | 'image-to-text-worker'
  | 'run-sees-no-code';

export interface PlanFinding {
  rule: PlanCheckRule;
  /** The step it is about, numbered as in the plan that was checked. */
  stepIndex: number;
  /** What is wrong, naming the worker by the user's label. */
  message: string;
  /** What the fixed plan does about it, or (when `blocking`) what the user must do. */
  fix: string;
  /** The plan cannot run until the user acts (no fix is possible here). */
  blocking: boolean;
}

export interface PlanCheckOptions {
  /** The user's names for the workers, by id. */
  workerLabels?: Readonly<Record<string, string>>;
  /**
   * Whether a worker can authenticate: a key is saved for it, or its provider needs none. Without it no
   * key check is made (planning only, or a pool of local workers).
   */
  hasKey?: (workerId: string) => boolean;
  /**
   * The vault is locked (the user declined to unlock it): egress sends nothing to a cloud worker then (it
   * needs the keys to send, and to check a request carries none of them).
   */
  vaultLocked?: boolean;
  /** Whether a worker goes through the vault at all (default: every worker); the on-device one does not. */
  needsVault?: (workerId: string) => boolean;
  /** The question's attached files: without it no file is checked. */
  files?: PlanFiles;
}

export interface PlanCheck {
  /** The plan with every fix applied (the input when nothing needed fixing). */
  plan: Plan;
  findings: PlanFinding[];
  /** Indices (in the checked plan) of the steps the fixed plan leaves out. */
  dropped: number[];
  /** Some finding blocks the run: run neither `plan` nor the original. */
  blocked: boolean;
}

function reads(sees: Sees, index: number): boolean {
  return sees === 'all' || sees.includes(index);
}

/** `steps` without the steps in `drop`, each `sees` renumbered so it points at the same steps as before. */
function without(steps: readonly Step[], drop: ReadonlySet<number>): Step[] {
  const newIndex: number[] = [];
  let next = 0;
  for (let i = 0; i < steps.length; i++) newIndex[i] = drop.has(i) ? -1 : next++;
  return steps.flatMap((step, i): Step[] => {
    if (drop.has(i)) return [];
    if (step.sees === 'all') return [step];
    return [{ ...step, sees: step.sees.filter((s) => !drop.has(s)).map((s) => newIndex[s] as number) }];
  });
}

/** The findings about `plan`, and the plan with the fixes applied. */
export function checkPlan(plan: Plan, options: PlanCheckOptions = {}): PlanCheck {
  const findings: PlanFinding[] = [];
  // What the checks find is read by the user: workers by their labels alone.
  const name = (id: string) =>
    issueWorkerName(id, { workerLabels: options.workerLabels ?? {}, labelsOnly: true });
  const steps = plan.steps.map((step) => ({ ...step }));
  const last = steps.length - 1;

  for (const [index, step] of steps.entries()) {
    if (step.worker !== RUN_WORKER) continue;
    const seen = step.sees === 'all' ? steps.slice(0, index) : step.sees.map((at) => steps[at]);
    if (seen.length > 0 && seen.every((s) => s?.worker === RUN_WORKER || s?.worker === SELF_WORKER)) {
      findings.push({
        rule: 'run-sees-no-code',
        stepIndex: index,
        message: `Step ${index} (${name(step.worker)}) sees only steps that write no code, so it will answer "No code to run".`,
        fix: 'Nothing was changed: let it see the step that writes the code.',
        blocking: false,
      });
    }
  }

  for (const [index, step] of steps.entries()) {
    if (step.worker === SELF_WORKER) continue;
    if (options.vaultLocked && (options.needsVault?.(step.worker) ?? true)) {
      findings.push({
        rule: 'vault-locked',
        stepIndex: index,
        message: `Step ${index} goes to ${name(step.worker)}, and the vault is locked: nothing can be sent while it is.`,
        fix: 'Unlock the vault with your passphrase, then run again.',
        blocking: true,
      });
    } else if (options.hasKey && !options.hasKey(step.worker)) {
      findings.push({
        rule: 'no-key',
        stepIndex: index,
        message: `Step ${index} goes to ${name(step.worker)}, which has no API key saved.`,
        fix: `Add a key for ${name(step.worker)} in Settings, or give the step to another worker.`,
        blocking: true,
      });
    }
  }

  for (const [index, step] of steps.entries()) {
    if (step.worker === SELF_WORKER || !options.files) continue;
    const refused = imagesRefused(step.worker, step.files, options.files);
    if (refused.length === 0) continue;
    const names = refused.map((i) => {
      const fileName = options.files?.names?.[i];
      return fileName !== undefined ? quote(fileName) : `file ${i}`;
    });
    findings.push({
      rule: 'image-to-text-worker',
      stepIndex: index,
      message: `Step ${index} would send ${refused.length === 1 ? 'the image' : 'the images'} ${names.join(', ')} to ${name(step.worker)}, which takes no images.`,
      fix: 'Give the image to a worker that takes images, or leave it out of this step.',
      blocking: true,
    });
  }

  const lastStep = steps[last];
  if (lastStep && last > 0 && lastStep.worker !== SELF_WORKER && Array.isArray(lastStep.sees)) {
    if (lastStep.sees.length === 0) {
      findings.push({
        rule: 'blind-last-step',
        stepIndex: last,
        message: `The last step (${name(lastStep.worker)}) gives the final answer but sees no earlier step, so the work of the ${last === 1 ? 'step' : `${last} steps`} before it would be wasted.`,
        fix: 'The last step now sees every earlier step.',
        blocking: false,
      });
      steps[last] = { ...lastStep, sees: 'all' };
    }
  }

  // A `self` step reads every answer (the conductor checks the whole workflow), whatever its `sees`.
  const drop = new Set<number>();
  let changed = true;
  while (changed) {
    changed = false;
    for (let index = last - 1; index >= 0; index--) {
      if (drop.has(index)) continue;
      const readers = steps.slice(index + 1).filter((later, offset) => {
        const at = index + 1 + offset;
        return !drop.has(at) && (later.worker === SELF_WORKER || reads(later.sees, index));
      });
      if (readers.length === 0) {
        drop.add(index);
        changed = true;
      }
    }
  }
  for (const index of [...drop].sort((a, b) => a - b)) {
    const step = steps[index] as Step;
    const readByDropped = steps.some((later, at) => at > index && drop.has(at) && reads(later.sees, index));
    findings.push({
      rule: 'unread-step',
      stepIndex: index,
      message: readByDropped
        ? `Step ${index} (${name(step.worker)}) is read only by steps that are themselves unread, so its answer would be wasted.`
        : `No later step reads the answer of step ${index} (${name(step.worker)}), and it is not the last step, so its work would be wasted.`,
      fix: `Step ${index} is left out.`,
      blocking: false,
    });
  }

  const fixedSteps = drop.size > 0 ? without(steps, drop) : steps;
  const changedPlan = drop.size > 0 || findings.some((f) => f.rule === 'blind-last-step');
  const fixed: Plan = changedPlan ? { ...plan, steps: fixedSteps } : plan;
  findings.sort((a, b) => a.stepIndex - b.stepIndex || a.rule.localeCompare(b.rule));
  return {
    plan: fixed,
    findings,
    dropped: [...drop].sort((a, b) => a - b),
    blocked: findings.some((f) => f.blocking),
  };
}

/** One line for the user per finding: what is wrong and what was done about it. */
export function describeFindings(findings: readonly PlanFinding[]): string[] {
  return findings.map((f) => `${f.message} ${f.fix}`);
}
