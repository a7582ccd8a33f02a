/** A stored run with two parallel steps and an aggregator, as an export file, for UI tests that need no model. */
export function sampleRunExport(options: { answer0?: string; question?: string } = {}): string {
  const t0 = 1_750_000_000_000;
  const pool = [
    {
      id: 'w1',
      label: 'Echo A',
      strengths: 'repeats',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'echo',
      maxConcurrency: 2,
      enabled: true,
      price: { inputPerM: 1, outputPerM: 2 },
    },
    {
      id: 'w2',
      label: 'Upper B',
      strengths: 'shouts',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'upper',
      maxConcurrency: 2,
      enabled: true,
      price: { inputPerM: 3, outputPerM: 4 },
    },
  ];
  const steps = [
    { worker: 'w1', task: 'Propose an answer.', sees: [] as number[] },
    { worker: 'w2', task: 'Propose another answer.', sees: [] as number[] },
    { worker: 'w1', task: 'Combine both proposals.', sees: [0, 1] },
  ];
  const answers = [
    options.answer0 ?? 'First proposal with `code` and a [link](https://example.com).',
    'SECOND PROPOSAL\n\n```js\nconst x = 1;\n```',
    '**Combined:** both proposals agree.',
  ];
  const timings = [
    { queuedAt: t0, startedAt: t0 + 10, firstTokenAt: t0 + 200, endedAt: t0 + 1200 },
    { queuedAt: t0, startedAt: t0 + 20, firstTokenAt: t0 + 300, endedAt: t0 + 1500 },
    { queuedAt: t0, startedAt: t0 + 1510, firstTokenAt: t0 + 1700, endedAt: t0 + 2500 },
  ];
  return JSON.stringify({
    format: 'baton-run',
    version: 1,
    exportedAt: new Date(t0).toISOString(),
    run: {
      id: 'sample-run',
      question: options.question ?? 'Which answer is best?',
      mode: 'conductor',
      pool,
      plan: { thought: 'Two proposers, then an aggregator.', steps },
      planComplete: true,
      includeQuestion: true,
      status: 'done',
      createdAt: t0,
      updatedAt: t0 + 2500,
      totals: {
        promptTokens: 60,
        completionTokens: 30,
        cost: 0.00012,
        steps: 3,
        done: 3,
        failed: 0,
        cancelled: 0,
      },
      answer: answers[2],
    },
    steps: steps.map((s, index) => ({
      runId: 'sample-run',
      index,
      ...s,
      depth: 0,
      state: 'done',
      text: answers[index],
      usage: { promptTokens: 20, completionTokens: 10 },
      cost: 0.00004,
      timings: timings[index],
      attempts: 1,
    })),
  });
}
