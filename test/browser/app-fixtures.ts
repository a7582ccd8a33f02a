// Finished runs as export files, for UI tests that need no model: imported through History, they are
// met the way a user's own exported runs are.

/** A worker on a custom endpoint nothing listens on (the run is finished), priced per million tokens. */
function customWorker(
  id: string,
  label: string,
  strengths: string,
  port: number,
  model: string,
  price: number[],
) {
  return {
    id,
    label,
    strengths,
    providerId: 'custom',
    baseURL: `http://127.0.0.1:${port}/v1`,
    model,
    maxConcurrency: 2,
    enabled: true,
    price: { inputPerM: price[0], outputPerM: price[1] },
  };
}

interface FinishedRun {
  id: string;
  t0: number;
  question: string;
  thought: string;
  pool: ReturnType<typeof customWorker>[];
  steps: Array<{ worker: string; task: string; sees: number[] }>;
  /** Each step's answer; the last one is the run's. */
  texts: string[];
  timings: Array<{ queuedAt: number; startedAt: number; firstTokenAt: number; endedAt: number }>;
  updatedAt: number;
  cost: number;
}

/** A run whose every step is done, 20 prompt and 10 completion tokens each, as a `baton-run` export file. */
function finishedRunExport(run: FinishedRun): string {
  const count = run.steps.length;
  return JSON.stringify({
    format: 'baton-run',
    version: 1,
    exportedAt: new Date(run.t0).toISOString(),
    run: {
      id: run.id,
      question: run.question,
      mode: 'conductor',
      pool: run.pool,
      plan: { thought: run.thought, steps: run.steps },
      planComplete: true,
      includeQuestion: true,
      status: 'done',
      createdAt: run.t0,
      updatedAt: run.updatedAt,
      totals: {
        promptTokens: count * 20,
        completionTokens: count * 10,
        cost: run.cost,
        steps: count,
        done: count,
        failed: 0,
        cancelled: 0,
      },
      answer: run.texts[count - 1],
    },
    steps: run.steps.map((s, index) => ({
      runId: run.id,
      index,
      ...s,
      depth: 0,
      state: 'done',
      text: run.texts[index],
      usage: { promptTokens: 20, completionTokens: 10 },
      cost: 0.00004,
      timings: run.timings[index],
      attempts: 1,
    })),
  });
}

/** A stored run with two parallel steps and an aggregator, as an export file. */
export function sampleRunExport(options: { answer0?: string; question?: string } = {}): string {
  const t0 = 1_750_000_000_000;
  return finishedRunExport({
    id: 'sample-run',
    t0,
    question: options.question ?? 'Which answer is best?',
    thought: 'Two proposers, then an aggregator.',
    pool: [
      customWorker('w1', 'Echo A', 'repeats', 9, 'echo', [1, 2]),
      customWorker('w2', 'Upper B', 'shouts', 9, 'upper', [3, 4]),
    ],
    steps: [
      { worker: 'w1', task: 'Propose an answer.', sees: [] },
      { worker: 'w2', task: 'Propose another answer.', sees: [] },
      { worker: 'w1', task: 'Combine both proposals.', sees: [0, 1] },
    ],
    texts: [
      options.answer0 ?? 'First proposal with `code` and a [link](https://example.com).',
      'SECOND PROPOSAL\n\n```js\nconst x = 1;\n```',
      '**Combined:** both proposals agree.',
    ],
    timings: [
      { queuedAt: t0, startedAt: t0 + 10, firstTokenAt: t0 + 200, endedAt: t0 + 1200 },
      { queuedAt: t0, startedAt: t0 + 20, firstTokenAt: t0 + 300, endedAt: t0 + 1500 },
      { queuedAt: t0, startedAt: t0 + 1510, firstTokenAt: t0 + 1700, endedAt: t0 + 2500 },
    ],
    updatedAt: t0 + 2500,
    cost: 0.00012,
  });
}

/** A finished run whose plan is a chain of `length` steps (each sees the one before), as an export file. */
export function chainRunExport(length: number): string {
  const t0 = 1_760_000_000_000;
  const steps = Array.from({ length }, (_, i) => ({
    worker: i % 2 ? 'w2' : 'w1',
    task: `Improve the answer, round ${i}.`,
    sees: i ? [i - 1] : ([] as number[]),
  }));
  return finishedRunExport({
    id: `chain-${length}`,
    t0,
    question: `Improve this ${length} times`,
    thought: 'A long chain.',
    pool: [
      customWorker('w1', 'Drafting model', 'writes', 9, 'echo', [1, 2]),
      customWorker('w2', 'Checking model', 'checks', 10, 'echo', [3, 4]),
    ],
    steps,
    texts: steps.map((_, index) =>
      index === length - 1 ? `Answer after ${length} rounds.` : `Round ${index}.`,
    ),
    timings: steps.map((_, index) => ({
      queuedAt: t0,
      startedAt: t0 + index * 100,
      firstTokenAt: t0 + index * 100 + 20,
      endedAt: t0 + index * 100 + 90,
    })),
    updatedAt: t0 + length * 100,
    cost: length * 0.00004,
  });
}

/** A finished run of `width` parallel steps and one that reads them all, as an export file. */
export function fanRunExport(width: number): string {
  const t0 = 1_770_000_000_000;
  const steps = [
    ...Array.from({ length: width }, (_, i) => ({
      worker: i % 2 ? 'w2' : 'w1',
      task: `Propose answer ${i}.`,
      sees: [] as number[],
    })),
    { worker: 'w1', task: 'Combine the proposals.', sees: Array.from({ length: width }, (_, i) => i) },
  ];
  return finishedRunExport({
    id: `fan-${width}`,
    t0,
    question: `Ask ${width} workers at once`,
    thought: 'Many proposers, one aggregator.',
    pool: [
      customWorker('w1', 'Drafting model', 'writes', 9, 'echo', [1, 2]),
      customWorker('w2', 'Checking model', 'checks', 10, 'echo', [3, 4]),
    ],
    steps,
    texts: steps.map((_, index) => (index === width ? 'The combined answer.' : `Proposal ${index}.`)),
    timings: steps.map((_, index) => ({
      queuedAt: t0,
      startedAt: t0 + (index === width ? 1000 : 10),
      firstTokenAt: t0 + (index === width ? 1020 : 30),
      endedAt: t0 + (index === width ? 1200 : 900),
    })),
    updatedAt: t0 + 1200,
    cost: (width + 1) * 0.00004,
  });
}
