import { LOCAL_WORKER, RUN_WORKER, SELF_WORKER } from '../worker-ids.ts';
import { describeValue, quote } from './describe.ts';
import type { Step } from './schema.ts';

/**
 * What the plan language knows of the tools offered to the conductor (src/tools/): their names as a plan
 * writes them (`server.tool`), and which workers' models can call tools. Validation and the decoding schema
 * read it, so a plan the schema lets through is never rejected for its tools.
 */
export interface PlanTools {
  /** Every tool offered, `server.tool`. */
  names: readonly string[];
  /** Ids of the workers whose model can call tools (never `self`, `local` or `run`). */
  toolWorkers: readonly string[];
}

/** Workers that never call tools: the conductor, the on-device model, the code runner. */
const NO_TOOLS: readonly string[] = [SELF_WORKER, LOCAL_WORKER, RUN_WORKER];

/** Whether `worker` may be granted tools under `tools`. */
export function takesTools(worker: string, tools: PlanTools): boolean {
  return !NO_TOOLS.includes(worker) && tools.toolWorkers.includes(worker);
}

/**
 * Whether a run of `steps` may call a tool: a step is granted one, or a `self` step may write corrective
 * steps that are. A run of none need not read the tools offered before its first request.
 */
export function mayCallTools(steps: readonly Pick<Step, 'worker' | 'tools'>[]): boolean {
  return steps.some((step) => (step.tools?.length ?? 0) > 0 || step.worker === SELF_WORKER);
}

type Add = (code: 'tools-invalid' | 'unknown-tool' | 'tools-not-allowed', message: string) => void;

/**
 * A step's `tools`, normalized (each name once, in the order written; `[]` is none), or undefined when it
 * has none or they are wrong (each fault added). Without `tools` (a plan read back from a run) only the
 * shape is checked, and a built-in worker still takes none.
 */
export function validateTools(
  value: unknown,
  index: number,
  worker: string,
  tools: PlanTools | undefined,
  workerName: (id: string) => string,
  add: Add,
): Step['tools'] {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    add('tools-invalid', `Step ${index} has tools ${describeValue(value)}; it must be a list of tool names.`);
    return undefined;
  }
  const names = [...new Set(value as string[])];
  if (names.length === 0) return undefined;
  if (NO_TOOLS.includes(worker)) {
    add(
      'tools-not-allowed',
      `Step ${index} gives tools to ${workerName(worker)}, which calls no tools: only a worker of the pool whose model calls tools may be granted them.`,
    );
    return undefined;
  }
  if (!tools) return names;
  const unknown = names.filter((name) => !tools.names.includes(name));
  if (unknown.length > 0) {
    const offered = tools.names.length > 0 ? `(${tools.names.slice(0, 8).join(', ')})` : '(none is offered)';
    add(
      'unknown-tool',
      `Step ${index} names tool ${quote(unknown[0] as string)}, which is not among the tools offered ${offered}.`,
    );
    return undefined;
  }
  if (worker && !takesTools(worker, tools)) {
    add(
      'tools-not-allowed',
      `Step ${index} gives tools to ${workerName(worker)}, whose model cannot call tools: give the step to a worker that can, or remove its tools.`,
    );
    return undefined;
  }
  return names;
}

/** The JSON Schema of `tools` for the workers that take them: names from the offered list, each once. */
export function toolsJsonSchema(tools: PlanTools): Record<string, unknown> {
  return { type: 'array', items: { type: 'string', enum: [...tools.names] }, maxItems: tools.names.length };
}

/**
 * Workers split by whether they may be granted tools, for the decoding schema: without any tool offered,
 * one group as before (the step's schema has no `tools` then, so no prompt or grammar grows).
 */
export function toolGroups<G extends { workers: string[] }>(
  group: G,
  tools: PlanTools | undefined,
): (G & { tools?: Record<string, unknown> })[] {
  if (!tools || tools.names.length === 0) return [group];
  const takers = group.workers.filter((id) => takesTools(id, tools));
  if (takers.length === 0) return [group];
  const others = group.workers.filter((id) => !takers.includes(id));
  return [
    { ...group, workers: takers, tools: toolsJsonSchema(tools) },
    ...(others.length > 0 ? [{ ...group, workers: others }] : []),
  ];
}
