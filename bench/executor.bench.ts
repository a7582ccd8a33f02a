// Executor benchmarks (issue 3): P1 parallel scheduling, P2 streaming dispatch, P5 context tokens.

// All against the local test provider with fixed latencies; ratios measured side by side in one run.
import { criticalPath, dependencies } from '../src/executor/dag.ts';
import { type RunOptions, startRun } from '../src/executor/executor.ts';
import type { RunResult } from '../src/executor/types.ts';
import { createOpenAITransport } from '../src/providers/openai-transport.ts';
import type { Plan } from '../src/shared/plan/index.ts';
import type { WorkerSpec } from '../src/shared/worker-spec.ts';
import { BRANCHES } from '../test/fixtures/branches-plan.ts';
import { stepsFromTokens } from '../test/fixtures/plan-stream.ts';
import { directFetch } from '../test/provider/direct-fetch.ts';
import { startProvider, type TestProvider } from '../test/provider/server.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark } from './types.ts';

const FIRST_TOKEN_MS = 150;
const PER_TOKEN_MS = 10;
/** Each answer is 10 tokens: 150 + 9 × 10 = 240 ms per step, nominally. */
const ANSWER = 'one two three four five six seven eight nine ten';
const transport = createOpenAITransport({ fetch: directFetch });

function worker(provider: TestProvider, id: string, model: string): WorkerSpec {
  return {
    id,
    label: id,
    strengths: '',
    providerId: 'bench',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 8,
    enabled: true,
  };
}

async function withProvider<T>(fn: (provider: TestProvider) => Promise<T>): Promise<T> {
  const provider = await startProvider({
    models: [
      {
        id: 'timed',
        behaviour: { kind: 'fixed', text: ANSWER },
        latency: { firstTokenMs: FIRST_TOKEN_MS, perTokenMs: PER_TOKEN_MS },
      },
    ],
  });
  try {
    return await fn(provider);
  } finally {
    await provider.close();
  }
}

async function timedRun(options: RunOptions): Promise<{ wall: number; result: RunResult }> {
  const start = performance.now();
  const result = await startRun(options).result;
  const wall = performance.now() - start;
  if (result.status !== 'done') throw new Error(`bench run ended ${result.status}: ${result.error ?? ''}`);
  return { wall, result };
}

/** The critical path of a finished run, weighted by each step's measured duration. */
function measuredCriticalPath(plan: Plan, result: RunResult): number {
  const durations = result.steps.map((s) => (s.timings.endedAt ?? 0) - (s.timings.startedAt ?? 0));
  return criticalPath(dependencies(plan.steps), durations).length;
}

// ---- P1 ----

const P1_RUNS = 7;

let p1:
  | Promise<{
      parallel: number[];
      sequential: number[];
      nominal: number[];
      walls: number[];
      single: number[];
    }>
  | undefined;
function measureP1() {
  p1 ??= withProvider(async (provider) => {
    const pool = [worker(provider, 'w', 'timed')];
    const out = {
      parallel: [] as number[],
      sequential: [] as number[],
      nominal: [] as number[],
      walls: [] as number[],
      single: [] as number[],
    };
    // Warm the connection pool once so neither variant pays for the first connect.
    await timedRun({ question: 'warm-up', pool, transport, plan: { steps: [BRANCHES.steps[0]!] } });
    for (let i = 0; i < P1_RUNS; i++) {
      // One step alone, through the same client: what a step costs end to end on this machine now.
      out.single.push(
        (await timedRun({ question: 'bench', pool, transport, plan: { steps: [BRANCHES.steps[0]!] } })).wall,
      );
      // Alternate the order so both variants see the same machine load.
      for (const sequential of i % 2 === 0 ? [false, true] : [true, false]) {
        const { wall, result } = await timedRun({
          question: 'bench',
          pool,
          transport,
          plan: BRANCHES,
          sequential,
        });
        const ratio = wall / measuredCriticalPath(BRANCHES, result);
        if (sequential) out.sequential.push(ratio);
        else {
          out.parallel.push(ratio);
          out.walls.push(wall);
          const nominalStep = FIRST_TOKEN_MS + PER_TOKEN_MS * (ANSWER.split(' ').length - 1);
          out.nominal.push(wall / (3 * nominalStep));
        }
      }
    }
    return out;
  });
  return p1;
}

// ---- P2 ----

const STREAMED_PLAN = JSON.stringify({
  thought: 'Draft, then review, then polish.',
  steps: [
    { worker: 'w', task: 'Write a first draft of the answer.', sees: [] },
    { worker: 'w', task: 'Review the draft and list its mistakes.', sees: [0] },
    { worker: 'w', task: 'Write the final answer, fixing every mistake listed.', sees: 'all' },
  ],
});
const TOKEN_CHARS = 4;
const TOKEN_INTERVAL_MS = 10;
const P2_RUNS = 5;

async function* tokenStream(text: string, marks: { planComplete?: number }): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += TOKEN_CHARS) {
    await new Promise((resolve) => setTimeout(resolve, TOKEN_INTERVAL_MS));
    yield text.slice(i, i + TOKEN_CHARS);
  }
  marks.planComplete = performance.now();
}

let p2: Promise<{ ratios: number[]; dispatch: number[]; complete: number[] }> | undefined;
function measureP2() {
  p2 ??= withProvider(async (provider) => {
    const pool = [worker(provider, 'w', 'timed')];
    const out = { ratios: [] as number[], dispatch: [] as number[], complete: [] as number[] };
    for (let i = 0; i < P2_RUNS; i++) {
      const marks: { planComplete?: number } = {};
      let firstDispatch: number | undefined;
      const start = performance.now();
      const steps = stepsFromTokens(tokenStream(STREAMED_PLAN, marks), { workerIds: ['w'] });
      await timedRun({
        question: 'bench',
        pool,
        transport,
        plan: steps,
        onEvent: (event) => {
          if (event.type === 'step-started' && firstDispatch === undefined) firstDispatch = performance.now();
        },
      });
      if (firstDispatch === undefined || marks.planComplete === undefined)
        throw new Error('P2: nothing measured');
      out.dispatch.push(firstDispatch - start);
      out.complete.push(marks.planComplete - start);
      out.ratios.push((firstDispatch - start) / (marks.planComplete - start));
    }
    return out;
  });
  return p2;
}

// ---- P5 ----

/** A plan whose steps each see only what they need. */
const SELECTIVE: Plan = {
  steps: [
    { worker: 'w', task: 'Find the facts about the first part of the question.', sees: [] },
    { worker: 'w', task: 'Find the facts about the second part of the question.', sees: [] },
    { worker: 'w', task: 'Check the facts about the first part.', sees: [0] },
    { worker: 'w', task: 'Check the facts about the second part.', sees: [1] },
    { worker: 'w', task: 'Write the answer from the checked facts.', sees: [2, 3] },
  ],
};
const EVERYTHING: Plan = { steps: SELECTIVE.steps.map((s) => ({ ...s, sees: 'all' as const })) };
const QUESTION = 'What is the boiling point of water at the top of Mount Everest, and why is it lower?';

let p5: Promise<{ selective: number; all: number }> | undefined;
function measureP5() {
  p5 ??= withProvider(async (provider) => {
    provider.setModel({ id: 'fast', behaviour: { kind: 'fixed', text: `${ANSWER} ${ANSWER} ${ANSWER}` } });
    const pool = [worker(provider, 'w', 'fast')];
    const selective = await timedRun({ question: QUESTION, pool, transport, plan: SELECTIVE });
    const all = await timedRun({ question: QUESTION, pool, transport, plan: EVERYTHING });
    return { selective: selective.result.totals.promptTokens, all: all.result.totals.promptTokens };
  });
  return p5;
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p1-critical-path',
    title: 'P1: executor wall time / critical-path latency, 5-step plan with two parallel branches',
    async run() {
      const { parallel, sequential, nominal, walls, single } = await measureP1();
      return {
        value: round(median(parallel)),
        goal: 1.05,
        unit: '×',
        better: 'lower',
        notes:
          `median of ${P1_RUNS} runs (p90 ${round(quantile(parallel, 0.9))}); critical path = measured step durations ` +
          `along the longest chain; sequential executor (one step at a time, as the paper) in the same run: ` +
          `${round(median(sequential))}×; parallel wall ${round(median(walls))} ms = ` +
          `${round(median(walls) / (3 * median(single)))}× three one-step runs (${round(median(single))} ms each) ` +
          `and ${round(median(nominal))}× the nominal 3 × ${FIRST_TOKEN_MS + 9 * PER_TOKEN_MS} ms (the gap to ` +
          `nominal is per-request time on this loaded machine, inside every step)`,
      };
    },
  },
  {
    id: 'p2-first-dispatch',
    title: 'P2: time of first dispatch / time the plan is complete, 3-step plan streamed as tokens',
    async run() {
      const { ratios, dispatch, complete } = await measureP2();
      return {
        value: round(median(ratios)),
        goal: 0.5,
        unit: '×',
        better: 'lower',
        notes:
          `median of ${P2_RUNS}; plan of ${STREAMED_PLAN.length} chars as ${TOKEN_CHARS}-char tokens every ` +
          `${TOKEN_INTERVAL_MS} ms through IncrementalPlanParser; first dispatch at ${round(median(dispatch))} ms, ` +
          `plan complete at ${round(median(complete))} ms`,
      };
    },
  },
  {
    id: 'p5-context-tokens',
    title: 'P5: prompt tokens sent to workers with selective sees / the same plan where every step sees all',
    async run() {
      const { selective, all } = await measureP5();
      return {
        value: round(selective / all),
        goal: 1,
        unit: '×',
        better: 'lower',
        notes: `prompt tokens as the provider counted them: ${selective} selective vs ${all} with "all" (5 steps, 30-token answers)`,
      };
    },
  },
];
