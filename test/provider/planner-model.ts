/**
 * A scripted planner for the test provider: what a 7B–32B model on Ollama or llama.cpp server does when the
 * conductor's local server engine calls it with `response_format: {type: 'json_schema', json_schema}`. It
 * reads the pool and the limits from the schema (the worker enum, `minItems`/`maxItems`, the highest index
 * `sees` may name) and streams a valid plan, the same for the same schema:
 *
 * - a first plan: the first worker answers, the second (if the pool and the limit allow two steps) checks
 *   that answer and gives the final one;
 * - corrective steps (`minItems` 0, a `self` step's call): none, the answer stands;
 * - with tools offered (a `tools` list in the step's schema), the first step is granted the first tool.
 *
 * Without a JSON schema it answers in prose, as a real model would, which no plan parser accepts: a test
 * that gets a plan knows the schema was sent.
 */
import type { ScriptedModel } from './server.ts';

export const PLANNER_MODEL_ID = 'planner';

/** What the planner answers when the request has no `response_format` json_schema. */
export const PLANNER_PROSE =
  'I would ask the first worker to answer and the second to check it, but you gave me no JSON schema.';

export const PLANNER_TASKS = {
  answer: 'Answer the question.',
  check: 'Check the answer above, then give the final answer.',
} as const;

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The JSON Schema of a chat request's `response_format`, if it asks for one. */
export function requestedSchema(body: unknown): Json | undefined {
  const format = object(object(body)?.response_format);
  if (format?.type !== 'json_schema') return undefined;
  return object(object(format.json_schema)?.schema);
}

/** A local `$ref` (`#/$defs/name`) resolved against the schema's `$defs`; any other schema as it is. */
function resolved(schema: Json, part: Json | undefined): Json | undefined {
  const ref = part?.$ref;
  if (typeof ref !== 'string') return part;
  const name = /^#\/\$defs\/(.+)$/.exec(ref)?.[1];
  return name ? object(object(schema.$defs)?.[name]) : undefined;
}

/** The plan the schema allows, as the planner writes it. */
export function planFor(schema: Json): { thought: string; steps: Json[] } {
  // With self-checks allowed, `steps` is a choice: worker steps only (the first), or worker steps then a check.
  const declared = object(object(schema.properties)?.steps);
  const steps = Array.isArray(declared?.anyOf) ? object(declared.anyOf[0]) : declared;
  // Workers split into groups (by the files or the tools they may be given): the first group's step.
  const itemSchema = resolved(schema, object(steps?.items));
  const first0 = Array.isArray(itemSchema?.anyOf) ? object(itemSchema.anyOf[0]) : itemSchema;
  const item = object(first0?.properties);
  // Tools offered to the step's workers (the first group, json-schema.ts): the first step is granted the first.
  const toolNames = object(object(item?.tools)?.items)?.enum;
  const grant = Array.isArray(toolNames) && typeof toolNames[0] === 'string' ? { tools: [toolNames[0]] } : {};
  const ids = object(item?.worker)?.enum;
  const workers = (Array.isArray(ids) ? ids : []).filter(
    (id): id is string => typeof id === 'string' && id !== 'self',
  );
  const minItems = Number(steps?.minItems ?? 1);
  const maxItems = Number(steps?.maxItems ?? 1);
  if (minItems === 0 || workers.length === 0) return { thought: 'The answer stands.', steps: [] };
  // json-schema.ts bounds `sees` at offset + maxSteps - 2: the offset of a first plan is 0.
  const list = object((object(item?.sees)?.anyOf as unknown[] | undefined)?.[1]);
  const maximum = Number(object(list?.items)?.maximum);
  const offset = Number.isFinite(maximum) ? Math.max(0, maximum - maxItems + 2) : 0;
  const first = { worker: workers[0], task: PLANNER_TASKS.answer, sees: [], ...grant };
  if (maxItems < 2 || workers.length < 2) return { thought: 'One worker is enough.', steps: [first] };
  return {
    thought: 'One worker answers, another checks it.',
    steps: [first, { worker: workers[1], task: PLANNER_TASKS.check, sees: [offset] }],
  };
}

/** The planner model (id `planner`), to register with `startProvider({ models: [plannerModel()] })`. */
export function plannerModel(id = PLANNER_MODEL_ID): ScriptedModel {
  return {
    id,
    behaviour: {
      kind: 'request',
      fn: (body) => {
        const schema = requestedSchema(body);
        // Pretty-printed, so the plan streams in many tokens and its steps arrive one by one.
        return schema ? JSON.stringify(planFor(schema), null, 2) : PLANNER_PROSE;
      },
    },
  };
}
