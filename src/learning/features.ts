/**
 * The small feature vector auto mode's bandit sees for one question: length, code, math, a few
 * category words, and the neighbours' outcomes for the strategy being scored. Pure: the neighbours come in
 * as numbers (from the workflow memory, or from the bench's simulation), so this knows nothing of storage.
 */

/** Question categories, each recognised by its keywords (first match wins, in this order). */
export const CATEGORIES = ['code', 'math', 'writing', 'analysis', 'facts'] as const;
export type Category = (typeof CATEGORIES)[number] | 'other';

const KEYWORDS: Record<(typeof CATEGORIES)[number], RegExp> = {
  code: /\b(code|function|bug|compile|typescript|javascript|python|rust|regex|sql|api|class|refactor|stack trace|error:)\b/i,
  math: /\b(solve|integral|derivative|equation|prove|probability|sum of|how many|percent|calculate|compute)\b|\d\s*[-+*/^=]\s*\d/i,
  writing: /\b(write|draft|rewrite|poem|story|essay|email|letter|summari[sz]e|translate|tone)\b/i,
  analysis:
    /\b(compare|analy[sz]e|pros and cons|trade-?offs?|evaluate|why does|explain why|assess|plan for|strategy)\b/i,
  facts: /\b(who|what|when|where|which|capital|born|year|define|name the)\b/i,
};

export function categoryOf(question: string): Category {
  for (const c of CATEGORIES) if (KEYWORDS[c].test(question)) return c;
  return 'other';
}

/** The neighbours' outcomes for one strategy: how many similar past questions it answered, how many well. */
export interface NeighbourOutcomes {
  good: number;
  total: number;
  /** Mean US dollars those runs spent. */
  meanCostUsd: number;
}

/** Length buckets, in words: a one-line question, a paragraph, a long brief. */
const SHORT_WORDS = 12;
const LONG_WORDS = 60;

const HAS_CODE = /```|`[^`]+`|\b(function|def|const|let|return|import)\b|[{};]\s*$/m;
const HAS_MATH = /\d\s*[-+*/^=<>]\s*\d|[∑∫√π≤≥]|\\(frac|sum|int)\b/;

/** Features of the question alone (the same for every strategy). */
export function questionFeatures(question: string): number[] {
  const words = question.trim().split(/\s+/).filter(Boolean).length;
  const category = categoryOf(question);
  return [
    1, // bias: the strategy's mean reward
    words <= SHORT_WORDS ? 1 : 0,
    words > LONG_WORDS ? 1 : 0,
    HAS_CODE.test(question) ? 1 : 0,
    HAS_MATH.test(question) ? 1 : 0,
    ...CATEGORIES.map((c) => (c === category ? 1 : 0)),
  ];
}

/**
 * The neighbours' outcomes for one strategy, as two features: the share answered well (0.5 when there are
 * none, so "no evidence" sits between good and bad) and how much evidence there is (0..1, saturating at 10).
 */
export function neighbourFeatures(n: NeighbourOutcomes | undefined): number[] {
  if (!n || n.total === 0) return [0.5, 0];
  return [n.good / n.total, Math.min(n.total, 10) / 10];
}

/** The full vector the bandit scores a strategy with: the question's features, then its neighbours'. */
export function featuresFor(question: string, neighbours: NeighbourOutcomes | undefined): number[] {
  return [...questionFeatures(question), ...neighbourFeatures(neighbours)];
}

export const FEATURE_DIMENSION = 5 + CATEGORIES.length + 2;
