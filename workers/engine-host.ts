import type { ChatMessage } from '../src/shared/chat.ts';
import {
  ConductorError,
  type GenerationStats,
  type LocalChatRequest,
  type LocalChatResponse,
  type PlanRequest,
  type PlanResponse,
  type PoolEntry,
  type ReplanRequest,
  type ReplanResponse,
  type StepEvent,
} from '../src/shared/conductor-api.ts';
import {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  IncrementalPlanParser,
  type ParseOptions,
  type Plan,
  type PlanResult,
  parsePlan,
  planJsonSchema,
  type Step,
  validatePlan,
} from '../src/shared/plan/index.ts';
import {
  type ConductorEngine,
  type GenerateResult,
  type LoadProgress,
  type ModelRef,
  sameModel,
} from './engines/engine.ts';
import { buildPlanMessages, buildRepairMessages, buildReplanMessages } from './prompt/prompt.ts';

export type EngineFactory = (kind: ModelRef['engine']) => Promise<ConductorEngine>;

const DEFAULT_PLAN_TOKENS = 1024;
const DEFAULT_CHAT_TOKENS = 1024;
const TIER_RANK = { high: 3, medium: 2, low: 1 } as const;

/** The worker the fallback plan uses: the highest cost tier (a proxy for strength), first in pool order. */
export function strongestWorker(pool: readonly PoolEntry[]): PoolEntry | undefined {
  let best: PoolEntry | undefined;
  for (const entry of pool) {
    if (entry.id === 'self') continue;
    const rank = TIER_RANK[entry.costTier ?? 'medium'];
    if (!best || rank > TIER_RANK[best.costTier ?? 'medium']) best = entry;
  }
  return best;
}

/** The prompt, the output constraint and the validation limits of a first plan. */
export function planPrompt(request: PlanRequest) {
  const router = request.mode === 'router';
  const maxSteps = router ? 1 : (request.maxSteps ?? DEFAULT_MAX_STEPS);
  const maxDepth = request.maxDepth ?? DEFAULT_MAX_DEPTH;
  const allowSelf = !router && maxDepth > 0;
  const pool = request.pool.filter((entry) => entry.id !== 'self');
  const workerIds = pool.map((entry) => entry.id);
  // Validation and the output constraint share the length limits, so neither rejects what the other allows.
  const limits = {
    workerIds,
    // Errors are shown to the user (and quoted to the model, which sees the labels in its prompt too).
    workerLabels: labelsOf(pool),
    maxSteps,
    allowSelf,
    minSteps: 1,
    offset: 0,
    ...lengthLimits(request),
  };
  // Grammar converters put optional properties after required ones: without requireThought the model
  // would write its reasoning after the steps, where it helps nothing. The router skips it to answer fast.
  const schemaFor = (l: ParseOptions) =>
    planJsonSchema({ ...l, maxSteps: l.maxSteps ?? maxSteps, requireThought: !router });
  const jsonSchema = schemaFor(limits);
  const messages = buildPlanMessages({
    question: request.question,
    pool,
    mode: request.mode,
    maxSteps,
    maxDepth,
  });
  return { messages, jsonSchema, schemaFor, limits, pool };
}

/** The prompt, the output constraint and the validation limits of corrective steps after `request.steps`. */
function replanPrompt(request: ReplanRequest) {
  const maxDepth = request.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxSteps = request.maxSteps ?? DEFAULT_MAX_STEPS;
  const pool = request.pool.filter((entry) => entry.id !== 'self');
  const workerIds = pool.map((entry) => entry.id);
  const limits = {
    workerIds,
    workerLabels: labelsOf(pool),
    maxSteps,
    allowSelf: request.depth < maxDepth,
    minSteps: 0,
    offset: request.steps.length,
    ...lengthLimits(request),
  };
  const schemaFor = (l: ParseOptions) => planJsonSchema({ ...l, maxSteps: l.maxSteps ?? maxSteps });
  const messages = buildReplanMessages({
    question: request.question,
    pool,
    steps: request.steps,
    answers: request.answers,
    depth: request.depth,
    maxSteps,
    maxDepth,
  });
  return { messages, schemaFor, limits };
}

function labelsOf(pool: readonly PoolEntry[]): Record<string, string> {
  return Object.fromEntries(pool.map((entry) => [entry.id, entry.label]));
}

function lengthLimits(request: PlanRequest | ReplanRequest) {
  return {
    ...(request.maxTaskLength ? { maxTaskLength: request.maxTaskLength } : {}),
    ...(request.maxThoughtLength ? { maxThoughtLength: request.maxThoughtLength } : {}),
  };
}

/** Sampling for plans and corrective steps: the request's, else the defaults. */
function planGen(request: PlanRequest | ReplanRequest) {
  return {
    maxTokens: request.maxTokens ?? DEFAULT_PLAN_TOKENS,
    temperature: request.temperature ?? 0.2,
  };
}

interface Attempt {
  result: GenerateResult;
  parsed: PlanResult;
  /** The steps streamed while it was written, each valid against the pool and the steps before it. */
  streamed: Step[];
}

type JsonSchema = Record<string, unknown>;

/**
 * Everything the conductor thread does, without comlink: engines, loading (and reloading after a
 * restart), planning with validation, one repair and a reported fallback, local chat, cancel.
 * Runs in the thread; unit tests drive it in node with a scripted engine.
 */
export class EngineHost {
  private engine: ConductorEngine | undefined;
  private loading: Promise<void> | undefined;
  private loadingModel: ModelRef | undefined;
  private readonly controllers = new Map<string, AbortController>();
  /** Generations run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly createEngine: EngineFactory) {}

  loaded(): ModelRef | undefined {
    return this.engine?.loaded();
  }

  /** Loads `model` unless it is already loaded (or loading); a different model replaces the current one. */
  async load(model: ModelRef, onProgress: (progress: LoadProgress) => void = () => {}): Promise<void> {
    if (sameModel(this.engine?.loaded(), model)) return;
    if (this.loading && sameModel(this.loadingModel, model)) return this.loading;
    const previous = this.loading;
    const run = (async () => {
      await previous?.catch(() => {});
      if (sameModel(this.engine?.loaded(), model)) return;
      if (this.engine && this.engine.kind !== model.engine) {
        await this.engine.unload();
        this.engine = undefined;
      }
      this.engine ??= await this.createEngine(model.engine);
      await this.engine.load(model, onProgress);
    })();
    this.loading = run;
    this.loadingModel = model;
    try {
      await run;
    } finally {
      if (this.loading === run) {
        this.loading = undefined;
        this.loadingModel = undefined;
      }
    }
  }

  async unload(): Promise<void> {
    for (const controller of this.controllers.values()) controller.abort();
    const engine = this.engine;
    this.engine = undefined;
    await engine?.unload();
  }

  /** Soft stop: aborts the request's generation (or its wait in the queue). False if it is unknown. */
  cancel(requestId: string): boolean {
    const controller = this.controllers.get(requestId);
    if (!controller) return false;
    controller.abort();
    this.engine?.interrupt();
    return true;
  }

  private async exclusive<T>(requestId: string, model: ModelRef, work: (signal: AbortSignal) => Promise<T>) {
    const controller = new AbortController();
    if (this.controllers.has(requestId)) throw new Error(`Request ${requestId} is already running`);
    this.controllers.set(requestId, controller);
    const run = this.queue.then(async () => {
      if (controller.signal.aborted) throw cancelled();
      await this.load(model);
      if (controller.signal.aborted) throw cancelled();
      return work(controller.signal);
    });
    this.queue = run.catch(() => {});
    try {
      return await run;
    } finally {
      this.controllers.delete(requestId);
    }
  }

  /**
   * Generates a plan (or corrective steps); when the output does not validate, tries once more with a
   * prompt that quotes the validation error. What to do after two failures is the caller's.
   *
   * Steps streamed before the fault were valid against the pool and the steps before them, and the page
   * may already have started them (paid requests): they stand. The repair writes only the steps after
   * them and is streamed the same way, so nothing streamed is ever taken back (issue 11, defect 13).
   */
  private async generateValidated(options: {
    messages: ChatMessage[];
    gen: { maxTokens: number; temperature: number };
    schemaFor: (limits: ParseOptions) => JsonSchema;
    limits: ParseOptions;
    signal: AbortSignal;
    stats: StatsCollector;
    onToken: (text: string) => void;
    onStep: (event: StepEvent) => void;
  }): Promise<
    | { ok: true; plan: Plan; attempt: Attempt; repaired?: { error: string } }
    | { ok: false; error: string; last: Attempt; kept: Step[] }
  > {
    const { messages, schemaFor, limits, ...rest } = options;
    const first = await this.streamAttempt({
      ...rest,
      schema: schemaFor(limits),
      limits,
      prompt: messages,
      attemptNo: 1,
    });
    if (first.parsed.ok) return { ok: true, plan: first.parsed.plan, attempt: first };
    const error = lengthNote(first);
    const kept = first.streamed;
    options.onStep({ kind: 'restart', attempt: 2, reason: error, kept: kept.length });
    const offset = limits.offset ?? 0;
    const room = (limits.maxSteps ?? DEFAULT_MAX_STEPS) - kept.length;
    const after: ParseOptions =
      kept.length === 0 ? limits : { ...limits, offset: offset + kept.length, maxSteps: room, minSteps: 0 };
    if (kept.length > 0 && room <= 0) {
      // No room for another step: the kept steps are the plan, if they make one.
      const whole = validatePlan({ steps: kept }, limits);
      if (whole.ok) return { ok: true, plan: whole.plan, attempt: first, repaired: { error } };
      return { ok: false, error: `${error}; then ${whole.message}`, last: first, kept };
    }
    const repair = buildRepairMessages({
      messages,
      output: first.result.text,
      error,
      ...(kept.length > 0 ? { kept: { first: offset, count: kept.length } } : {}),
    });
    const second = await this.streamAttempt({
      ...rest,
      schema: schemaFor(after),
      limits: after,
      prompt: repair,
      attemptNo: 2,
    });
    const keptBoth = [...kept, ...second.streamed];
    if (!second.parsed.ok) {
      return { ok: false, error: `${error}; then ${lengthNote(second)}`, last: second, kept: keptBoth };
    }
    const { thought } = second.parsed.plan;
    const steps = [...kept, ...second.parsed.plan.steps];
    const whole = validatePlan(thought === undefined ? { steps } : { thought, steps }, limits);
    if (whole.ok) return { ok: true, plan: whole.plan, attempt: second, repaired: { error } };
    return { ok: false, error: `${error}; then ${whole.message}`, last: second, kept: keptBoth };
  }

  /**
   * One generation of a plan (or corrective steps): tokens are passed on as they come, and each step as
   * soon as its JSON object closes (the incremental parser; indices continue after `limits.offset`).
   * The whole text is then parsed once more, which is authoritative.
   */
  private async streamAttempt(options: {
    prompt: ChatMessage[];
    gen: { maxTokens: number; temperature: number };
    schema: JsonSchema;
    limits: ParseOptions;
    attemptNo: number;
    signal: AbortSignal;
    stats: StatsCollector;
    onToken: (text: string) => void;
    onStep: (event: StepEvent) => void;
  }): Promise<Attempt> {
    const { limits, attemptNo, onToken, onStep } = options;
    const parser = new IncrementalPlanParser(limits);
    const streamed: Step[] = [];
    const gen = { ...options.gen, jsonSchema: options.schema };
    const result = await this.generate(options.prompt, gen, options.signal, (piece) => {
      onToken(piece);
      for (const event of parser.push(piece)) {
        if (event.type !== 'step') continue;
        streamed.push(event.step);
        onStep({ kind: 'step', index: event.index, step: event.step, attempt: attemptNo });
      }
    });
    options.stats.add(result);
    return { result, parsed: parsePlan(result.text, limits), streamed };
  }

  private async generate(
    messages: ChatMessage[],
    options: { jsonSchema?: Record<string, unknown>; maxTokens: number; temperature: number },
    signal: AbortSignal,
    onToken: (text: string) => void,
  ): Promise<GenerateResult> {
    const engine = this.engine;
    if (!engine) throw new ConductorError('ModelNotLoaded', 'No model is loaded');
    const result = await engine.generate({
      messages,
      ...(options.jsonSchema ? { jsonSchema: options.jsonSchema } : {}),
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      signal,
      onToken,
    });
    if (result.finishReason === 'abort' || signal.aborted) throw cancelled();
    return result;
  }

  async plan(
    request: PlanRequest,
    onToken: (text: string) => void,
    onStep: (event: StepEvent) => void,
  ): Promise<PlanResponse> {
    return this.exclusive(request.requestId, request.model, async (signal) => {
      const started = performance.now();
      const { messages, schemaFor, limits, pool } = planPrompt(request);
      const gen = planGen(request);
      const stats = new StatsCollector(started);
      const outcome = await this.generateValidated({
        messages,
        gen,
        schemaFor,
        limits,
        signal,
        stats,
        onToken,
        onStep,
      });
      if (outcome.ok) {
        return {
          plan: outcome.plan,
          stats: stats.done(),
          ...(outcome.repaired ? { repaired: outcome.repaired } : {}),
          raw: outcome.attempt.result.text,
        };
      }
      const strongest = strongestWorker(pool);
      if (!strongest) throw new ConductorError('NoWorkers', 'The pool has no worker to fall back to');
      // Steps already streamed stand (they may be running); the strongest worker answers after them.
      const kept = outcome.kept;
      const reason =
        `The conductor's plan was invalid twice (${outcome.error}), ` +
        (kept.length === 0
          ? `so the question goes to ${strongest.label} alone.`
          : `so ${strongest.label} answers the question after the ${kept.length === 1 ? 'step' : 'steps'} already running.`);
      onStep({ kind: 'restart', attempt: 3, reason, kept: kept.length });
      const step: Step = {
        worker: strongest.id,
        task: request.question,
        sees: kept.length === 0 ? [] : 'all',
      };
      const room = kept.length < limits.maxSteps;
      if (room) onStep({ kind: 'step', index: kept.length, step, attempt: 3 });
      const plan: Plan = {
        thought: 'Fallback: one step on the strongest worker.',
        steps: room ? [...kept, step] : kept,
      };
      return { plan, stats: stats.done(), fallback: { reason }, raw: outcome.last.result.text };
    });
  }

  async replan(
    request: ReplanRequest,
    onToken: (text: string) => void,
    onStep: (event: StepEvent) => void,
  ): Promise<ReplanResponse> {
    return this.exclusive(request.requestId, request.model, async (signal) => {
      const started = performance.now();
      const { messages, schemaFor, limits } = replanPrompt(request);
      const gen = planGen(request);
      const stats = new StatsCollector(started);
      const outcome = await this.generateValidated({
        messages,
        gen,
        schemaFor,
        limits,
        signal,
        stats,
        onToken,
        onStep,
      });
      if (outcome.ok) {
        return withThought(
          {
            steps: outcome.plan.steps,
            stats: stats.done(),
            ...(outcome.repaired ? { repaired: outcome.repaired } : {}),
            raw: outcome.attempt.result.text,
          },
          outcome.attempt,
        );
      }
      const reason = `The conductor's corrective steps were invalid twice (${outcome.error}), so the current answer is accepted.`;
      onStep({ kind: 'restart', attempt: 3, reason });
      return { steps: [], stats: stats.done(), fallback: { reason }, raw: outcome.last.result.text };
    });
  }

  async chat(request: LocalChatRequest, onToken: (text: string) => void): Promise<LocalChatResponse> {
    return this.exclusive(request.requestId, request.model, async (signal) => {
      const stats = new StatsCollector(performance.now());
      const result = await this.generate(
        request.messages,
        { maxTokens: request.maxTokens ?? DEFAULT_CHAT_TOKENS, temperature: request.temperature ?? 0.7 },
        signal,
        onToken,
      );
      stats.add(result);
      return { text: result.text, stats: stats.done(), finishReason: result.finishReason };
    });
  }
}

function withThought(response: ReplanResponse, attempt: Attempt): ReplanResponse {
  const thought = attempt.parsed.ok ? attempt.parsed.plan.thought : undefined;
  return thought ? { ...response, thought } : response;
}

/** The validation message, plus why the text may have ended early. */
function lengthNote(attempt: Attempt): string {
  const message = attempt.parsed.ok ? '' : attempt.parsed.message;
  return attempt.result.finishReason === 'length'
    ? `${message} (the output hit the token limit)`.trim()
    : message;
}

function cancelled(): ConductorError {
  return new ConductorError('PlanCancelled', 'Cancelled');
}

class StatsCollector {
  private promptTokens = 0;
  private completionTokens = 0;
  private prefill: number | undefined;
  private decode: number | undefined;
  constructor(private readonly started: number) {}
  add(result: GenerateResult) {
    this.promptTokens += result.promptTokens;
    this.completionTokens += result.completionTokens;
    this.prefill = result.prefillTokensPerSec ?? this.prefill;
    this.decode = result.decodeTokensPerSec ?? this.decode;
  }
  done(): GenerationStats {
    const stats: GenerationStats = {
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      ms: performance.now() - this.started,
    };
    if (this.prefill !== undefined) stats.prefillTokensPerSec = this.prefill;
    if (this.decode !== undefined) stats.decodeTokensPerSec = this.decode;
    return stats;
  }
}
