import { useMemo, useState } from 'preact/hooks';
import { workerColor } from '../app/worker-color.ts';
import type { AttachmentRef } from '../records/runs-db.ts';
import { checkPlan } from '../shared/plan/checks.ts';
import {
  type Files,
  type Plan,
  type PlanIssue,
  type PlanTools,
  poolValidateOptions,
  type Step,
  validatePlan,
} from '../shared/plan/index.ts';
import { labelsOf, SELF_WORKER } from '../shared/worker-ids.ts';
import { PlanWarnings } from './PlanWarnings.tsx';
import { type PreviewFiles, planFilesFrom, StepFilesField } from './StepFilesField.tsx';
import { StepToolsField } from './StepTools.tsx';
import { WorkflowGraph } from './WorkflowGraph.tsx';

export interface EditorWorker {
  id: string;
  label: string;
  /** Takes images: only it may be given an attached image. */
  vision?: boolean;
}

/** The plan's price as the editor shows it: a line per step, the total, and a warning when it is too dear. */
export interface PlanPrice {
  steps: string[];
  total: string;
  /** Set when the total is over the user's spend limit: running will ask first. */
  over?: string;
}

interface DraftStep {
  worker: string;
  task: string;
  /** Checked earlier steps, or 'all'. */
  sees: 'all' | number[];
  /** Kept on its worker: no failover for this step. */
  pin?: boolean;
  /** The attached files it gets. */
  files?: Files;
  /** The tools it may call (`server.tool`). */
  tools?: string[];
}

function toDraft(plan: Plan): DraftStep[] {
  return plan.steps.map((s) => ({
    worker: s.worker,
    task: s.task,
    sees: s.sees === 'all' ? 'all' : [...s.sees],
    ...(s.files !== undefined ? { files: s.files } : {}),
    ...(s.tools?.length ? { tools: [...s.tools] } : {}),
    ...(s.pin ? { pin: true } : {}),
  }));
}

/** The draft as plan steps (`pin` and `tools` only when set), as the price and the run read them. */
function fromDraft(steps: readonly DraftStep[]): Step[] {
  return steps.map(({ pin, tools, ...step }) => ({
    ...step,
    ...(tools?.length ? { tools } : {}),
    ...(pin ? { pin: true } : {}),
  }));
}

/** A worker as the step's worker list names it: its label, with its id only when another has that label too. */
function optionName(worker: EditorWorker, workers: readonly EditorWorker[]): string {
  if (!worker.label) return worker.id;
  const shared = workers.some((w) => w.id !== worker.id && w.label === worker.label);
  return shared ? `${worker.label} (${worker.id})` : worker.label;
}

/**
 * Review and edit a plan before it runs: worker, task and `sees` of every step, steps added, removed or
 * moved. Validated on every keystroke with the plan module's own messages, under the limits the conductor
 * planned by (`allowSelf`: the conductor's own self-check steps); Run is enabled only when valid.
 */
export function PlanEditor({
  plan,
  workers,
  maxSteps,
  allowSelf = false,
  hasKey,
  onRun,
  onDiscard,
  runLabel = 'Run this plan',
  price,
  attachments = [],
  previewFiles,
  tools,
}: {
  plan: Plan;
  workers: readonly EditorWorker[];
  maxSteps: number;
  /** Steps may go to the conductor itself (`self`), as the plan it wrote may. */
  allowSelf?: boolean;
  /** Whether a worker can authenticate; a step for one that cannot blocks Run, naming the worker. */
  hasKey?: (workerId: string) => boolean;
  onRun: (plan: Plan) => void;
  onDiscard?: () => void;
  runLabel?: string;
  /** The price of the plan as it now stands (src/executor/estimate.ts), recomputed on every edit. */
  price?: (steps: readonly Step[]) => PlanPrice;
  /** The question's attached files: each step shows (and the user sets) which it gets. */
  attachments?: readonly AttachmentRef[];
  /** What a step would send of each file: whole, or which passages (each shown, each with a checkbox). */
  previewFiles?: PreviewFiles;
  /** The tools offered and who calls them: a step's tools are refused by name as the conductor's are. */
  tools?: PlanTools;
}) {
  const visionKey = workers.flatMap((w) => (w.vision ? [w.id] : [])).join('\u0001');
  const planFiles = useMemo(
    () =>
      attachments.length > 0
        ? planFilesFrom(
            attachments,
            workers.filter((w) => w.vision).map((w) => w.id),
          )
        : undefined,
    [attachments, visionKey],
  );
  const [thought] = useState(plan.thought);
  const [steps, setSteps] = useState<DraftStep[]>(() => toDraft(plan));
  const workerIds = workers.map((w) => w.id);
  const labels = labelsOf(workers);
  const result = useMemo(
    () =>
      validatePlan(
        { thought, steps },
        {
          ...poolValidateOptions(workers, { maxSteps, allowSelf }),
          // The user reads these messages, and knows the workers by their labels.
          labelsOnly: true,
          selfOnlyLast: true,
          ...(planFiles ? { files: planFiles } : {}),
          ...(tools ? { tools } : {}),
        },
      ),
    [
      tools,
      planFiles,
      steps,
      thought,
      workers.map((w) => `${w.id}\u0000${w.label}`).join('\u0001'),
      maxSteps,
      allowSelf,
    ],
  );
  const shownPrice = useMemo(() => price?.(fromDraft(steps)), [price, steps]);
  // Wasted work is a warning here: the user decides, and may apply the fixes (checks.ts) before running.
  const check = useMemo(
    () =>
      result.ok
        ? checkPlan(result.plan, {
            workerLabels: labels,
            ...(hasKey ? { hasKey } : {}),
            ...(planFiles ? { files: planFiles } : {}),
          })
        : undefined,
    [result, workers, hasKey],
  );
  const choosable = allowSelf ? [...workerIds, SELF_WORKER] : workerIds;
  const issues: PlanIssue[] = result.ok ? [] : result.issues;
  const issuesFor = (index: number) => issues.filter((issue) => issue.step === index);
  const planIssues = issues.filter((issue) => issue.step === undefined);

  const update = (index: number, patch: Partial<DraftStep>) =>
    setSteps((current) => current.map((step, i) => (i === index ? { ...step, ...patch } : step)));

  const toggleSee = (index: number, seen: number, on: boolean) => {
    const step = steps[index]!;
    const list = step.sees === 'all' ? Array.from({ length: index }, (_, i) => i) : step.sees;
    const next = on ? [...new Set([...list, seen])].sort((a, b) => a - b) : list.filter((i) => i !== seen);
    update(index, { sees: next });
  };

  // Removing or moving a step renumbers the others: keep every `sees` pointing at the same steps.
  const remove = (index: number) =>
    setSteps((current) =>
      current
        .filter((_, i) => i !== index)
        .map((step) =>
          step.sees === 'all'
            ? step
            : { ...step, sees: step.sees.filter((i) => i !== index).map((i) => (i > index ? i - 1 : i)) },
        ),
    );
  const add = () =>
    setSteps((current) => [
      ...current,
      { worker: workerIds[0] ?? '', task: '', sees: current.length ? [current.length - 1] : [] },
    ]);

  return (
    <section class="card" aria-labelledby="review-title" data-testid="plan-editor">
      <h2 id="review-title">Review the plan</h2>
      {thought && <p class="thought">Plan: {thought}</p>}
      <WorkflowGraph steps={steps} workerOrder={workerIds} workerLabels={labels} />
      {steps.map((step, index) => {
        const own = issuesFor(index);
        const errorId = `edit-step-${index}-errors`;
        return (
          <fieldset
            key={index}
            class="edit-step"
            aria-invalid={own.length ? 'true' : 'false'}
            data-testid={`edit-step-${index}`}
            style={{ '--chip': workerColor(step.worker, workerIds) }}
          >
            <legend>Step {index}</legend>
            {shownPrice?.steps[index] && (
              <p class="small muted" data-testid={`edit-step-${index}-price`}>
                Estimated: {shownPrice.steps[index]}
              </p>
            )}
            <div class="edit-step-head">
              <label for={`edit-worker-${index}`}>Worker</label>
              <select
                id={`edit-worker-${index}`}
                value={step.worker}
                onChange={(e) => update(index, { worker: e.currentTarget.value })}
                aria-describedby={own.length ? errorId : undefined}
              >
                {!choosable.includes(step.worker) && (
                  <option value={step.worker}>{step.worker} (not in pool)</option>
                )}
                {workers.map((w) => (
                  <option key={w.id} value={w.id}>
                    {optionName(w, workers)}
                  </option>
                ))}
                {allowSelf && <option value={SELF_WORKER}>The conductor: self-check (self)</option>}
              </select>
              {step.worker !== SELF_WORKER && (
                <label title="If this worker stays unavailable, the step fails instead of moving to another worker.">
                  <input
                    type="checkbox"
                    checked={step.pin === true}
                    data-testid={`edit-pin-${index}`}
                    onChange={(e) => update(index, { pin: e.currentTarget.checked })}
                  />{' '}
                  pin: no failover
                </label>
              )}
              <span class="spacer" />
              <button type="button" class="small danger" onClick={() => remove(index)}>
                Remove step {index}
              </button>
            </div>
            <div class="field">
              <label for={`edit-task-${index}`}>Task</label>
              <textarea
                id={`edit-task-${index}`}
                rows={3}
                value={step.task}
                onInput={(e) => update(index, { task: e.currentTarget.value })}
                aria-describedby={own.length ? errorId : undefined}
                aria-invalid={own.some((i) => i.code === 'empty-task') ? 'true' : undefined}
              />
            </div>
            {index > 0 && (
              <fieldset>
                <legend>Sees</legend>
                <div class="sees-list">
                  <label>
                    <input
                      type="checkbox"
                      checked={step.sees === 'all'}
                      onChange={(e) => update(index, { sees: e.currentTarget.checked ? 'all' : [] })}
                    />{' '}
                    all earlier steps
                  </label>
                  {step.sees !== 'all' &&
                    Array.from({ length: index }, (_, seen) => (
                      <label key={seen}>
                        <input
                          type="checkbox"
                          checked={(step.sees as number[]).includes(seen)}
                          onChange={(e) => toggleSee(index, seen, e.currentTarget.checked)}
                        />{' '}
                        step {seen}
                      </label>
                    ))}
                </div>
              </fieldset>
            )}
            {attachments.length > 0 && step.worker !== SELF_WORKER && (
              <StepFilesField
                index={index}
                refs={attachments}
                files={step.files}
                task={step.task}
                preview={previewFiles}
                onChange={(files) => update(index, { files })}
              />
            )}
            {step.tools?.length ? (
              <StepToolsField
                index={index}
                tools={step.tools}
                onChange={(tools) => update(index, { tools })}
              />
            ) : null}
            {own.length > 0 && (
              <ul class="issues" id={errorId} data-testid={`edit-step-${index}-issues`}>
                {own.map((issue) => (
                  <li key={issue.message}>{issue.message}</li>
                ))}
              </ul>
            )}
          </fieldset>
        );
      })}
      {planIssues.length > 0 && (
        <ul class="issues" data-testid="plan-issues">
          {planIssues.map((issue) => (
            <li key={issue.message}>{issue.message}</li>
          ))}
        </ul>
      )}
      {shownPrice && (
        <div data-testid="plan-estimate">
          <p>
            <strong>Estimated price:</strong> {shownPrice.total}
          </p>
          {shownPrice.over && (
            <p class="alert" data-kind="warn" data-testid="plan-over-limit">
              {shownPrice.over}
            </p>
          )}
        </div>
      )}
      {check && <PlanWarnings check={check} onApply={() => setSteps(toDraft(check.plan))} />}
      <p class="visually-hidden" role="status">
        {result.ok
          ? `The plan is valid${check?.findings.length ? `, with ${check.findings.length === 1 ? 'a warning' : `${check.findings.length} warnings`}` : ''}.`
          : `${issues.length} problem${issues.length === 1 ? '' : 's'} in the plan.`}
      </p>
      <div class="row">
        <button type="button" onClick={add} disabled={steps.length >= maxSteps}>
          Add a step
        </button>
        <span class="spacer" />
        {onDiscard && (
          <button type="button" onClick={onDiscard}>
            Discard
          </button>
        )}
        <button
          type="button"
          class="primary"
          disabled={!result.ok || check?.blocked}
          data-testid="run-plan"
          onClick={() => {
            if (result.ok) onRun(result.plan);
          }}
        >
          {runLabel}
        </button>
      </div>
    </section>
  );
}
