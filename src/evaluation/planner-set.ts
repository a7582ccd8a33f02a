import type { PoolEntry } from '../shared/conductor-api.ts';

/**
 * The labelled questions "Compare planners" asks the loaded conductor to plan. Nothing is sent anywhere:
 * only the plan is scored, against a fixed reference pool, so every model is measured on the same
 * questions and the same workers whatever the user's own pool holds.
 */

/**
 * The workflow a question calls for: one step; several in a row where a later step checks or reviews an
 * earlier one; or independent steps in parallel, then one that merges their answers.
 */
export const PLAN_SHAPES = ['one-step', 'check', 'parallel-merge'] as const;
export type PlanShape = (typeof PLAN_SHAPES)[number];

/** The kind of worker a part of a question needs; each reference worker has one or two. */
export const WORKER_KINDS = ['code', 'math', 'writing', 'fast', 'reasoning'] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

export type PlannerCategory = 'facts' | 'math' | 'code' | 'writing' | 'analysis' | 'multi-part';
export const PLANNER_CATEGORIES: readonly PlannerCategory[] = [
  'facts',
  'math',
  'code',
  'writing',
  'analysis',
  'multi-part',
];

export interface PlannerQuestion {
  id: string;
  category: PlannerCategory;
  question: string;
  shape: PlanShape;
  /** The kinds of worker its parts need: a step on a worker of one of these kinds fits. */
  needs: readonly WorkerKind[];
}

/** A reference worker: what the conductor is told, and the kinds it is strong at (the label's key). */
export interface ReferenceWorker extends PoolEntry {
  kinds: readonly WorkerKind[];
}

/** Four workers whose strengths name the kinds plainly, so a planner that reads them can route well. */
export const REFERENCE_POOL: readonly ReferenceWorker[] = [
  {
    id: 'coder',
    label: 'Coder',
    strengths: 'Writes, reviews and debugs code (Python, TypeScript, SQL, shell); writes tests.',
    costTier: 'medium',
    kinds: ['code'],
  },
  {
    id: 'solver',
    label: 'Solver',
    strengths: 'Careful step-by-step reasoning: math, proofs, logic puzzles, checking the work of others.',
    costTier: 'high',
    kinds: ['math', 'reasoning'],
  },
  {
    id: 'writer',
    label: 'Writer',
    strengths: 'Clear prose: essays, emails, summaries, stories, editing for tone and length.',
    costTier: 'medium',
    kinds: ['writing'],
  },
  {
    id: 'quick',
    label: 'Quick',
    strengths: 'Fast and cheap: short facts, definitions, conversions, one-line answers.',
    costTier: 'low',
    kinds: ['fast'],
  },
];

/** The reference pool as the conductor is told it (without the kinds, which are the answer key). */
export function referencePoolEntries(): PoolEntry[] {
  return REFERENCE_POOL.map(({ kinds: _kinds, ...entry }) => ({ ...entry }));
}

const q = (
  id: string,
  category: PlannerCategory,
  shape: PlanShape,
  needs: readonly WorkerKind[],
  question: string,
): PlannerQuestion => ({ id, category, question, shape, needs });

export const PLANNER_SET: readonly PlannerQuestion[] = [
  // Facts: mostly one quick lookup; a disputed or composite fact earns a check or a comparison.
  q('facts-1', 'facts', 'one-step', ['fast'], 'What is the capital of Australia?'),
  q('facts-2', 'facts', 'one-step', ['fast'], 'How many bytes are in a kibibyte?'),
  q('facts-3', 'facts', 'one-step', ['fast'], 'Who wrote the novel "Middlemarch"?'),
  q(
    'facts-4',
    'facts',
    'one-step',
    ['fast'],
    'What is the boiling point of water at sea level in Fahrenheit?',
  ),
  q(
    'facts-5',
    'facts',
    'check',
    ['fast', 'reasoning'],
    'Which is taller, the Eiffel Tower or the Chrysler Building? Give both heights and double-check them before answering.',
  ),
  q(
    'facts-6',
    'facts',
    'parallel-merge',
    ['fast', 'writing'],
    'Give the population, official languages and currency of Switzerland and of Belgium, then a short table comparing the two.',
  ),
  q(
    'facts-7',
    'facts',
    'check',
    ['fast', 'reasoning'],
    'In what year did the first person walk on the Moon, and who was it? Verify the date is right.',
  ),

  // Math: arithmetic is one step; proofs and word problems are solved then checked; two methods then merged.
  q('math-1', 'math', 'one-step', ['math', 'fast'], 'What is 17% of 2,350?'),
  q('math-2', 'math', 'one-step', ['math'], 'Solve for x: 3x + 7 = 2x - 5.'),
  q(
    'math-3',
    'math',
    'check',
    ['math', 'reasoning'],
    'Prove that the square root of 2 is irrational, then have the proof checked for gaps.',
  ),
  q(
    'math-4',
    'math',
    'check',
    ['math', 'reasoning'],
    'A train leaves at 9:40 at 80 km/h; a second leaves the same station at 10:10 at 110 km/h on the same track. When does the second catch up? Check the answer.',
  ),
  q(
    'math-5',
    'math',
    'parallel-merge',
    ['math', 'code', 'reasoning'],
    'Compute the sum of the first 1,000 primes two ways, by reasoning and by a short program, and reconcile the results.',
  ),
  q('math-6', 'math', 'one-step', ['math'], 'What is the derivative of x^3 * sin(x)?'),
  q(
    'math-7',
    'math',
    'check',
    ['math', 'reasoning'],
    'How many ways can 8 people sit around a round table if two of them refuse to sit next to each other? Verify the count.',
  ),

  // Code: a snippet is one step; real code is written then reviewed; parts built in parallel then joined.
  q('code-1', 'code', 'one-step', ['code'], 'Write a Python one-liner that reverses a string.'),
  q(
    'code-2',
    'code',
    'check',
    ['code', 'reasoning'],
    'Write a TypeScript function that parses ISO 8601 durations like "PT1H30M" into seconds, then review it for edge cases and fix what the review finds.',
  ),
  q(
    'code-3',
    'code',
    'check',
    ['code'],
    'This SQL is slow: SELECT * FROM orders WHERE YEAR(created_at) = 2024. Rewrite it to use an index on created_at and check that both queries return the same rows.',
  ),
  q(
    'code-4',
    'code',
    'parallel-merge',
    ['code'],
    'Write a small Python LRU cache class and, separately, a set of pytest tests for it; then put them together and make the tests pass.',
  ),
  q('code-5', 'code', 'one-step', ['code'], 'What does the shell command `tar -xzf archive.tgz -C out/` do?'),
  q(
    'code-6',
    'code',
    'check',
    ['code', 'reasoning'],
    'Find the bug: `def mean(xs): return sum(xs) / len(xs) if xs else 0` returns wrong results for a list of integers in Python 2. Explain and fix it, then verify the fix.',
  ),
  q(
    'code-7',
    'code',
    'parallel-merge',
    ['code', 'writing'],
    'Write a shell script that backs up a folder to a dated tarball, and a README section explaining how to schedule it with cron; combine them into one answer.',
  ),

  // Writing: a short text is one step; a careful text is drafted then edited; several angles then merged.
  q(
    'writing-1',
    'writing',
    'one-step',
    ['writing'],
    'Write a two-sentence thank-you note to a colleague who covered my shift.',
  ),
  q(
    'writing-2',
    'writing',
    'check',
    ['writing'],
    'Draft a polite email declining a job offer, then edit it to under 120 words without losing warmth.',
  ),
  q(
    'writing-3',
    'writing',
    'parallel-merge',
    ['writing'],
    'Write three different opening lines for a mystery story, then pick the best and continue it for one paragraph.',
  ),
  q('writing-4', 'writing', 'one-step', ['writing'], 'Give a haiku about autumn rain.'),
  q(
    'writing-5',
    'writing',
    'check',
    ['writing', 'reasoning'],
    'Summarize the causes of the French Revolution in 150 words for a school pupil, then check the summary for factual errors and reading level.',
  ),
  q(
    'writing-6',
    'writing',
    'parallel-merge',
    ['writing', 'fast'],
    'Write a product description for a reusable water bottle in a playful tone and in a formal tone, then merge the best of both into one.',
  ),
  q(
    'writing-7',
    'writing',
    'one-step',
    ['writing'],
    'Rewrite this sentence in plain English: "Pursuant to the aforementioned stipulations, remittance is obligatory."',
  ),

  // Analysis: arguments are weighed then checked; views from several sides are gathered then merged.
  q(
    'analysis-1',
    'analysis',
    'parallel-merge',
    ['reasoning', 'writing'],
    'Should a five-person startup use a monorepo or several repositories? Argue each side, then give a recommendation.',
  ),
  q(
    'analysis-2',
    'analysis',
    'check',
    ['reasoning'],
    'Is this argument valid: "All cats are mammals; some mammals are black; so some cats are black"? Explain, then double-check the reasoning.',
  ),
  q(
    'analysis-3',
    'analysis',
    'parallel-merge',
    ['reasoning', 'math'],
    'Compare renting and buying a flat over ten years: work out the costs of each separately, then conclude which is cheaper and under what assumptions.',
  ),
  q(
    'analysis-4',
    'analysis',
    'one-step',
    ['reasoning'],
    'In one paragraph, what is the main trade-off between consistency and availability in a distributed database?',
  ),
  q(
    'analysis-5',
    'analysis',
    'check',
    ['reasoning', 'math'],
    'A test for a disease is 99% accurate and 1 in 1,000 people have it. If I test positive, how likely am I to have it? Explain, then verify the calculation.',
  ),
  q(
    'analysis-6',
    'analysis',
    'parallel-merge',
    ['reasoning', 'writing'],
    'What are the strongest arguments for and against a four-day work week? Gather each side, then write a balanced conclusion.',
  ),
  q(
    'analysis-7',
    'analysis',
    'check',
    ['reasoning', 'writing'],
    'Read this claim: "Cities with more ice-cream sales have more drownings, so ice cream causes drowning." Find the flaw, then review the explanation for clarity.',
  ),

  // Multi-part: independent parts for different workers, joined at the end; or one part that checks another.
  q(
    'multi-1',
    'multi-part',
    'parallel-merge',
    ['code', 'writing'],
    'Write a Python function that counts words in a file, and a short user guide for it; then combine them into one answer.',
  ),
  q(
    'multi-2',
    'multi-part',
    'parallel-merge',
    ['math', 'writing'],
    'Work out the monthly payment on a 200,000 loan at 4% over 25 years, and write a friendly explanation of amortization for a first-time buyer; merge them.',
  ),
  q(
    'multi-3',
    'multi-part',
    'parallel-merge',
    ['fast', 'writing'],
    'List the planets in order from the Sun, and write a four-line rhyme to remember them; put both together.',
  ),
  q(
    'multi-4',
    'multi-part',
    'check',
    ['code', 'reasoning'],
    'Write a regular expression that matches valid IPv4 addresses, then test it against tricky cases (leading zeros, 256) and correct it.',
  ),
  q(
    'multi-5',
    'multi-part',
    'parallel-merge',
    ['code', 'math', 'writing'],
    'Explain the Monty Hall problem: give the probability argument, a short simulation in Python, and a plain-language summary that ties them together.',
  ),
  q(
    'multi-6',
    'multi-part',
    'check',
    ['writing', 'reasoning'],
    'Translate "The early bird catches the worm" into French and German, then check that each translation keeps the idiom\'s meaning.',
  ),
  q(
    'multi-7',
    'multi-part',
    'parallel-merge',
    ['fast', 'math', 'writing'],
    'Give the distance from Paris to Rome, how long it takes by car at 100 km/h, and a two-sentence travel tip; combine them into one short answer.',
  ),
];

/**
 * The first `size` questions of the set, spread over the categories (one of each in turn), so a small
 * sample still covers every category and every shape the set labels. `size` past the set gives all of it.
 */
export function plannerSample(
  size: number,
  set: readonly PlannerQuestion[] = PLANNER_SET,
): PlannerQuestion[] {
  const byCategory = PLANNER_CATEGORIES.map((c) => set.filter((item) => item.category === c));
  const out: PlannerQuestion[] = [];
  const limit = Math.min(size, set.length);
  for (let round = 0; out.length < limit && byCategory.some((list) => list.length > round); round++) {
    for (const list of byCategory) {
      const item = list[round];
      if (item && out.length < size) out.push(item);
    }
  }
  return out;
}
