import type { ChatMessage } from '../src/shared/chat.ts';
import {
  type CacheStatus,
  ConductorError,
  type ConductorEvent,
  type ConductorListener,
  type ConductorService,
  type GenerationOptions,
  type GenerationStats,
  type HandOver,
  type LocalChatRequest,
  type LocalChatResponse,
  type PlanRequest,
  type PlanResponse,
  type PoolEntry,
  type ReplanRequest,
  type ReplanResponse,
} from '../src/shared/conductor-api.ts';
import { handsOver } from '../src/shared/engine-errors.ts';
import type { PlanFiles } from '../src/shared/plan/files.ts';
import {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_STEPS,
  IncrementalPlanParser,
  type ParseOptions,
  type Plan,
  type PlanResult,
  parsePlan,
  planJsonSchema,
  planLimitsFor,
  plannedPool,
  poolValidateOptions,
  type Step,
  validatePlan,
} from '../src/shared/plan/index.ts';
import type { PlanTools } from '../src/shared/plan/tools.ts';
import { SELF_WORKER } from '../src/shared/worker-ids.ts';
import {
  type ConductorEngine,
  type GenerateResult,
  type LoadProgress,
  type ModelRef,
  sameModel,
} from './engines/engine.ts';
import { buildPlanMessages, buildRepairMessages, buildReplanMessages } from './prompt/prompt.ts';

export type EngineFactory = (kind: ModelRef['engine']) => Promise<ConductorEngine>;

/** What the host reads from the device besides its engines; the thread supplies it (conductor.worker.ts). */
export interface HostDevice {
  cacheStatus(model: ModelRef): Promise<CacheStatus>;
  deleteCache(model: ModelRef): Promise<boolean>;
  /** The model ids a local planner server lists (it refuses a non-loopback URL). */
  serverModels(baseURL: string): Promise<string[]>;
}

/** Unit tests drive the host without a device: planning needs none. */
const NO_DEVICE: HostDevice = {
  cacheStatus: () => Promise.reject(new Error('This host has no model cache')),
  deleteCache: () => Promise.reject(new Error('This host has no model cache')),
  serverModels: () => Promise.reject(new Error('This host has no local server engine')),
};

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
  const planLimits = planLimitsFor(request.mode, request);
  const { maxSteps } = planLimits;
  const maxDepth = request.maxDepth ?? DEFAULT_MAX_DEPTH;
  const pool = plannedPool(request.mode, request.pool);
  // Validation and the output constraint share the length limits, so neither rejects what the other allows.
  const limits = {
    ...poolValidateOptions(pool, planLimits),
    selfOnlyLast: true,
    minSteps: 1,
    offset: 0,
    ...lengthLimits(request),
    ...filesOf(request, pool),
    ...toolsOf(request, pool),
  };
  // Grammar converters put optional properties after required ones: without requireThought the model
  // would write its reasoning after the steps, where it helps nothing. The router skips it to answer fast.
  const schemaFor = (l: ParseOptions) =>
    planJsonSchema({
      ...l,
      maxSteps: l.maxSteps ?? maxSteps,
      requireThought: !router,
      // The router's one step answers the question, so it gets every file.
      ...(router && l.files ? { allFiles: true } : {}),
    });
  const jsonSchema = schemaFor(limits);
  const messages = buildPlanMessages({
    question: request.question,
    pool,
    mode: request.mode,
    maxSteps,
    maxDepth,
    ...(request.includeQuestion !== undefined ? { includeQuestion: request.includeQuestion } : {}),
    ...(request.examples ? { examples: request.examples } : {}),
    ...(request.conversation ? { conversation: request.conversation } : {}),
    ...(request.instructions ? { instructions: request.instructions } : {}),
    ...(request.attachments?.length ? { attachments: request.attachments } : {}),
    ...(request.tools?.length ? { tools: request.tools } : {}),
  });
  return { messages, jsonSchema, schemaFor, limits, pool };
}

/** The prompt, the output constraint and the validation limits of corrective steps after `request.steps`. */
function replanPrompt(request: ReplanRequest) {
  const maxDepth = request.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxSteps = request.maxSteps ?? DEFAULT_MAX_STEPS;
  const pool = plannedPool('conductor', request.pool);
  const limits = {
    ...poolValidateOptions(pool, { maxSteps, allowSelf: request.depth < maxDepth }),
    selfOnlyLast: true,
    minSteps: 0,
    offset: request.steps.length,
    ...lengthLimits(request),
    ...filesOf(request, pool),
    ...toolsOf(request, pool),
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
    ...(request.includeQuestion !== undefined ? { includeQuestion: request.includeQuestion } : {}),
  });
  return { messages, schemaFor, limits };
}

/**
 * The tools offered, as validation and the decoding schema read them: always given, so a step that names a
 * tool when none is offered is refused by name (the schema then has no `tools` at all).
 */
function toolsOf(request: PlanRequest | ReplanRequest, pool: readonly PoolEntry[]): { tools: PlanTools } {
  return {
    tools: {
      names: (request.tools ?? []).map((tool) => tool.name),
      toolWorkers: pool.filter((entry) => entry.tools).map((entry) => entry.id),
    },
  };
}

/** The question's files as validation and the decoding schema read them (nothing without files). */
function filesOf(request: PlanRequest | ReplanRequest, pool: readonly PoolEntry[]): { files?: PlanFiles } {
  const attachments = request.attachments ?? [];
  if (attachments.length === 0) return {};
  return {
    files: {
      count: attachments.length,
      images: attachments.flatMap((a, i) => (a.kind === 'image' ? [i] : [])),
      names: attachments.map((a) => a.name),
      visionWorkers: pool.filter((entry) => entry.vision).map((entry) => entry.id),
    },
  };
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

/** A prompt for steps (a first plan or corrective steps) with its output constraint and validation limits. */
interface StepsPrompt {
  messages: ChatMessage[];
  schemaFor: (limits: ParseOptions) => JsonSchema;
  limits: ParseOptions;
}

/** One generation while it runs: its stop signal, its event stream and its statistics. */
interface Call {
  signal: AbortSignal;
  emit: (event: ConductorEvent) => void;
  stats: StatsCollector;
  /** The model it runs on now, and the one the user allowed next (used once). */
  model: ModelRef;
  fallback?: ModelRef;
  handedOver?: HandOver;
}

type Outcome =
  | { ok: true; plan: Plan; attempt: Attempt; repaired?: { error: string; issues: string[] } }
  | { ok: false; error: string; issues: string[]; last: Attempt; kept: Step[] };

/** What the rejected attempts were rejected for, each problem once (a repair often repeats the first's). */
function distinctIssues(...results: PlanResult[]): string[] {
  return [...new Set(results.flatMap((r) => (r.ok ? [] : r.issues.map((issue) => issue.message))))];
}

const noop = () => {};

/**
 * Everything the conductor thread does, without comlink: engines, loading (and reloading after a
 * restart), planning with validation, one repair and a reported fallback, local chat, cancel.
 * Runs in the thread (conductor.worker.ts exposes it); unit tests drive it in node with a scripted engine.
 * One generation runs at a time: callers queue (the bridge does), so a second call meanwhile is refused.
 */
export class EngineHost implements ConductorService {
  private engine: ConductorEngine | undefined;
  private loading: Promise<void> | undefined;
  private loadingModel: ModelRef | undefined;
  private readonly controllers = new Map<string, AbortController>();

  constructor(
    private readonly createEngine: EngineFactory,
    private readonly device: HostDevice = NO_DEVICE,
  ) {}

  /** The model the engine holds (the thread's fact; the page's owner of the loaded model is its app state). */
  loaded(): ModelRef | undefined {
    return this.engine?.loaded();
  }

  /** Loads `model` unless it is already loaded (or loading); a different model replaces the current one. */
  async load(model: ModelRef, onProgress?: (progress: LoadProgress) => unknown): Promise<void> {
    if (sameModel(this.engine?.loaded(), model)) return;
    if (this.loading && sameModel(this.loadingModel, model)) return this.loading;
    // Progress is fire-and-forget: across comlink each report is a message nobody needs to wait for.
    const report = (progress: LoadProgress) => {
      void Promise.resolve(onProgress?.(progress)).catch(noop);
    };
    const previous = this.loading;
    const run = (async () => {
      await previous?.catch(() => {});
      if (sameModel(this.engine?.loaded(), model)) return;
      if (this.engine && this.engine.kind !== model.engine) {
        await this.engine.unload();
        this.engine = undefined;
      }
      this.engine ??= await this.createEngine(model.engine);
      await this.engine.load(model, report);
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

  /**
   * Soft stop: aborts the request's generation (during its model load, it stops once the load ends, which
   * other requests may share). False if it is unknown.
   */
  cancel(requestId: string): boolean {
    const controller = this.controllers.get(requestId);
    if (!controller) return false;
    controller.abort();
    this.engine?.interrupt();
    return true;
  }

  cacheStatus(model: ModelRef): Promise<CacheStatus> {
    return this.device.cacheStatus(model);
  }

  serverModels(baseURL: string): Promise<string[]> {
    return this.device.serverModels(baseURL);
  }

  /** Deletes a model's files, unloading it first when it is the loaded one. */
  async deleteCache(model: ModelRef): Promise<boolean> {
    if (sameModel(this.loaded(), model)) await this.unload();
    return this.device.deleteCache(model);
  }

  /**
   * The one path of every generation: registers its cancel, loads the named model (reloading it after a
   * restart), runs `work`, and ends the event stream with `stats`, awaited, so the caller has every
   * event before the result (or the error). `request.signal` stops it too, when the caller is in this thread.
   */
  private async generation<T extends { stats: GenerationStats }>(
    request: GenerationOptions,
    onEvent: ConductorListener | undefined,
    work: (call: Call) => Promise<T>,
  ): Promise<T> {
    const requestId = request.requestId ?? crypto.randomUUID();
    if (this.controllers.has(requestId)) throw new Error(`Request ${requestId} is already running`);
    if (this.controllers.size > 0) {
      throw new Error(
        'The conductor runs one generation at a time: wait for the running one (the bridge queues)',
      );
    }
    const controller = new AbortController();
    this.controllers.set(requestId, controller);
    const stopOnAbort = () => this.cancel(requestId);
    request.signal?.addEventListener('abort', stopOnAbort, { once: true });
    if (request.signal?.aborted) controller.abort();
    const deliver = onEvent && this.deliverTo(onEvent);
    const emit = (event: ConductorEvent) => {
      try {
        void Promise.resolve(deliver?.(event)).catch(noop);
      } catch {
        // A listener's fault must not stop the generation.
      }
    };
    let stats: StatsCollector | undefined;
    let final: GenerationStats | undefined;
    try {
      if (controller.signal.aborted) throw cancelled();
      const model = request.model ?? this.loaded();
      if (!model) throw new ConductorError('ModelNotLoaded', 'Load a conductor model first');
      await this.load(model);
      if (controller.signal.aborted) throw cancelled();
      stats = new StatsCollector(performance.now());
      const call: Call = { signal: controller.signal, emit, stats, model };
      if (request.fallback && !sameModel(model, request.fallback)) call.fallback = request.fallback;
      const result = await work(call);
      final = result.stats;
      return result;
    } finally {
      request.signal?.removeEventListener('abort', stopOnAbort);
      if (onEvent && deliver) {
        const event: ConductorEvent = {
          kind: 'stats',
          stats: final ?? (stats ?? new StatsCollector(0)).done(),
        };
        try {
          await Promise.resolve(deliver(event)).catch(noop);
        } catch {
          // As above: the listener's fault is not the call's.
        }
        this.releaseListener(onEvent);
      }
      this.controllers.delete(requestId);
    }
  }

  /** How a generation's events reach its listener: directly here; the thread batches tokens for the page. */
  protected deliverTo(listener: ConductorListener): ConductorListener {
    return listener;
  }

  /** Called when a generation's listener has had its last event; the thread releases comlink's proxy here. */
  protected releaseListener(_listener: ConductorListener): void {}

  /**
   * Generates steps (a first plan or corrective steps); when the output does not validate, tries once
   * more with a prompt that quotes the validation error. What to do after two failures is the caller's.
   *
   * Steps streamed before the fault were valid against the pool and the steps before them, and the page
   * may already have started them (paid requests): they stand. The repair writes only the steps after
   * them and is streamed the same way, so nothing streamed is ever taken back.
   */
  private async generateValidated(
    prompt: StepsPrompt,
    gen: { maxTokens: number; temperature: number },
    call: Call,
  ): Promise<Outcome> {
    const { messages, schemaFor, limits } = prompt;
    const first = await this.streamAttempt(messages, gen, schemaFor(limits), limits, 1, call);
    if (first.parsed.ok) return { ok: true, plan: first.parsed.plan, attempt: first };
    const error = lengthNote(first);
    const kept = first.streamed;
    call.emit({ kind: 'restart', attempt: 2, reason: error, kept: kept.length });
    const offset = limits.offset ?? 0;
    const room = (limits.maxSteps ?? DEFAULT_MAX_STEPS) - kept.length;
    const after: ParseOptions =
      kept.length === 0 ? limits : { ...limits, offset: offset + kept.length, maxSteps: room, minSteps: 0 };
    if (kept.length > 0 && room <= 0) {
      // No room for another step: the kept steps are the plan, if they make one.
      const whole = validatePlan({ steps: kept }, limits);
      const issues = distinctIssues(first.parsed, whole);
      if (whole.ok) return { ok: true, plan: whole.plan, attempt: first, repaired: { error, issues } };
      return { ok: false, error: `${error}; then ${whole.message}`, issues, last: first, kept };
    }
    const repair = buildRepairMessages({
      messages,
      output: first.result.text,
      error,
      ...(kept.length > 0 ? { kept: { first: offset, count: kept.length } } : {}),
    });
    const second = await this.streamAttempt(repair, gen, schemaFor(after), after, 2, call, kept.length);
    const keptBoth = [...kept, ...second.streamed];
    if (!second.parsed.ok) {
      const issues = distinctIssues(first.parsed, second.parsed);
      return {
        ok: false,
        error: `${error}; then ${lengthNote(second)}`,
        issues,
        last: second,
        kept: keptBoth,
      };
    }
    const { thought } = second.parsed.plan;
    const steps = [...kept, ...second.parsed.plan.steps];
    const whole = validatePlan(thought === undefined ? { steps } : { thought, steps }, limits);
    const issues = distinctIssues(first.parsed, whole);
    if (whole.ok) return { ok: true, plan: whole.plan, attempt: second, repaired: { error, issues } };
    return { ok: false, error: `${error}; then ${whole.message}`, issues, last: second, kept: keptBoth };
  }

  /**
   * One generation of steps: tokens are passed on as they come, and each step as soon as its JSON object
   * closes (the incremental parser; indices continue after `limits.offset`). The whole text is then parsed
   * once more, which is authoritative.
   */
  private async streamAttempt(
    prompt: ChatMessage[],
    gen: { maxTokens: number; temperature: number },
    schema: JsonSchema,
    limits: ParseOptions,
    attemptNo: number,
    call: Call,
    keptBefore = 0,
  ): Promise<Attempt> {
    const parser = new IncrementalPlanParser(limits);
    const streamed: Step[] = [];
    const send = (index: number, step: Step) => {
      streamed.push(step);
      call.emit({ kind: 'step', index, step, attempt: attemptNo });
    };
    // A self-check may only be the last step, which is known only when the plan closes: it is held until
    // then (it cannot start before the steps it checks anyway). A step after it ends the streaming, so an
    // invalid plan's self-check is never one of the steps that stand.
    let held: { index: number; step: Step } | undefined;
    let stopped = false;
    let written = '';
    let result: GenerateResult;
    try {
      result = await this.generate(prompt, { ...gen, jsonSchema: schema }, call.signal, (piece) => {
        written += piece;
        call.emit({ kind: 'token', text: piece });
        for (const event of parser.push(piece)) {
          if (event.type !== 'step' || stopped) continue;
          if (held && limits.selfOnlyLast) {
            stopped = true;
            continue;
          }
          if (event.step.worker === SELF_WORKER && limits.selfOnlyLast) held = event;
          else send(event.index, event.step);
        }
      });
    } catch (error) {
      const reason = await this.handOver(error, call);
      if (streamed.length === 0) {
        // Nothing of it stands: the same prompt again, on the engine that took over.
        call.emit({ kind: 'restart', attempt: attemptNo, reason, kept: keptBefore });
        return this.streamAttempt(prompt, gen, schema, limits, attemptNo, call, keptBefore);
      }
      // Steps stood before the engine gave up: like a rejected attempt, the repair continues after them.
      const partial: GenerateResult = {
        text: written,
        promptTokens: 0,
        completionTokens: 0,
        finishReason: 'stop',
      };
      return { result: partial, parsed: { ok: false, issues: [], message: reason }, streamed };
    }
    call.stats.add(result);
    const parsed = parsePlan(result.text, limits);
    if (held && !stopped && parsed.ok) send(held.index, held.step);
    return { result, parsed, streamed };
  }

  /**
   * Moves a call to the engine the user allowed next when its engine cannot take it (`handsOver`); a lost
   * session with nothing allowed next gets one more try on the same model (its engine starts a new
   * session). Rethrows anything else, and a second failure. Returns the reason, in words for the user.
   */
  private async handOver(error: unknown, call: Call): Promise<string> {
    const name = (error as { name?: string }).name ?? '';
    if (!handsOver(name) || call.signal.aborted) throw error;
    const target =
      call.fallback ?? (name === 'SessionLostError' && !call.handedOver ? call.model : undefined);
    if (!target) throw error;
    call.fallback = undefined;
    const why = (error as Error).message;
    const reason = sameModel(target, call.model)
      ? `${why} Trying again in a new session.`
      : `${why} Planning moves to ${modelName(target)}, the engine allowed next.`;
    call.handedOver = { to: target, reason };
    call.model = target;
    await this.load(target);
    if (call.signal.aborted) throw cancelled();
    return reason;
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

  /** Writes a plan; after two invalid outputs, one step on the strongest worker (after any kept steps). */
  plan(request: PlanRequest, onEvent?: ConductorListener): Promise<PlanResponse> {
    return this.generation(request, onEvent, async (call) => {
      const prompt = planPrompt(request);
      const outcome = await this.generateValidated(prompt, planGen(request), call);
      if (outcome.ok) return { plan: outcome.plan, ...accepted(outcome, call) };
      const strongest = strongestWorker(prompt.pool);
      if (!strongest) throw new ConductorError('NoWorkers', 'The pool has no worker to fall back to');
      // Steps already streamed stand (they may be running); the strongest worker answers after them.
      const kept = outcome.kept;
      const reason =
        `The conductor's plan was invalid twice (${outcome.error}), ` +
        (kept.length === 0
          ? `so the question goes to ${strongest.label} alone.`
          : `so ${strongest.label} answers the question after the ${kept.length === 1 ? 'step' : 'steps'} already running.`);
      call.emit({ kind: 'restart', attempt: 3, reason, kept: kept.length });
      const step: Step = {
        worker: strongest.id,
        task: request.question,
        sees: kept.length === 0 ? [] : 'all',
      };
      const room = kept.length < prompt.limits.maxSteps;
      if (room) call.emit({ kind: 'step', index: kept.length, step, attempt: 3 });
      const plan: Plan = {
        thought: 'Fallback: one step on the strongest worker.',
        steps: room ? [...kept, step] : kept,
      };
      return {
        plan,
        stats: call.stats.done(),
        fallback: { reason, issues: outcome.issues },
        ...(call.handedOver ? { handedOver: call.handedOver } : {}),
        raw: outcome.last.result.text,
      };
    });
  }

  /** Corrective steps after `request.steps`; after two invalid outputs, none (the answer is accepted). */
  replan(request: ReplanRequest, onEvent?: ConductorListener): Promise<ReplanResponse> {
    return this.generation(request, onEvent, async (call) => {
      const outcome = await this.generateValidated(replanPrompt(request), planGen(request), call);
      if (outcome.ok) {
        return withThought({ steps: outcome.plan.steps, ...accepted(outcome, call) }, outcome.attempt);
      }
      const reason = `The conductor's corrective steps were invalid twice (${outcome.error}), so the current answer is accepted.`;
      call.emit({ kind: 'restart', attempt: 3, reason });
      return { steps: [], stats: call.stats.done(), fallback: { reason }, raw: outcome.last.result.text };
    });
  }

  chat(request: LocalChatRequest, onEvent?: ConductorListener): Promise<LocalChatResponse> {
    return this.generation(request, onEvent, async (call) => {
      const result = await this.generate(
        request.messages,
        { maxTokens: request.maxTokens ?? DEFAULT_CHAT_TOKENS, temperature: request.temperature ?? 0.7 },
        call.signal,
        (text) => call.emit({ kind: 'token', text }),
      );
      call.stats.add(result);
      return { text: result.text, stats: call.stats.done(), finishReason: result.finishReason };
    });
  }
}

/** What a plan and corrective steps the model wrote (first time or repaired) report besides the steps. */
function accepted(outcome: Extract<Outcome, { ok: true }>, call: Call) {
  return {
    stats: call.stats.done(),
    ...(outcome.repaired ? { repaired: outcome.repaired } : {}),
    ...(call.handedOver ? { handedOver: call.handedOver } : {}),
    raw: outcome.attempt.result.text,
  };
}

/** A model as the user knows it, in a sentence of the thread's (the page has the full labels). */
function modelName(model: ModelRef): string {
  switch (model.engine) {
    case 'webllm':
      return model.modelId;
    case 'wllama':
      return `${model.name ?? model.url.split('/').pop() ?? model.url} on the CPU`;
    case 'local-server':
      return `${model.model} on the local server`;
    case 'prompt-api':
      return "Chrome's built-in model";
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
  private cachedPromptTokens: number | undefined;
  private completionTokens = 0;
  private prefill: number | undefined;
  private decode: number | undefined;
  constructor(private readonly started: number) {}
  add(result: GenerateResult) {
    this.promptTokens += result.promptTokens;
    if (result.cachedPromptTokens !== undefined) {
      this.cachedPromptTokens = (this.cachedPromptTokens ?? 0) + result.cachedPromptTokens;
    }
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
    if (this.cachedPromptTokens !== undefined) stats.cachedPromptTokens = this.cachedPromptTokens;
    if (this.prefill !== undefined) stats.prefillTokensPerSec = this.prefill;
    if (this.decode !== undefined) stats.decodeTokensPerSec = this.decode;
    return stats;
  }
}
