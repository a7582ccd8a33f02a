import { z } from 'zod';
import { SELF_WORKER } from '../worker-ids.ts';
import { DEFAULT_MAX_TASK_LENGTH, DEFAULT_MAX_THOUGHT_LENGTH, PlanSchema } from './schema.ts';

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
 * A plain JSON Schema for constrained decoding, made from `PlanSchema` and narrowed to one pool and one
 * limit. Kept to what llama.cpp's json-schema-to-grammar and web-llm's xgrammar both accept: no `$ref`,
 * `$defs`, `$schema` or `format`; plain types, `enum`, `const`, `anyOf`, `minItems`/`maxItems`,
 * `minimum`/`maximum`, `maxLength`. Property order is thought → steps and worker → task → sees, the order a model
 * writes them in (grammar-based decoders follow `properties` order).
 */
export function planJsonSchema(options: PlanJsonSchemaOptions): JsonObject {
  const ids = [...options.workerIds];
  if (options.allowSelf && !ids.includes(SELF_WORKER)) ids.push(SELF_WORKER);
  if (ids.length === 0) throw new Error('planJsonSchema: the pool has no workers');
  const minSteps = options.minSteps ?? 1;
  if (options.maxSteps < minSteps) {
    throw new Error(`planJsonSchema: maxSteps ${options.maxSteps} is below minSteps ${minSteps}`);
  }

  const base = asObject(z.toJSONSchema(PlanSchema, { io: 'output', target: 'draft-2020-12' }), 'the root');
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
  const lastSeeable = (options.offset ?? 0) + options.maxSteps - 2;
  const narrowedSees = {
    anyOf: [
      { type: 'string', const: 'all' },
      lastSeeable >= 0
        ? { type: 'array', items: { type: seesItem.type, minimum: 0, maximum: lastSeeable } }
        : { type: 'array', items: { type: seesItem.type, minimum: 0 }, maxItems: 0 },
    ],
  };
  const narrowedStep = {
    type: step.type,
    properties: {
      worker: { type: 'string', enum: ids },
      task: { type: 'string', minLength: 1, maxLength: options.maxTaskLength ?? DEFAULT_MAX_TASK_LENGTH },
      sees: narrowedSees,
    },
    required: step.required,
    additionalProperties: false,
  };
  return {
    type: base.type,
    properties: {
      thought: { type: 'string', maxLength: options.maxThoughtLength ?? DEFAULT_MAX_THOUGHT_LENGTH },
      steps: { type: 'array', items: narrowedStep, minItems: minSteps, maxItems: options.maxSteps },
    },
    required: options.requireThought ? ['thought', 'steps'] : base.required,
    additionalProperties: false,
  };
}
