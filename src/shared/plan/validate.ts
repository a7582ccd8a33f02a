import { RUN_WORKER, SELF_WORKER } from '../worker-ids.ts';
import { codePoints, count, describeValue, isBlank, kindOf, quote } from './describe.ts';
import { fileOf, fileUses, imagesRefused, type PlanFiles } from './files.ts';
import {
  DEFAULT_MAX_STEPS,
  DEFAULT_MAX_TASK_LENGTH,
  DEFAULT_MAX_THOUGHT_LENGTH,
  type FileEntry,
  type Plan,
  type Sees,
  type Step,
  StepSchema,
} from './schema.ts';
import { type PlanTools, validateTools } from './tools.ts';

export type PlanIssueCode =
  | 'no-steps'
  | 'too-few-steps'
  | 'too-many-steps'
  | 'unknown-worker'
  | 'empty-task'
  | 'task-too-long'
  | 'thought-too-long'
  | 'no-worker-step'
  | 'self-not-last'
  | 'run-sees-nothing'
  | 'sees-forward'
  | 'sees-self'
  | 'sees-out-of-range'
  | 'sees-invalid'
  | 'files-invalid'
  | 'files-out-of-range'
  | 'passages-invalid'
  | 'passages-of-image'
  | 'image-to-text-worker'
  | 'tools-invalid'
  | 'unknown-tool'
  | 'tools-not-allowed'
  | 'shape'
  | 'unequal-lists'
  | 'not-found'
  | 'bad-json'
  | 'more-issues';

/** One fault in a plan. `step` is the step's index in the whole workflow (with `offset` added). */
export interface PlanIssue {
  code: PlanIssueCode;
  step?: number;
  message: string;
}

export interface ValidateOptions {
  /** The pool's worker ids. `self` is allowed only with `allowSelf` (or if listed here). */
  workerIds: readonly string[];
  /** The user's names for the workers, by id: messages then say `"Claude" (w1)` rather than `w1`. */
  workerLabels?: Readonly<Record<string, string>>;
  /**
   * Name a worker by its label alone (`"Claude"`), for the user; without it the id follows, for the model,
   * which writes ids. A label two workers share keeps the id, so the two can be told apart.
   */
  labelsOnly?: boolean;
  /** Most steps allowed (default 5). */
  maxSteps?: number;
  /** Allow the worker `self` (the conductor, for recursion). Default false. */
  allowSelf?: boolean;
  /** Fewest steps allowed (default 1). Use 0 for a corrective call, where `[]` means "accept". */
  minSteps?: number;
  /**
   * Number of steps already in the workflow (default 0). Corrective steps returned by a `self` step are
   * appended, so their indices continue: step i of this list is step `offset + i` of the workflow, and may
   * see any step before that.
   */
  offset?: number;
  /** Longest task, in characters (default 600, the JSON Schema's `maxLength`). */
  maxTaskLength?: number;
  /** Longest thought, in characters (default 800, the JSON Schema's `maxLength`). */
  maxThoughtLength?: number;
  /**
   * Reject a `self` step that is not the last of these steps (a plan the conductor writes, or one the user
   * edits): the check would run before the steps after it had answered. Off for workflows that already
   * ran, where corrective steps follow the `self` step that added them.
   */
  selfOnlyLast?: boolean;
  /**
   * The question's attached files. With it, a step's `files` must name files that exist, and an image
   * only for a worker that takes images. Without it, `files` is only checked for its shape (a plan read
   * back from a run, whose files were checked when it ran).
   */
  files?: PlanFiles;
  /** The tools offered to the conductor: a step's `tools` must be among them, for a worker that calls tools. */
  tools?: PlanTools;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; issues: PlanIssue[]; message: string };
export type StepResult = { ok: true; step: Step } | { ok: false; issues: PlanIssue[]; message: string };

/** Thrown by `planOrThrow`; carries the issues so a caller can show them or feed them back to the model. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  readonly issues: PlanIssue[];
  constructor(issues: PlanIssue[], message = joinMessages(issues)) {
    super(message);
    this.issues = issues;
  }
}

/** The plan of an ok result, or a thrown PlanError. */
export function planOrThrow(result: PlanResult): Plan {
  if (result.ok) return result.plan;
  throw new PlanError(result.issues, result.message);
}

export function joinMessages(issues: readonly PlanIssue[]): string {
  return issues.map((issue) => issue.message).join(' ');
}

/**
 * Most issues reported for one plan; the rest are counted in one last issue. Each message is bounded
 * too, so a plan of a million faults gives a message of a few kilobytes, not megabytes.
 */
export const MAX_ISSUES = 12;

export function failure(issues: PlanIssue[]): { ok: false; issues: PlanIssue[]; message: string } {
  const kept = capIssues(issues);
  return { ok: false, issues: kept, message: joinMessages(kept) };
}

function capIssues(issues: PlanIssue[]): PlanIssue[] {
  if (issues.length <= MAX_ISSUES) return issues;
  const rest = issues.length - (MAX_ISSUES - 1);
  return [
    ...issues.slice(0, MAX_ISSUES - 1),
    { code: 'more-issues', message: `… and ${count(rest)} more problems.` },
  ];
}

/**
 * How a message names a worker: the user's label with the id when the pool's labels are known
 * (`"Claude" (w1)`), the conductor as itself, else the id as the plan wrote it (bounded: it may be
 * model text).
 */
export function issueWorkerName(
  id: string,
  options: Pick<ValidateOptions, 'workerLabels' | 'labelsOnly'>,
): string {
  const labels = options.workerLabels;
  const label = labels?.[id];
  if (label !== undefined && label !== '' && label !== id) {
    const shared =
      options.labelsOnly && Object.entries(labels ?? {}).some(([k, l]) => k !== id && l === label);
    return options.labelsOnly && !shared ? quote(label) : `${quote(label)} (${id})`;
  }
  if (id === SELF_WORKER && labels)
    return options.labelsOnly ? "the conductor's self-check" : 'the conductor (self)';
  return labels ? quote(id) : id;
}

/** Ids a step may name under these options, in pool order, `self` last. */
export function allowedWorkers(options: ValidateOptions): string[] {
  const ids = [...options.workerIds];
  if (options.allowSelf && !ids.includes(SELF_WORKER)) ids.push(SELF_WORKER);
  return ids;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "1 step", "2 steps". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const SEES_HINT = 'it must be "all" or a list of earlier step numbers';
/** Forward or out-of-range `sees` entries reported one by one before the rest are summed up. */
const SEES_REPORTED = 3;

/**
 * Validates one step on its own, which is possible because `sees` only points backwards.
 * `index` is the step's index in the whole workflow. `stepCount`, when known, is the workflow's total
 * number of steps: an index past it is reported as out of range rather than as pointing forward.
 *
 * `sees` is normalized: duplicates are removed and indices sorted ascending, so `[2, 0, 2]` becomes
 * `[0, 2]` (a step sees each earlier step once, in the order they ran).
 */
export function validateStep(
  raw: unknown,
  index: number,
  options: ValidateOptions & { stepCount?: number },
): StepResult {
  const issues: PlanIssue[] = [];
  const add = (code: PlanIssueCode, message: string) => issues.push({ code, step: index, message });
  if (!isRecord(raw)) {
    add('shape', `Step ${index} is not an object with "worker", "task" and "sees".`);
    return failure(issues);
  }
  const { worker, task, sees, files, tools, pin } = raw;

  if (typeof worker !== 'string') {
    add('shape', `Step ${index} has no "worker" (a worker id).`);
  } else {
    const allowed = allowedWorkers(options);
    if (!allowed.includes(worker)) {
      const names = allowed.slice(0, MAX_ISSUES).map((id) => issueWorkerName(id, options));
      if (allowed.length > names.length) names.push(`${count(allowed.length - names.length)} more`);
      const pool = allowed.length > 0 ? `(${names.join(', ')})` : '(the pool is empty)';
      const selfNote =
        worker === SELF_WORKER
          ? ' The conductor cannot be called again here: the recursion limit is reached.'
          : '';
      add(
        'unknown-worker',
        `Step ${index} names worker ${quote(worker)}, which is not in the pool ${pool}.${selfNote}`,
      );
    }
  }

  if (typeof task !== 'string') {
    add('shape', `Step ${index} has no "task" (the instruction for its worker, a string).`);
  } else if (isBlank(task)) {
    add(
      'empty-task',
      task === '' || task.trim() === ''
        ? `Step ${index} has an empty task.`
        : `Step ${index} has an empty task (it holds only invisible characters).`,
    );
  } else {
    const limit = options.maxTaskLength ?? DEFAULT_MAX_TASK_LENGTH;
    // Code points never outnumber UTF-16 units, so most tasks need no count at all.
    const length = task.length > limit ? codePoints(task) : task.length;
    if (length > limit) {
      add(
        'task-too-long',
        `Step ${index}'s task is ${count(length)} characters long; the limit is ${count(limit)}.`,
      );
    }
  }

  let normalized: Sees | undefined;
  if (sees === undefined) {
    add('shape', `Step ${index} has no "sees" ("all" or a list of earlier step numbers).`);
  } else if (sees === 'all') {
    normalized = 'all';
  } else if (
    !Array.isArray(sees) ||
    !sees.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  ) {
    add('sees-invalid', `Step ${index} has sees ${describeValue(sees)}; ${SEES_HINT}.`);
  } else {
    const unique = [...new Set(sees as number[])].sort((a, b) => a - b);
    const later: PlanIssue[] = [];
    let laterCount = 0;
    for (const seen of unique) {
      if (seen === index) {
        add('sees-self', `Step ${index} sees itself.`);
      } else if (seen > index) {
        if (laterCount++ >= SEES_REPORTED) continue;
        const count = options.stepCount;
        later.push(
          count !== undefined && seen >= count
            ? {
                code: 'sees-out-of-range',
                step: index,
                message: `Step ${index} sees step ${seen}, but the plan has only ${plural(count, 'step')}.`,
              }
            : {
                code: 'sees-forward',
                step: index,
                message: `Step ${index} sees step ${seen}, which comes after it: a step may only see earlier steps.`,
              },
        );
      }
    }
    issues.push(...later);
    if (laterCount > SEES_REPORTED) {
      add(
        'sees-forward',
        `Step ${index} sees ${count(laterCount - SEES_REPORTED)} more steps that do not come before it.`,
      );
    }
    normalized = unique;
  }

  const normalizedFiles = validateFiles(files, index, typeof worker === 'string' ? worker : '', options, add);
  const workerId = typeof worker === 'string' ? worker : '';
  const nameOf = (id: string) => issueWorkerName(id, options);
  const normalizedTools = validateTools(tools, index, workerId, options.tools, nameOf, add);
  // The code runner runs the code of the steps it sees: seeing none, it could only ever answer "no code".
  if (worker === RUN_WORKER && (normalized === 'all' ? index === 0 : normalized?.length === 0)) {
    add(
      'run-sees-nothing',
      `Step ${index} gives the code runner (run) nothing to run: it runs the code of the steps it sees, and sees none. Let it see the step that writes the code.`,
    );
  }

  if (pin !== undefined && typeof pin !== 'boolean') {
    add('shape', `Step ${index} has pin ${describeValue(pin)}; it must be true or false.`);
  }

  if (issues.length > 0) return failure(issues);
  const parsed = StepSchema.safeParse({
    worker,
    task,
    sees: normalized,
    ...(normalizedFiles !== undefined ? { files: normalizedFiles } : {}),
    ...(normalizedTools !== undefined ? { tools: normalizedTools } : {}),
    ...(pin === true ? { pin } : {}),
  });
  if (!parsed.success) {
    add('shape', `Step ${index} is malformed: ${parsed.error.issues.map((i) => i.message).join('; ')}.`);
    return failure(issues);
  }
  return { ok: true, step: parsed.data };
}

const FILES_HINT =
  'it must be "all" or a list of attached file numbers (from 0), each a number (the whole file) or {"file": n, "find": "words"} (passages)';

/**
 * One entry of `files`, as the plan language takes it, or a message saying what is wrong with it: a
 * number (the whole file), or `{"file": n, "find"?: text, "passages"?: [numbers]}` (passages).
 */
function fileEntryProblem(entry: unknown): string | undefined {
  if (typeof entry === 'number')
    return Number.isInteger(entry) && entry >= 0 ? undefined : 'not a file number';
  if (!isRecord(entry))
    return `${describeValue(entry)} is neither a file number nor {"file": n, "find": "words"}`;
  const { file, find, passages, ...rest } = entry;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    return `${describeValue(entry)} has ${quote(unknown[0] as string)}, which a file entry does not take ("file", "find", "passages")`;
  if (typeof file !== 'number' || !Number.isInteger(file) || file < 0)
    return `${describeValue(entry)} has no "file" (an attached file number, from 0)`;
  if (find !== undefined && typeof find !== 'string')
    return `${describeValue(entry)} has "find" ${describeValue(find)}; it must be the words to look for`;
  if (
    passages !== undefined &&
    (!Array.isArray(passages) ||
      !passages.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0))
  )
    return `${describeValue(entry)} has "passages" ${describeValue(passages)}; it must be a list of passage numbers`;
  return undefined;
}

/**
 * A step's `files`, normalized (each index once, ascending: a whole file wins over passages of it), or
 * undefined when it has none or they are wrong (each fault added). An image for a worker that takes none
 * is a fault: it would never be sent; so are passages of an image, which has none.
 */
function validateFiles(
  files: unknown,
  index: number,
  worker: string,
  options: ValidateOptions,
  add: (code: PlanIssueCode, message: string) => void,
): Step['files'] {
  if (files === undefined) return undefined;
  let normalized: Step['files'];
  if (files === 'all') normalized = 'all';
  else if (!Array.isArray(files)) {
    add('files-invalid', `Step ${index} has files ${describeValue(files)}; ${FILES_HINT}.`);
    return undefined;
  } else {
    const problem = files.map(fileEntryProblem).find((p) => p !== undefined);
    if (problem !== undefined) {
      const code = files.every((f) => typeof f === 'number' || isRecord(f))
        ? 'passages-invalid'
        : 'files-invalid';
      add(code, `Step ${index} has files ${describeValue(files)}: ${problem}; ${FILES_HINT}.`);
      return undefined;
    }
    normalized = normalizeEntries(files as FileEntry[]);
  }
  const planFiles = options.files;
  if (!planFiles) return normalized;
  if (Array.isArray(normalized)) {
    const missing = normalized.map(fileOf).filter((n) => n >= planFiles.count);
    if (missing.length > 0) {
      add(
        'files-out-of-range',
        planFiles.count === 0
          ? `Step ${index} names attached file ${missing[0]}, but the question has no attached files.`
          : `Step ${index} names attached file ${missing[0]}, but the question has only ${plural(planFiles.count, 'file')} (0 to ${planFiles.count - 1}).`,
      );
      return undefined;
    }
    const image = normalized.find((e) => typeof e !== 'number' && planFiles.images.includes(e.file));
    if (image !== undefined) {
      const file = fileOf(image);
      const name = planFiles.names?.[file];
      add(
        'passages-of-image',
        `Step ${index} asks for passages of the image ${name !== undefined ? quote(name) : `file ${file}`}, which has no text to search: name it by its number (${file}) to send it whole, or leave it out.`,
      );
    }
  }
  if (worker && worker !== SELF_WORKER) {
    const refused = imagesRefused(worker, normalized, planFiles);
    if (refused.length > 0) {
      const file = refused[0] as number;
      const name = planFiles.names?.[file];
      add(
        'image-to-text-worker',
        `Step ${index} gives ${issueWorkerName(worker, options)} the image ${name !== undefined ? quote(name) : `file ${file}`}, but that worker takes no images: give the image to a worker that takes images, or leave it out of this step.`,
      );
    }
  }
  return normalized;
}

/**
 * Entries in the files' order, one per file: plain numbers as they were, passage entries merged as
 * `fileUses` reads them (a whole file wins), written back in the plan's own words.
 */
function normalizeEntries(entries: readonly FileEntry[]): FileEntry[] {
  const count = Math.max(0, ...entries.map(fileOf)) + 1;
  return fileUses(entries, count).map((use): FileEntry => {
    if (use.as !== 'passages') return use.file;
    return {
      file: use.file,
      ...(use.find !== undefined ? { find: use.find } : {}),
      ...(use.passages !== undefined ? { passages: use.passages } : {}),
    };
  });
}

/** A `self` step anywhere but last: its check would run before the steps after it had answered. */
export function selfNotLast(steps: readonly Step[], offset = 0): PlanIssue[] {
  return steps.flatMap((step, i): PlanIssue[] =>
    step.worker === SELF_WORKER && i < steps.length - 1
      ? [
          {
            code: 'self-not-last',
            step: offset + i,
            message: `Step ${offset + i} is the conductor's self-check (self), which may only be the last step: it would check the answers before step ${offset + i + 1} had given one.`,
          },
        ]
      : [],
  );
}

/**
 * Checks a parsed plan against the pool and the limits, collecting every fault (not just the first),
 * each with a message specific enough to show a user or to feed back to the model.
 * A non-string `thought` is dropped rather than rejected: it is only shown, never executed.
 */
export function validatePlan(raw: unknown, options: ValidateOptions): PlanResult {
  if (!isRecord(raw)) {
    return failure([
      { code: 'shape', message: `The plan must be a JSON object with a "steps" list, not ${kindOf(raw)}.` },
    ]);
  }
  const { steps, thought } = raw;
  if (!Array.isArray(steps)) {
    return failure([
      {
        code: 'shape',
        message:
          steps === undefined
            ? 'The plan has no "steps" list.'
            : 'The plan\'s "steps" must be a list of steps.',
      },
    ]);
  }
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const minSteps = options.minSteps ?? 1;
  const offset = options.offset ?? 0;
  const issues: PlanIssue[] = [];
  if (steps.length === 0 && minSteps > 0) {
    issues.push({ code: 'no-steps', message: 'The plan has no steps.' });
  } else if (steps.length < minSteps) {
    issues.push({
      code: 'too-few-steps',
      message: `The plan has ${plural(steps.length, 'step')}; it needs at least ${minSteps}.`,
    });
  } else if (steps.length > maxSteps) {
    issues.push({
      code: 'too-many-steps',
      message: `The plan has ${plural(steps.length, 'step')}; the limit is ${maxSteps}.`,
    });
  }
  const valid: Step[] = [];
  const stepCount = offset + steps.length;
  for (let i = 0; i < steps.length; i++) {
    const result = validateStep(steps[i], offset + i, { ...options, stepCount });
    if (result.ok) valid.push(result.step);
    else for (const issue of result.issues) issues.push(issue);
    // Past the cap nothing more is reported; only the count of further faults is, so stop counting too.
    if (issues.length > MAX_ISSUES * 4) {
      issues.push({ code: 'more-issues', message: `Steps after step ${offset + i} were not checked.` });
      break;
    }
  }
  // A first plan whose every step is a self-check has no answer to check or to return: the run would
  // end with every step done and no answer. Corrective steps (offset > 0) follow worker steps.
  if (offset === 0 && steps.length > 0 && valid.length === steps.length) {
    if (valid.every((step) => step.worker === SELF_WORKER)) {
      issues.push({
        code: 'no-worker-step',
        message:
          'Every step of the plan is a self-check by the conductor, so no worker would answer: ' +
          'the plan needs at least one step for a worker from the pool.',
      });
    }
  }
  if (options.selfOnlyLast) for (const issue of selfNotLast(valid, offset)) issues.push(issue);
  let keptThought: string | undefined;
  if (typeof thought === 'string') {
    const limit = options.maxThoughtLength ?? DEFAULT_MAX_THOUGHT_LENGTH;
    const length = thought.length > limit ? codePoints(thought) : thought.length;
    if (length > limit) {
      issues.push({
        code: 'thought-too-long',
        message: `The plan's thought is ${count(length)} characters long; the limit is ${count(limit)}.`,
      });
    } else {
      keptThought = thought;
    }
  }
  if (issues.length > 0) return failure(issues);
  const plan: Plan = keptThought !== undefined ? { thought: keptThought, steps: valid } : { steps: valid };
  return { ok: true, plan };
}
