import { closingIndex, ownKeyCount, parseJson } from './json-text.ts';
import { isPyName, type PyValue, readPythonLiteral } from './python-literal.ts';
import { DEFAULT_MAX_THOUGHT_LENGTH } from './schema.ts';
import {
  failure,
  isRecord,
  type PlanIssue,
  type PlanResult,
  plural,
  type ValidateOptions,
  validatePlan,
} from './validate.ts';

export interface ParseOptions extends ValidateOptions {
  /**
   * The pool in the order the conductor was shown it, for the paper's format where `model_id` holds
   * integers: `pool[i]` is the worker id of model i. Defaults to `workerIds`.
   */
  pool?: readonly string[];
}

export type ParseResult = PlanResult;

/**
 * Finds a plan in a model's output and validates it. Accepted, in this order:
 * 1. Our JSON: the first top-level JSON object that has a "steps" key (or holds such an object), bare,
 *    inside a ```json fence, or after free text. Braces inside JSON strings are handled; trailing commas
 *    are forgiven. The first object is taken (not the last) so the result matches what the incremental
 *    parser streamed to the executor.
 * 2. The Conductor paper's format: free text, then `model_id = [...]`, `subtasks = [...]` and
 *    `access_list = [...]` as Python literals (the last assignment of each name wins), with or without a
 *    ```python fence; or the same three lists as one JSON object (`{"model_id": [...], ...}`, found like
 *    our JSON). The free text before them becomes the plan's `thought`. `model_id` entries are pool
 *    indices (mapped through `pool`) or worker ids.
 * Otherwise: 'bad-json' if a plan-like JSON object was found but is broken or cut off, else 'not-found'.
 */
export function parsePlan(text: string, options: ParseOptions): ParseResult {
  const json = findJsonPlan(text);
  if (json.kind === 'found') return validatePlan(json.value, options);
  if (json.kind === 'lists') return paperPlan(json, options);
  const paper = findPaperLists(text);
  if (paper.kind === 'lists') return paperPlan(paper, options);
  if (json.kind === 'broken') return failure([json.issue]);
  if (paper.kind === 'partial') return failure([paper.issue]);
  return failure([
    {
      code: 'not-found',
      message:
        'No plan found: expected a JSON object with "steps", or the lists model_id, subtasks and access_list.',
    },
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// JSON

type JsonSearch =
  | { kind: 'found'; value: Record<string, unknown> }
  | PaperLists
  | { kind: 'broken'; issue: PlanIssue }
  | { kind: 'none' };

/** The object itself if it has "steps", else the first nested object (depth first) that has. */
function withSteps(value: unknown, depth = 0): Record<string, unknown> | undefined {
  if (depth > 4) return undefined;
  if (isRecord(value)) {
    if ('steps' in value) return value;
    for (const child of Object.values(value)) {
      const found = withSteps(child, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

const STEPS_KEY = /"steps"\s*:/;

export const DUPLICATE_STEPS_MESSAGE =
  'The plan has "steps" twice; it must have one "steps" list (the first one was already read).';

function findJsonPlan(text: string): JsonSearch {
  let broken: PlanIssue | undefined;
  let from = 0;
  for (;;) {
    const start = text.indexOf('{', from);
    if (start < 0) break;
    const end = closingIndex(text, start);
    if (end < 0) {
      // Maybe a stray brace in prose: look for a later object, but remember a cut-off plan.
      if (!broken && STEPS_KEY.test(text.slice(start))) {
        broken = {
          code: 'bad-json',
          message: "The plan's JSON is incomplete: the text ends before the object is closed.",
        };
      }
      from = start + 1;
      continue;
    }
    const slice = text.slice(start, end + 1);
    const parsed = parseJson(slice);
    if (parsed.ok) {
      const plan = withSteps(parsed.value);
      if (plan === parsed.value && ownKeyCount(slice, 'steps') > 1) {
        return { kind: 'broken', issue: { code: 'bad-json', message: DUPLICATE_STEPS_MESSAGE } };
      }
      if (plan) return { kind: 'found', value: plan };
      const lists = listsIn(parsed.value);
      if (lists) return { kind: 'lists', lists, reasoning: reasoning(text, start) };
      from = end + 1;
      continue;
    }
    if (STEPS_KEY.test(slice)) {
      // This is the plan, broken: a later object is not taken instead, since the streaming parser read
      // this one and may have dispatched its first steps.
      return {
        kind: 'broken',
        issue: broken ?? { code: 'bad-json', message: `The plan's JSON does not parse: ${parsed.error}.` },
      };
    } else {
      from = start + 1;
    }
  }
  return broken ? { kind: 'broken', issue: broken } : { kind: 'none' };
}

// ---------------------------------------------------------------------------------------------------------
// The Conductor paper's format

const LIST_NAMES = ['model_id', 'subtasks', 'access_list'] as const;
type ListName = (typeof LIST_NAMES)[number];

interface PaperLists {
  kind: 'lists';
  /** JSON-like values: Python names become strings (`all` → "all"), `None` becomes null. */
  lists: Record<ListName, unknown[]>;
  /** The free text before the first of the chosen assignments (fence opener removed), trimmed. */
  reasoning: string;
}

type PaperSearch = PaperLists | { kind: 'partial'; issue: PlanIssue } | { kind: 'none' };

/** `model_id = [`, also `"model_id": [` for a model that mixed formats. Never `==`. */
const ASSIGNMENT = /(?<![\w.])["']?(model_id|subtasks|access_list)["']?[ \t]*(?:=(?!=)|:)[ \t]*/g;

function findPaperLists(text: string): PaperSearch {
  const found: Partial<Record<ListName, { value: unknown[]; start: number }>> = {};
  ASSIGNMENT.lastIndex = 0;
  for (let m = ASSIGNMENT.exec(text); m; m = ASSIGNMENT.exec(text)) {
    try {
      const { value, end } = readPythonLiteral(text, m.index + m[0].length);
      if (Array.isArray(value)) {
        found[m[1] as ListName] = { value: value.map(toJsonish), start: m.index };
        // Skip the literal, so names quoted inside a subtask are not read as assignments.
        ASSIGNMENT.lastIndex = end;
      }
    } catch {
      // Not a literal here (prose such as "model_id = the index of..."): keep looking.
    }
  }
  const present = LIST_NAMES.filter((name) => found[name]);
  if (present.length === 0) return { kind: 'none' };
  const missing = LIST_NAMES.filter((name) => !found[name]);
  if (missing.length > 0) {
    return {
      kind: 'partial',
      issue: {
        code: 'not-found',
        message: `Found ${present.join(' and ')} but not ${missing.join(' or ')}: the paper's format needs all three lists.`,
      },
    };
  }
  return {
    kind: 'lists',
    lists: {
      model_id: found.model_id!.value,
      subtasks: found.subtasks!.value,
      access_list: found.access_list!.value,
    },
    reasoning: reasoning(text, Math.min(...LIST_NAMES.map((name) => found[name]!.start))),
  };
}

/** The free text before `end`, without a trailing fence opener. */
function reasoning(text: string, end: number): string {
  return text
    .slice(0, end)
    .replace(/```[a-zA-Z]*\s*$/, '')
    .trim();
}

/** The three lists, when a model wrote them as one JSON object: {"model_id": [...], ...}. */
function listsIn(value: unknown): Record<ListName, unknown[]> | undefined {
  if (!isRecord(value)) return undefined;
  const { model_id, subtasks, access_list } = value;
  if (Array.isArray(model_id) && Array.isArray(subtasks) && Array.isArray(access_list)) {
    return { model_id, subtasks, access_list };
  }
  return undefined;
}

/** A Python value as JSON-ish, for the raw step handed to validation (which reports it if wrong). */
function toJsonish(value: PyValue): unknown {
  if (Array.isArray(value)) return value.map(toJsonish);
  if (isPyName(value)) return value.name === 'None' ? null : value.name;
  return value;
}

function paperPlan(paper: PaperLists, options: ParseOptions): ParseResult {
  const { model_id: models, subtasks, access_list: access } = paper.lists;
  if (models.length !== subtasks.length || models.length !== access.length) {
    return failure([
      {
        code: 'unequal-lists',
        message: `The three lists have different lengths: model_id ${models.length}, subtasks ${subtasks.length}, access_list ${access.length}.`,
      },
    ]);
  }
  const pool = options.pool ?? options.workerIds;
  const offset = options.offset ?? 0;
  const mapIssues: PlanIssue[] = [];
  const steps = models.map((model, i) => {
    const index = offset + i;
    let worker: unknown;
    if (typeof model === 'number') {
      const id = Number.isInteger(model) ? pool[model] : undefined;
      if (id === undefined) {
        mapIssues.push({
          code: 'unknown-worker',
          step: index,
          message:
            pool.length === 0
              ? `Step ${index} names model ${model}, but the pool is empty.`
              : `Step ${index} names model ${model}, but the pool has only ${plural(pool.length, 'model')} (0–${pool.length - 1}).`,
        });
      }
      worker = id;
    } else if (typeof model === 'string') {
      worker = model;
    } else {
      worker = model;
    }
    return { worker, task: subtasks[i], sees: access[i] };
  });
  // The paper's reasoning is free prose before the lists, not a field the model was held to: cut it to
  // the thought's limit rather than reject a plan for thinking at length.
  const thought = clip(paper.reasoning, options.maxThoughtLength ?? DEFAULT_MAX_THOUGHT_LENGTH);
  const raw = thought ? { thought, steps } : { steps };
  const result = validatePlan(raw, options);
  if (mapIssues.length === 0) return result;
  // A model index out of range is already reported, more precisely than "has no worker".
  const mapped = new Set(mapIssues.map((issue) => issue.step));
  const rest = result.ok
    ? []
    : result.issues.filter((issue) => !(issue.code === 'shape' && mapped.has(issue.step)));
  return failure([...mapIssues, ...rest].sort((a, b) => (a.step ?? -1) - (b.step ?? -1)));
}

/** `text` cut to at most `limit` characters (code points), ending in "…" when cut. */
function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join('')}…`;
}
