import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../../../src/shared/plan/checks.ts';
import { imagesRefused, resolveFiles } from '../../../../src/shared/plan/files.ts';
import { planJsonSchema, validatePlan } from '../../../../src/shared/plan/index.ts';

// File 0 is a CSV, file 1 an image; only "eyes" takes images.
const files = { count: 2, images: [1], names: ['sales.csv', 'chart.png'], visionWorkers: ['eyes'] };
const options = {
  workerIds: ['text', 'eyes'],
  workerLabels: { text: 'Writer', eyes: 'Looker' },
  files,
};

describe("a step's files in the plan language", () => {
  it('resolves "all", a list and none', () => {
    expect(resolveFiles('all', 3)).toEqual([0, 1, 2]);
    expect(resolveFiles([2, 0, 2], 3)).toEqual([0, 2]);
    expect(resolveFiles(undefined, 3)).toEqual([]);
    expect(imagesRefused('text', 'all', files)).toEqual([1]);
    expect(imagesRefused('eyes', 'all', files)).toEqual([]);
  });

  it("keeps a valid step's files, normalized, and a step without files as it was", () => {
    const result = validatePlan(
      {
        steps: [
          { worker: 'eyes', task: 'Read the chart', sees: [], files: [1, 0, 1] },
          { worker: 'text', task: 'Sum up', sees: [0] },
        ],
      },
      options,
    );
    expect(result.ok && result.plan.steps.map((s) => s.files)).toEqual([[0, 1], undefined]);
  });

  it('rejects a file that does not exist, a malformed list, and an image for a text-only worker', () => {
    const result = validatePlan(
      {
        steps: [
          { worker: 'text', task: 'a', sees: [], files: [5] },
          { worker: 'text', task: 'b', sees: [], files: 'some' },
          { worker: 'text', task: 'c', sees: 'all', files: 'all' },
        ],
      },
      options,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.step, i.code])).toEqual([
      [0, 'files-out-of-range'],
      [1, 'files-invalid'],
      [2, 'image-to-text-worker'],
    ]);
    expect(result.message).toContain('Step 2 gives "Writer" (text) the image "chart.png"');
  });

  it("checks only the shape of files when the question's files are not given (a stored run)", () => {
    const stored = validatePlan(
      { steps: [{ worker: 'text', task: 'c', sees: [], files: [7] }] },
      { workerIds: ['text'] },
    );
    expect(stored.ok).toBe(true);
  });

  it('blocks a plan that gives an image to a text-only worker, naming the step and the worker', () => {
    const plan = {
      steps: [
        { worker: 'eyes', task: 'Read the chart', sees: [], files: [1] },
        { worker: 'text', task: 'Sum up', sees: [0], files: 'all' as const },
      ],
    };
    const check = checkPlan(plan, { workerLabels: options.workerLabels, files });
    expect(check.blocked).toBe(true);
    expect(check.findings).toEqual([
      expect.objectContaining({
        rule: 'image-to-text-worker',
        stepIndex: 1,
        message: 'Step 1 would send the image "chart.png" to "Writer", which takes no images.',
      }),
    ]);
    expect(checkPlan(plan, { workerLabels: options.workerLabels }).blocked).toBe(false);
  });

  it('puts files in the decoding schema only when the question has some', () => {
    const without = JSON.stringify(planJsonSchema({ workerIds: ['text', 'eyes'], maxSteps: 3 }));
    expect(without).not.toContain('"files"');
    const withFiles = planJsonSchema({ workerIds: ['text', 'eyes'], maxSteps: 3, files });
    const steps = (withFiles.properties as Record<string, { items: { anyOf: unknown[] } }>).steps;
    // Two kinds of step: the worker that takes images may name any file, the other only the CSV; each
    // names its files one by one ("all" is the router's alone).
    expect(steps?.items.anyOf).toEqual([
      expect.objectContaining({
        properties: expect.objectContaining({
          worker: { type: 'string', enum: ['eyes'] },
          files: { type: 'array', items: { type: 'integer', enum: [0, 1] }, maxItems: 2 },
        }),
        required: ['worker', 'task', 'sees', 'files'],
      }),
      expect.objectContaining({
        properties: expect.objectContaining({
          worker: { type: 'string', enum: ['text'] },
          files: { type: 'array', items: { type: 'integer', enum: [0] }, maxItems: 1 },
        }),
      }),
    ]);
  });
});
