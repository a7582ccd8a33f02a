/**
 * Auto mode's chooser: a contextual bandit over strategies (`conductor`, `router`,
 * `single:<workerId>`, ...). Disjoint linear Thompson sampling: one ridge regression per strategy over the
 * question's features (src/learning/features.ts), fitted to whether its answers were good, and a second one
 * on the same design to what it cost. A choice samples each strategy's quality from its posterior and
 * subtracts λ·expected cost, so moving the "quality ↔ cost" slider changes choices at once, without
 * relearning. Thompson sampling rather than LinUCB because it explores from a prior naturally: the
 * conductor starts with a pseudo-observation of good answers, so auto mode begins by planning, and tries
 * the other strategies only as often as their uncertainty warrants.
 *
 * Pure and serializable: the state is plain JSON (export/import), randomness is passed in.
 */
import { z } from 'zod';
import {
  CATEGORIES,
  type Category,
  categoryOf,
  FEATURE_DIMENSION,
  featuresFor,
  type NeighbourOutcomes,
} from './features.ts';
import { type StrategyId, singleWorkerOf } from './outcome.ts';

/**
 * λ at the slider's "cost" end, in reward points per US dollar: there a cent of spend weighs as much as a
 * whole good answer. The slider (0 = quality only, 1 = cost) maps linearly onto 0..LAMBDA_MAX_PER_USD.
 */
export const LAMBDA_MAX_PER_USD = 100;
export const lambdaOf = (slider: number): number => Math.min(1, Math.max(0, slider)) * LAMBDA_MAX_PER_USD;

/** The reward of one outcome: 1 for a good answer, 0 for a bad one, less λ per dollar spent. */
export function rewardOf(good: boolean, costUsd: number, slider: number): number {
  return (good ? 1 : 0) - lambdaOf(slider) * costUsd;
}

/** The conductor's prior: as if it had answered this many questions, this share of them well. */
const PRIOR_WEIGHT = 3;
const PRIOR_GOOD = 0.8;
/** Every other strategy's prior: as many pseudo-answers, half good (no opinion, but not presumed bad). */
const OTHER_PRIOR_WEIGHT = 3;
const OTHER_PRIOR_GOOD = 0.5;
/** Posterior spread of the quality estimate (Thompson's v): larger explores more. */
const EXPLORATION = 0.2;

export interface ArmModel {
  /** The ridge design matrix Aᵀ (d×d, row-major): I + Σ x xᵀ. */
  design: number[];
  /** Σ good·x */
  good: number[];
  /** Σ costUsd·x */
  cost: number[];
}

/** What the user sees per category and strategy (Settings → What Baton learned). */
export interface ArmStats {
  tries: number;
  good: number;
  costUsd: number;
}

export interface BanditState {
  version: 1;
  dimension: number;
  arms: Record<string, ArmModel>;
  categories: Partial<Record<Category, Record<string, ArmStats>>>;
}

export function createBanditState(): BanditState {
  return { version: 1, dimension: FEATURE_DIMENSION, arms: {}, categories: {} };
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const vector = z.array(finite).length(FEATURE_DIMENSION, `must have ${FEATURE_DIMENSION} numbers`);
const armStats = z.object({
  tries: z.number().int().nonnegative(),
  good: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
});

/** Validates an imported state: the same version and dimension, every vector the right length. */
export const banditStateSchema = z.object({
  version: z.literal(1),
  dimension: z.literal(FEATURE_DIMENSION),
  arms: z.record(
    z.string().min(1),
    z.object({
      design: z.array(finite).length(FEATURE_DIMENSION ** 2, `must have ${FEATURE_DIMENSION ** 2} numbers`),
      good: vector,
      cost: vector,
    }),
  ),
  categories: z.partialRecord(z.enum([...CATEGORIES, 'other']), z.record(z.string().min(1), armStats)),
});

function freshArm(arm: StrategyId): ArmModel {
  const d = FEATURE_DIMENSION;
  const design: number[] = Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
  const good = new Array<number>(d).fill(0);
  // A pseudo-observation on the bias feature alone: the conductor is presumed good until shown otherwise.
  const [weight, share] =
    arm === 'conductor' ? [PRIOR_WEIGHT, PRIOR_GOOD] : [OTHER_PRIOR_WEIGHT, OTHER_PRIOR_GOOD];
  design[0] = 1 + weight;
  good[0] = weight * share;
  return { design, good, cost: new Array<number>(d).fill(0) };
}

/** Solves A·x = b (A symmetric positive definite, d small) by Gaussian elimination with partial pivoting. */
export function solve(a: readonly number[], b: readonly number[]): number[] {
  const d = b.length;
  const m = Array.from({ length: d }, (_, r) => [...a.slice(r * d, r * d + d), b[r]!]);
  for (let c = 0; c < d; c++) {
    let pivot = c;
    for (let r = c + 1; r < d; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const p = m[c]![c]!;
    for (let r = 0; r < d; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / p;
      if (f !== 0) for (let k = c; k <= d; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, r) => row[d]! / row[r]!);
}

const dot = (x: readonly number[], y: readonly number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);

/** A standard normal draw from two uniform ones (Box–Muller). */
function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export interface Estimate {
  arm: StrategyId;
  /** Expected share of good answers for this question. */
  quality: number;
  /** Its posterior standard deviation. */
  spread: number;
  /** Expected US dollars. */
  costUsd: number;
}

function estimate(model: ArmModel, arm: StrategyId, x: readonly number[]): Estimate {
  const ax = solve(model.design, x);
  return {
    arm,
    quality: dot(ax, model.good),
    spread: Math.sqrt(Math.max(0, dot(x, ax))),
    costUsd: Math.max(0, dot(ax, model.cost)),
  };
}

export interface Candidate {
  arm: StrategyId;
  /** Similar past questions' outcomes with this strategy (from the workflow memory), if any. */
  neighbours?: NeighbourOutcomes;
}

export interface ChooseOptions {
  /** False for a strategy whose workers lack keys (or are gone): it is never chosen. */
  available(arm: StrategyId): boolean;
  /** The "quality ↔ cost" slider, 0..1. */
  slider: number;
  /** Uniform [0, 1): Math.random in the app, a seeded generator in tests and the bench. */
  random: () => number;
  /** The user's name for a strategy (worker labels, not ids). */
  labelOf?(arm: StrategyId): string;
}

export interface Choice {
  arm: StrategyId;
  category: Category;
  /** One line, from the numbers behind the choice. */
  reason: string;
  /** Every available candidate's estimate, the chosen one among them. */
  estimates: Estimate[];
}

export class NoStrategyAvailable extends Error {
  override name = 'NoStrategyAvailable';
}

/** Picks a strategy for `question` among the available candidates. Does not change the state. */
export function choose(
  state: BanditState,
  question: string,
  candidates: Candidate[],
  options: ChooseOptions,
): Choice {
  const open = candidates.filter((c) => options.available(c.arm));
  if (open.length === 0)
    throw new NoStrategyAvailable(
      `No strategy can answer: ${candidates.map((c) => options.labelOf?.(c.arm) ?? c.arm).join(', ') || 'none offered'} lack keys or workers.`,
    );
  const lambda = lambdaOf(options.slider);
  let best: { candidate: Candidate; score: number } | undefined;
  const estimates: Estimate[] = [];
  for (const candidate of open) {
    const x = featuresFor(question, candidate.neighbours);
    const e = estimate(state.arms[candidate.arm] ?? freshArm(candidate.arm), candidate.arm, x);
    estimates.push(e);
    const score = e.quality + EXPLORATION * e.spread * normal(options.random) - lambda * e.costUsd;
    if (!best || score > best.score) best = { candidate, score };
  }
  const category = categoryOf(question);
  const chosen = best!.candidate;
  return {
    arm: chosen.arm,
    category,
    estimates,
    reason: explain(state, chosen, category, candidates, options.labelOf ?? defaultLabel),
  };
}

/** Learns from one outcome of `arm` on `question`. Returns a new state. */
export function update(
  state: BanditState,
  question: string,
  arm: StrategyId,
  neighbours: NeighbourOutcomes | undefined,
  good: boolean,
  costUsd: number,
): BanditState {
  const x = featuresFor(question, neighbours);
  const d = FEATURE_DIMENSION;
  const old = state.arms[arm] ?? freshArm(arm);
  const model: ArmModel = {
    design: old.design.map((v, i) => v + x[Math.floor(i / d)]! * x[i % d]!),
    good: old.good.map((v, i) => v + (good ? x[i]! : 0)),
    cost: old.cost.map((v, i) => v + costUsd * x[i]!),
  };
  const category = categoryOf(question);
  const perArm = { ...state.categories[category] };
  const s = perArm[arm] ?? { tries: 0, good: 0, costUsd: 0 };
  perArm[arm] = { tries: s.tries + 1, good: s.good + (good ? 1 : 0), costUsd: s.costUsd + costUsd };
  return {
    ...state,
    arms: { ...state.arms, [arm]: model },
    categories: { ...state.categories, [category]: perArm },
  };
}

export function defaultLabel(arm: StrategyId): string {
  if (arm === 'conductor') return 'the conductor';
  if (arm === 'router') return 'the router';
  return singleWorkerOf(arm) ?? arm;
}

const FRACTIONS: Record<number, string> = {
  2: 'half',
  3: 'a third',
  4: 'a quarter',
  5: 'a fifth',
  10: 'a tenth',
};

/** "a fifth of", "40% of", "twice": one strategy's cost beside another's. */
export function costRatioWords(cost: number, reference: number): string | undefined {
  if (!(reference > 0) || !(cost >= 0)) return undefined;
  const r = cost / reference;
  if (r < 1) {
    const n = Math.round(1 / r);
    if (FRACTIONS[n] && Math.abs(1 / r - n) < 0.15 * n) return `${FRACTIONS[n]} of`;
    return `${Math.round(r * 100)}% of`;
  }
  if (Math.abs(r - 1) < 0.05) return 'the same as';
  if (Math.abs(r - 2) < 0.1) return 'twice';
  return `${r.toFixed(1)}×`;
}

function explain(
  state: BanditState,
  chosen: Candidate,
  category: Category,
  candidates: Candidate[],
  labelOf: (arm: StrategyId) => string,
): string {
  const label = labelOf(chosen.arm);
  const conductor = candidates.find((c) => c.arm === 'conductor');
  const seen = state.categories[category] ?? {};
  const n = chosen.neighbours;
  if (n && n.total > 0) {
    let line = `${n.good} of ${n.total} similar question${n.total === 1 ? ' was' : 's were'} answered well by ${label}`;
    const ref = conductor?.neighbours?.total ? conductor.neighbours.meanCostUsd : meanCost(seen.conductor);
    const words =
      chosen.arm === 'conductor' || ref === undefined ? undefined : costRatioWords(n.meanCostUsd, ref);
    if (words) line += ` at ${words} the conductor's cost`;
    return `${line}.`;
  }
  const s = seen[chosen.arm];
  const what = category === 'other' ? 'questions like this' : `${category} questions`;
  if (s && s.tries > 0) {
    let line = `${capitalize(label)} answered ${s.good} of ${s.tries} ${what} well`;
    const ref = meanCost(seen.conductor);
    const words =
      chosen.arm === 'conductor' || ref === undefined ? undefined : costRatioWords(s.costUsd / s.tries, ref);
    if (words) line += ` at ${words} the conductor's cost`;
    return `${line}.`;
  }
  if (chosen.arm === 'conductor')
    return `No outcomes yet for ${what}: the conductor plans, as it does by default.`;
  return `Trying ${label}: no outcomes yet for ${what} with it.`;
}

const meanCost = (s: ArmStats | undefined) => (s && s.tries > 0 ? s.costUsd / s.tries : undefined);
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
