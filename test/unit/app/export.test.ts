import { describe, expect, it } from 'vitest';
import {
  exportFilename,
  exportRun,
  exportRunJson,
  exportRunMarkdown,
  parseRunImport,
} from '../../../src/app/export.ts';
import type { RunRecord, StepRecord } from '../../../src/executor/store.ts';

const SECRET = 'sk-test-1234567890abcdef';

function fixture(): { run: RunRecord; steps: StepRecord[] } {
  const run: RunRecord = {
    id: 'run-1',
    question: 'What is 2+2?',
    mode: 'conductor',
    pool: [
      {
        id: 'w1',
        label: 'Echo',
        strengths: 'repeats',
        providerId: 'custom',
        // A key pasted into a URL by mistake must not survive an export.
        baseURL: `https://user:${SECRET}@example.test/v1?key=${SECRET}#frag`,
        model: 'echo',
        maxConcurrency: 2,
        enabled: true,
        ...({ apiKey: SECRET } as object),
      },
    ],
    plan: { thought: 'one step', steps: [{ worker: 'w1', task: 'Answer: ```code```', sees: [] }] },
    planComplete: true,
    includeQuestion: true,
    status: 'done',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_001_000,
    totals: {
      promptTokens: 10,
      completionTokens: 2,
      cost: 0.0001,
      steps: 1,
      done: 1,
      failed: 0,
      cancelled: 0,
    },
    answer: '4',
  };
  const steps: StepRecord[] = [
    {
      runId: 'run-1',
      index: 0,
      worker: 'w1',
      task: 'Answer: ```code```',
      sees: [],
      depth: 0,
      state: 'done',
      text: '4',
      usage: { promptTokens: 10, completionTokens: 2 },
      cost: 0.0001,
      timings: { queuedAt: 1, startedAt: 2, endedAt: 502 },
      attempts: 1,
    },
  ];
  return { run, steps };
}

describe('run export and import', () => {
  it('never exports a key, even one left in a worker or its URL', () => {
    const { run, steps } = fixture();
    const json = exportRunJson(run, steps);
    expect(json).not.toContain(SECRET);
    expect(exportRun(run, steps).run.pool[0]!.baseURL).toBe('https://example.test/v1');
    expect(exportRunMarkdown(run, steps)).not.toContain(SECRET);
  });

  it('writes a readable Markdown report with the answer, steps and a fence longer than any in the task', () => {
    const { run, steps } = fixture();
    const md = exportRunMarkdown(run, steps);
    expect(md).toMatch(/^# What is 2\+2\?/);
    expect(md).toContain('## Answer\n\n4');
    expect(md).toContain('### Step 0: w1 (Echo, echo)');
    expect(md).toContain('````text\nAnswer: ```code```\n````');
    expect(md).toContain('- Time: 500 ms');
  });

  it('re-imports its own export under a new id', () => {
    const { run, steps } = fixture();
    const result = parseRunImport(exportRunJson(run, steps), { newId: 'new-id' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data.run.id).toBe('new-id');
    expect(result.data.steps[0]!.runId).toBe('new-id');
    expect(result.data.run.answer).toBe('4');
    expect(result.data.run.plan.steps).toHaveLength(1);
  });

  it('rejects files that are not valid run exports, with a reason', () => {
    expect(parseRunImport('not json')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
    expect(parseRunImport('{"a":1}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('baton-run'),
    });
    const { run, steps } = fixture();
    const bad = JSON.parse(exportRunJson(run, steps));
    bad.run.plan.steps[0].worker = 'ghost';
    expect(parseRunImport(JSON.stringify(bad))).toMatchObject({
      ok: false,
      error: expect.stringContaining('ghost'),
    });
    const badStep = JSON.parse(exportRunJson(run, steps));
    badStep.steps[0].state = 'exploded';
    expect(parseRunImport(JSON.stringify(badStep))).toMatchObject({
      ok: false,
      error: 'Step 0 of the export is malformed.',
    });
  });

  it('stores an imported unfinished run as cancelled (it cannot be resumed from a file)', () => {
    const { run, steps } = fixture();
    const json = exportRunJson({ ...run, status: 'running' }, [{ ...steps[0]!, state: 'running' }]);
    const result = parseRunImport(json);
    expect(result.ok && result.data.run.status).toBe('cancelled');
    expect(result.ok && result.data.steps[0]!.state).toBe('cancelled');
  });

  it('names files after the question', () => {
    expect(exportFilename({ id: 'abcdef123', question: 'What is 2+2?' }, 'json')).toBe(
      'what-is-2-2-abcdef.json',
    );
  });
});
