/** A finished run whose plan is a chain of `length` steps (each sees the one before), as an export file. */
export function chainRunExport(length: number): string {
  const t0 = 1_760_000_000_000;
  const pool = [
    {
      id: 'w1',
      label: 'Drafting model',
      strengths: 'writes',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'echo',
      maxConcurrency: 2,
      enabled: true,
      price: { inputPerM: 1, outputPerM: 2 },
    },
    {
      id: 'w2',
      label: 'Checking model',
      strengths: 'checks',
      providerId: 'custom',
      baseURL: 'http://127.0.0.1:10/v1',
      model: 'echo',
      maxConcurrency: 2,
      enabled: true,
      price: { inputPerM: 3, outputPerM: 4 },
    },
  ];
  const steps = Array.from({ length }, (_, i) => ({
    worker: i % 2 ? 'w2' : 'w1',
    task: `Improve the answer, round ${i}.`,
    sees: i ? [i - 1] : ([] as number[]),
  }));
  const last = `Answer after ${length} rounds.`;
  return JSON.stringify({
    format: 'baton-run',
    version: 1,
    exportedAt: new Date(t0).toISOString(),
    run: {
      id: `chain-${length}`,
      question: `Improve this ${length} times`,
      mode: 'conductor',
      pool,
      plan: { thought: 'A long chain.', steps },
      planComplete: true,
      includeQuestion: true,
      status: 'done',
      createdAt: t0,
      updatedAt: t0 + length * 100,
      totals: {
        promptTokens: length * 20,
        completionTokens: length * 10,
        cost: length * 0.00004,
        steps: length,
        done: length,
        failed: 0,
        cancelled: 0,
      },
      answer: last,
    },
    steps: steps.map((s, index) => ({
      runId: `chain-${length}`,
      index,
      ...s,
      depth: 0,
      state: 'done',
      text: index === length - 1 ? last : `Round ${index}.`,
      usage: { promptTokens: 20, completionTokens: 10 },
      cost: 0.00004,
      timings: {
        queuedAt: t0,
        startedAt: t0 + index * 100,
        firstTokenAt: t0 + index * 100 + 20,
        endedAt: t0 + index * 100 + 90,
      },
      attempts: 1,
    })),
  });
}
