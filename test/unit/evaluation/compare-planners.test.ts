import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  classifyShape,
  type PlanAttempt,
  scorePlan,
  summarizePlanner,
} from '../../../src/evaluation/compare-planners.ts';
import { runPlannerComparison, type StatsConductor } from '../../../src/evaluation/compare-planners-run.ts';
import { PlannerCompareStore } from '../../../src/evaluation/compare-planners-store.ts';
import {
  PLAN_SHAPES,
  PLANNER_CATEGORIES,
  PLANNER_SET,
  type PlannerQuestion,
  plannerSample,
  REFERENCE_POOL,
  WORKER_KINDS,
} from '../../../src/evaluation/planner-set.ts';
import type { Plan, Sees } from '../../../src/shared/plan/index.ts';

const sees = (...list: Sees[]) => list.map((s) => ({ sees: s }));
const stats = { completionTokens: 40, ms: 1200 };
const question = (shape: PlannerQuestion['shape'], needs: PlannerQuestion['needs']): PlannerQuestion => ({
  id: `q-${shape}`,
  category: 'multi-part',
  question: 'A question',
  shape,
  needs,
});
const plan = (...steps: [worker: string, sees: Sees][]): Plan => ({
  steps: steps.map(([worker, s]) => ({ worker, task: `do it on ${worker}`, sees: s })),
});

describe('classifyShape', () => {
  it('calls one step one-step', () => {
    expect(classifyShape(sees([]))).toBe('one-step');
  });

  it('calls a chain, each step on the one before, a check', () => {
    expect(classifyShape(sees([], [0]))).toBe('check');
    expect(classifyShape(sees([], 'all', 'all'))).toBe('check');
    expect(classifyShape(sees([], [0], [1]))).toBe('check');
  });

  it('calls independent steps joined by a later one parallel-merge', () => {
    expect(classifyShape(sees([], [], 'all'))).toBe('parallel-merge');
    expect(classifyShape(sees([], [], [], [0, 1, 2]))).toBe('parallel-merge');
    // A merge followed by a check of the merge is still parallel work merged.
    expect(classifyShape(sees([], [], [0, 1], [2]))).toBe('parallel-merge');
    // Two branches that each build on a common first step, then meet.
    expect(classifyShape(sees([], [0], [0], [1, 2]))).toBe('parallel-merge');
  });

  it('does not call two dependent steps seen together a merge', () => {
    // Step 2 sees 0 and 1, but 1 already builds on 0: a chain.
    expect(classifyShape(sees([], [0], [0, 1]))).toBe('check');
  });

  it('calls steps whose answers never meet unjoined', () => {
    expect(classifyShape(sees([], []))).toBe('unjoined');
    expect(classifyShape(sees([], [], [1]))).toBe('unjoined');
  });
});

describe('scorePlan', () => {
  it('scores a valid plan of the labelled shape on fitting workers as a full hit, with its stats', () => {
    const score = scorePlan(question('parallel-merge', ['code', 'writing']), {
      kind: 'plan',
      plan: plan(['coder', []], ['writer', []], ['writer', 'all']),
      stats,
    });
    expect(score).toEqual({
      questionId: 'q-parallel-merge',
      valid: true,
      shape: 'parallel-merge',
      shapeAgrees: true,
      workerFit: 1,
      steps: 3,
      planTokens: 40,
      planningMs: 1200,
    });
  });

  it('counts worker fit as the share of worker steps on a needed kind, leaving the self-check out', () => {
    const score = scorePlan(question('check', ['math', 'writing']), {
      kind: 'plan',
      plan: plan(['solver', []], ['quick', [0]], ['writer', 'all'], ['self', 'all']),
      stats,
    });
    expect(score.valid).toBe(true);
    expect(score.shape).toBe('check');
    expect(score.workerFit).toBeCloseTo(2 / 3);
  });

  it('marks a plan of the wrong shape as a shape miss, still valid', () => {
    const score = scorePlan(question('check', ['fast']), {
      kind: 'plan',
      plan: plan(['quick', []]),
      stats,
    });
    expect(score).toMatchObject({ valid: true, shape: 'one-step', shapeAgrees: false, workerFit: 1 });
  });

  it('rejects a plan naming a worker outside the reference pool, saying which', () => {
    const score = scorePlan(question('one-step', ['fast']), {
      kind: 'plan',
      plan: plan(['gpt-9', []]),
      stats,
    });
    expect(score).toMatchObject({ valid: false, shapeAgrees: false, workerFit: 0, planTokens: 40 });
    expect(score.problem).toContain('"gpt-9"');
    expect(score.problem).toContain('"Quick" (quick)');
  });

  it('rejects a self-check that is not the last step', () => {
    const score = scorePlan(question('check', ['fast']), {
      kind: 'plan',
      plan: plan(['quick', []], ['self', 'all'], ['quick', 'all']),
      stats,
    });
    expect(score.valid).toBe(false);
    expect(score.problem).toContain('self-check');
  });

  it('counts a repaired plan as not valid but scores its shape and fit', () => {
    const score = scorePlan(question('one-step', ['code']), {
      kind: 'plan',
      plan: plan(['coder', []]),
      repaired: 'Step 0 has an empty task.',
      stats,
    });
    expect(score).toMatchObject({ valid: false, shapeAgrees: true, workerFit: 1 });
    expect(score.problem).toBe('repaired: Step 0 has an empty task.');
  });

  it('scores a fallback plan (not the model’s) and a failure as misses', () => {
    const fallback: PlanAttempt = {
      kind: 'plan',
      plan: plan(['solver', []]),
      fallback: 'the repair was not valid JSON',
      stats,
    };
    expect(scorePlan(question('one-step', ['math']), fallback)).toMatchObject({
      valid: false,
      shapeAgrees: false,
      workerFit: 0,
      problem: 'fallback: the repair was not valid JSON',
    });
    const failed = scorePlan(question('one-step', ['math']), { kind: 'failed', error: 'The thread crashed' });
    expect(failed).toEqual({
      questionId: 'q-one-step',
      valid: false,
      problem: 'The thread crashed',
      shapeAgrees: false,
      workerFit: 0,
    });
  });
});

describe('summarizePlanner', () => {
  it('gives rates over every question and means over calls with stats', () => {
    const summary = summarizePlanner([
      { questionId: 'a', valid: true, shapeAgrees: true, workerFit: 1, planTokens: 30, planningMs: 1000 },
      { questionId: 'b', valid: true, shapeAgrees: false, workerFit: 0.5, planTokens: 50, planningMs: 3000 },
      { questionId: 'c', valid: false, shapeAgrees: false, workerFit: 0, problem: 'crashed' },
      { questionId: 'd', valid: false, shapeAgrees: true, workerFit: 0.5, planTokens: 100, planningMs: 2000 },
    ]);
    expect(summary).toEqual({
      questions: 4,
      validRate: 0.5,
      shapeAgreement: 0.5,
      workerFit: 0.5,
      meanPlanTokens: 60,
      meanPlanningMs: 2000,
    });
  });

  it('has no means when nothing was measured', () => {
    expect(summarizePlanner([])).toEqual({ questions: 0, validRate: 0, shapeAgreement: 0, workerFit: 0 });
  });
});

describe('the planner set', () => {
  it('has at least 40 questions with unique ids, every category and every shape', () => {
    expect(PLANNER_SET.length).toBeGreaterThanOrEqual(40);
    expect(new Set(PLANNER_SET.map((q) => q.id)).size).toBe(PLANNER_SET.length);
    expect(new Set(PLANNER_SET.map((q) => q.category))).toEqual(new Set(PLANNER_CATEGORIES));
    expect(new Set(PLANNER_SET.map((q) => q.shape))).toEqual(new Set(PLAN_SHAPES));
  });

  it('labels every question with a known shape and needed kinds some reference worker has', () => {
    const poolKinds = new Set(REFERENCE_POOL.flatMap((w) => w.kinds));
    for (const item of PLANNER_SET) {
      expect(PLAN_SHAPES, item.id).toContain(item.shape);
      expect(item.needs.length, item.id).toBeGreaterThan(0);
      for (const kind of item.needs) {
        expect(WORKER_KINDS, item.id).toContain(kind);
        expect(poolKinds.has(kind), `${item.id} needs ${kind}`).toBe(true);
      }
      expect(item.question.trim().length, item.id).toBeGreaterThan(10);
    }
  });

  it('has a reference pool of four workers covering every kind', () => {
    expect(REFERENCE_POOL).toHaveLength(4);
    expect(new Set(REFERENCE_POOL.flatMap((w) => w.kinds))).toEqual(new Set(WORKER_KINDS));
  });

  it('samples across categories, and the whole set past its size', () => {
    const six = plannerSample(6);
    expect(new Set(six.map((q) => q.category))).toEqual(new Set(PLANNER_CATEGORIES));
    expect(plannerSample(3).map((q) => q.category)).toEqual(['facts', 'math', 'code']);
    expect(plannerSample(10_000)).toHaveLength(PLANNER_SET.length);
    expect(new Set(plannerSample(10_000))).toEqual(new Set(PLANNER_SET));
  });
});

/** Answers each plan from a script, as the bridge does: the model's plan, a repair, or a thrown error. */
function scriptedConductor(script: ((question: string) => Awaited<ReturnType<StatsConductor['plan']>>)[]) {
  const asked: string[] = [];
  const conductor: StatsConductor = {
    async plan(request) {
      asked.push(request.question);
      expect(request.pool.map((p) => p.id)).toEqual(REFERENCE_POOL.map((w) => w.id));
      expect(request.pool.some((p) => 'kinds' in p)).toBe(false);
      const next = script[asked.length - 1];
      if (!next) throw new Error('no script left');
      return next(request.question);
    },
  };
  return { conductor, asked };
}

describe('runPlannerComparison', () => {
  const one = { plan: plan(['quick', []]), stats: { ...stats, promptTokens: 300 } };

  it('plans each question on the reference pool, scoring each in order, and ends done', async () => {
    const { conductor, asked } = scriptedConductor([() => one, () => one]);
    const scores: string[] = [];
    const progress: string[] = [];
    const run = runPlannerComparison({
      conductor,
      questions: plannerSample(2),
      onScore: (s) => {
        scores.push(s.questionId);
      },
      onProgress: (p) => progress.push(`${p.state} ${p.finished}/${p.total}`),
    });
    expect(await run.finished).toEqual({ state: 'done', finished: 2, total: 2 });
    expect(asked).toEqual(plannerSample(2).map((q) => q.question));
    expect(scores).toEqual(['facts-1', 'math-1']);
    expect(progress).toEqual(['running 0/2', 'running 1/2', 'done 2/2']);
  });

  it('scores a failed plan as a miss and goes on, but stops with the reason when no model is loaded', async () => {
    const notLoaded = Object.assign(new Error('Load a model first.'), { name: 'ModelNotLoaded' });
    const { conductor } = scriptedConductor([
      () => {
        throw Object.assign(new Error('The thread stopped answering.'), { name: 'ThreadCrashed' });
      },
      () => {
        throw notLoaded;
      },
    ]);
    const scores: { id: string; problem?: string }[] = [];
    const run = runPlannerComparison({
      conductor,
      questions: plannerSample(3),
      onScore: (s) => {
        scores.push({ id: s.questionId, ...(s.problem ? { problem: s.problem } : {}) });
      },
    });
    expect(await run.finished).toEqual({
      state: 'failed',
      finished: 1,
      total: 3,
      error: 'Load a model first.',
    });
    expect(scores).toEqual([{ id: 'facts-1', problem: 'The thread stopped answering.' }]);
  });

  it('cancels the plan in progress: that question has no score and the rest are not asked', async () => {
    let release: (() => void) | undefined;
    const asked: string[] = [];
    const conductor: StatsConductor = {
      plan(request) {
        asked.push(request.question);
        if (asked.length === 1) return Promise.resolve(one);
        return new Promise((_, reject) => {
          release = () => reject(Object.assign(new Error('Cancelled'), { name: 'PlanCancelled' }));
          request.signal?.addEventListener('abort', () => release?.());
        });
      },
    };
    const scores: string[] = [];
    const run = runPlannerComparison({
      conductor,
      questions: plannerSample(4),
      onScore: (s) => {
        scores.push(s.questionId);
      },
      onProgress: (p) => {
        if (p.finished === 1 && p.state === 'running') queueMicrotask(() => run.cancel());
      },
    });
    expect(await run.finished).toEqual({ state: 'cancelled', finished: 1, total: 4 });
    expect(scores).toEqual(['facts-1']);
    expect(asked).toHaveLength(2);
  });
});

describe('PlannerCompareStore', () => {
  it('keeps one score per model and question, grouped by model, and forgets a model', async () => {
    const store = await PlannerCompareStore.open(`planner-compare-${crypto.randomUUID()}`);
    const base = { valid: true, shapeAgrees: true, workerFit: 1 };
    await store.put({ ...base, model: 'Qwen3-0.6B', questionId: 'facts-1', at: 1 });
    await store.put({ ...base, model: 'Llama-3.2-1B', questionId: 'facts-1', at: 2 });
    await store.put({ ...base, model: 'Qwen3-0.6B', questionId: 'facts-1', at: 3, valid: false });
    await store.put({ ...base, model: 'Qwen3-0.6B', questionId: 'math-1', at: 4 });
    const grouped = await store.byModel();
    expect([...grouped.keys()]).toEqual(['Llama-3.2-1B', 'Qwen3-0.6B']);
    expect(grouped.get('Qwen3-0.6B')?.map((s) => [s.questionId, s.valid])).toEqual([
      ['facts-1', false],
      ['math-1', true],
    ]);
    await store.deleteModel('Qwen3-0.6B');
    expect([...(await store.byModel()).keys()]).toEqual(['Llama-3.2-1B']);
    store.close();
  });
});
