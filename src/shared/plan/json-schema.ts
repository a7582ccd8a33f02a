import { z } from 'zod';
import { RUN_WORKER, SELF_WORKER } from '../worker-ids.ts';
import type { PlanFiles } from './files.ts';
import { DEFAULT_MAX_TASK_LENGTH, DEFAULT_MAX_THOUGHT_LENGTH, PlanSchema } from './schema.ts';
import { type PlanTools, toolGroups } from './tools.ts';

export interface PlanJsonSchemaOptions {
  /** The pool's worker ids: `worker` becomes an enum of them. */
  workerIds: readonly string[];
  /** `maxItems` of `steps`. */
  maxSteps: number;
  /** Add `self` (the conductor) to the enum. */
  allowSelf?: boolean;
  /** `minItems` of `steps` (default 1; 0 for a corrective call that may accept with `[]`). */
  minSteps?: number;
  /** `maxLength` of each task (default 600). web-llm 0.2.83+ enforces it; it keeps a small model from rambling. */
  maxTaskLength?: number;
  /** `maxLength` of `thought` (default 800). */
  maxThoughtLength?: number;
  /** Make `thought` required, so the model reasons before it writes steps (default false). */
  requireThought?: boolean;
  /** Index of the first step (corrective steps continue the workflow's numbering; default 0). */
  offset?: number;
  /**
   * A `self` step only as the last step, as validation's option of the same name (the conductor writes
   * under both): decoding cannot write a plan validation would reject for it.
   */
  selfOnlyLast?: boolean;
  /**
   * The question's attached files: each worker step must then say which it gets (`files`), and a worker
   * that takes no images can name only the files that are not images.
   */
  files?: PlanFiles;
  /** Every worker step gets every file (`files` is `"all"`): the router's one step answers with them all. */
  allFiles?: boolean;
  /** The tools offered: a step of a worker that calls tools may name some (`tools`), no other step any. */
  tools?: PlanTools;
}

export { DEFAULT_MAX_TASK_LENGTH, DEFAULT_MAX_THOUGHT_LENGTH };

type JsonObject = Record<string, unknown>;

function asObject(value: unknown, where: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`planJsonSchema: expected an object at ${where} in zod's JSON Schema`);
  }
  return value as JsonObject;
}

/**
 * zod's JSON Schema of `PlanSchema`, converted once: it is the same for every plan, and converting it was
 * most of what building a plan's prompt cost (about a millisecond a plan). Each call narrows a copy.
 */
const zodPlanSchema = (() => {
  let converted: unknown;
  return () => {
    converted ??= z.toJSONSchema(PlanSchema, { io: 'output', target: 'draft-2020-12' });
    return converted;
  };
})();

/**
 * A plain JSON Schema for constrained decoding, made from `PlanSchema` and narrowed to one pool and one
 * limit. Kept to what llama.cpp's json-schema-to-grammar (wllama, and the local servers built on it) and
 * web-llm's xgrammar both turn into a grammar: local `$ref`s into `$defs`, plain types, `enum`, `const`,
 * `anyOf`, `prefixItems` (a tuple: every item given, nothing after it), `items`, `minItems`/`maxItems`,
 * `minimum`/`maximum`, `minLength`/`maxLength`; no `format`, `pattern`, `oneOf` or `allOf`. Property order
 * is thought → steps and worker → task → sees, the order a model writes them in (grammar-based decoders
 * follow `properties` order).
 *
 * With `selfOnlyLast`, decoding follows validation's rule (a `self` step only last, and never a first
 * plan of nothing but `self`): `steps` is either worker steps only, or k worker steps then one `self`
 * step, one tuple per k. JSON Schema cannot say "last" any other way; a tuple never mixes `prefixItems`
 * with `items`, since llama.cpp reads `items` first and would drop the tuple. The step's schema is written
 * once, in `$defs`, so the grammar holds one copy of it however many tuples refer to it.
 */
export function planJsonSchema(options: PlanJsonSchemaOptions): JsonObject {
  const ids = [...options.workerIds];
  if (options.allowSelf && !ids.includes(SELF_WORKER)) ids.push(SELF_WORKER);
  if (ids.length === 0) throw new Error('planJsonSchema: the pool has no workers');
  const minSteps = options.minSteps ?? 1;
  if (options.maxSteps < minSteps) {
    throw new Error(`planJsonSchema: maxSteps ${options.maxSteps} is below minSteps ${minSteps}`);
  }

  const base = asObject(structuredClone(zodPlanSchema()), 'the root');
  const props = asObject(base.properties, 'properties');
  const steps = asObject(props.steps, 'steps');
  const step = asObject(steps.items, 'steps.items');
  const stepProps = asObject(step.properties, 'steps.items.properties');
  const sees = asObject(stepProps.sees, 'sees');
  const seesVariants = sees.anyOf;
  if (!Array.isArray(seesVariants) || seesVariants.length !== 2) {
    throw new Error('planJsonSchema: expected sees to be anyOf("all", integer list) in zod\'s JSON Schema');
  }
  const seesList = asObject(seesVariants[1], 'sees.anyOf[1]');
  const seesItem = asObject(seesList.items, 'sees.anyOf[1].items');

  // Rebuild each level explicitly (rather than mutating zod's output) so key order and the exact set of
  // keywords are ours; zod supplies the types and the required lists.
  // No step can see past the second-to-last step the limit allows: bounding the integers keeps a small
  // model from writing indices like 677600 (both llama.cpp and xgrammar turn min/max into the grammar).
  // Pointing forward within the bound is still possible and is caught by validation.
  const offset = options.offset ?? 0;
  const lastSeeable = offset + options.maxSteps - 2;
  const narrowedSees = {
    anyOf: [
      { type: 'string', const: 'all' },
      lastSeeable >= 0
        ? { type: 'array', items: { type: seesItem.type, minimum: 0, maximum: lastSeeable } }
        : { type: 'array', items: { type: seesItem.type, minimum: 0 }, maxItems: 0 },
    ],
  };
  const stepFor = (workers: string[], files?: JsonObject, tools?: JsonObject) => ({
    type: step.type,
    properties: {
      worker: { type: 'string', enum: workers },
      task: { type: 'string', minLength: 1, maxLength: options.maxTaskLength ?? DEFAULT_MAX_TASK_LENGTH },
      sees: narrowedSees,
      ...(files ? { files } : {}),
      ...(tools ? { tools } : {}),
    },
    required: files ? [...(step.required as string[]), 'files'] : step.required,
    additionalProperties: false,
  });
  const workerStepFor = (workers: string[]): JsonObject => {
    const groups = fileGroups(workers, options).flatMap((group) => toolGroups(group, options.tools));
    if (groups.length === 1) return stepFor(groups[0]!.workers, groups[0]!.files, groups[0]!.tools);
    return { anyOf: groups.map((group) => stepFor(group.workers, group.files, group.tools)) };
  };
  const root = {
    type: base.type,
    properties: {
      thought: { type: 'string', maxLength: options.maxThoughtLength ?? DEFAULT_MAX_THOUGHT_LENGTH },
      steps: { type: 'array', items: workerStepFor(ids), minItems: minSteps, maxItems: options.maxSteps },
    } as JsonObject,
    required: options.requireThought ? ['thought', 'steps'] : base.required,
    additionalProperties: false,
  };
  if (!options.selfOnlyLast || !ids.includes(SELF_WORKER)) return root;

  const workers = ids.filter((id) => id !== SELF_WORKER);
  if (workers.length === 0) throw new Error('planJsonSchema: a self-check needs a worker step before it');
  const workerStep = { $ref: `#/$defs/${WORKER_STEP}` };
  const selfStep = { $ref: `#/$defs/${SELF_STEP}` };
  // A first plan needs a worker step before its check (validation's `no-worker-step`); corrective steps
  // follow the workflow's own, so their check may come alone.
  const fewestBeforeSelf = Math.max(offset === 0 ? 1 : 0, minSteps - 1);
  const withSelf = [];
  for (let before = fewestBeforeSelf; before < options.maxSteps; before++) {
    const length = before + 1;
    withSelf.push({
      type: 'array',
      prefixItems: [...Array.from({ length: before }, () => workerStep), selfStep],
      minItems: length,
      maxItems: length,
    });
  }
  root.properties.steps = {
    anyOf: [
      { type: 'array', items: workerStep, minItems: minSteps, maxItems: options.maxSteps },
      ...withSelf,
    ],
  };
  return {
    ...root,
    $defs: { [WORKER_STEP]: workerStepFor(workers), [SELF_STEP]: stepFor([SELF_WORKER]) },
  };
}

interface FileGroup {
  workers: string[];
  /** The schema of `files` for these workers; absent when the question has no files. */
  files?: JsonObject;
}

/**
 * The workers split by what files they may be given: those that take images may name any file; the
 * others only the files that are not images. One group when there are no images or no such split.
 * The conductor (`self`) reads answers, not files: it is in the second group with no file it could take.
 * The code sandbox (`run`) runs the code in answers and reads no file: it is given none.
 *
 * A worker step names its files one by one: `"all"` is written only where every file must go (the
 * router's one step, `allFiles`). Sending a user's file is a choice per file and per step, so decoding
 * does not offer a word that sends every file to whichever worker writes it.
 */
function fileGroups(workers: string[], options: PlanJsonSchemaOptions): FileGroup[] {
  const files = options.files;
  if (!files || files.count === 0) return [{ workers }];
  const readers = workers.filter((id) => id !== RUN_WORKER);
  const groups = readers.length > 0 ? readerGroups(readers, options, files) : [];
  return workers.includes(RUN_WORKER) ? [...groups, { workers: [RUN_WORKER], files: NO_FILES }] : groups;
}

const NO_FILES: JsonObject = { type: 'array', items: { type: 'integer' }, maxItems: 0 };

function readerGroups(workers: string[], options: PlanJsonSchemaOptions, files: PlanFiles): FileGroup[] {
  const every = Array.from({ length: files.count }, (_, i) => i);
  const textFiles = every.filter((i) => !files.images.includes(i));
  const filesSchema = (indices: number[]): JsonObject => {
    if (options.allFiles && indices.length === files.count) return { type: 'string', const: 'all' };
    if (indices.length === 0) return NO_FILES;
    const whole = { type: 'integer', enum: indices };
    const readable = indices.filter((i) => textFiles.includes(i));
    const items = readable.length > 0 ? { anyOf: [whole, passagesEntry(readable)] } : whole;
    return { type: 'array', items, maxItems: indices.length };
  };
  const vision = workers.filter((id) => id !== SELF_WORKER && files.visionWorkers.includes(id));
  const text = workers.filter((id) => !vision.includes(id));
  if (files.images.length === 0 || text.length === 0) return [{ workers, files: filesSchema(every) }];
  // The router's one step gets every file: with an image among them, only a worker that takes images can.
  if (options.allFiles && vision.length > 0) return [{ workers: vision, files: filesSchema(every) }];
  if (vision.length === 0) return [{ workers, files: filesSchema(textFiles) }];
  return [
    { workers: vision, files: filesSchema(every) },
    { workers: text, files: filesSchema(textFiles) },
  ];
}

/** Longest `find` of a passages entry: a few words to search for, not a task. */
export const MAX_FIND_LENGTH = 120;

/**
 * A file as passages: `{"file": n, "find": "words"}`, for a file with text. `find` is required here,
 * though the plan language lets it out (the step's task is then the query): a model that chooses passages
 * says what it looks for. `passages` (the user's ticks in review) is never the model's to write.
 */
function passagesEntry(files: number[]): JsonObject {
  return {
    type: 'object',
    properties: {
      file: { type: 'integer', enum: files },
      find: { type: 'string', minLength: 1, maxLength: MAX_FIND_LENGTH },
    },
    required: ['file', 'find'],
    additionalProperties: false,
  };
}

/** The names of the two step schemas in `$defs`. */
const WORKER_STEP = 'workerStep';
const SELF_STEP = 'selfStep';
