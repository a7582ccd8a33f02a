import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../../../src/shared/plan/checks.ts';
import { fileUses, imagesRefused, resolveFiles } from '../../../../src/shared/plan/files.ts';
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
    // names its files one by one ("all" is the router's alone), whole or as passages (the CSV alone: an
    // image has no text to search).
    const passages = {
      type: 'object',
      properties: {
        file: { type: 'integer', enum: [0] },
        find: { type: 'string', minLength: 1, maxLength: 120 },
      },
      required: ['file', 'find'],
      additionalProperties: false,
    };
    expect(steps?.items.anyOf).toEqual([
      expect.objectContaining({
        properties: expect.objectContaining({
          worker: { type: 'string', enum: ['eyes'] },
          files: {
            type: 'array',
            items: { anyOf: [{ type: 'integer', enum: [0, 1] }, passages] },
            maxItems: 2,
          },
        }),
        required: ['worker', 'task', 'sees', 'files'],
      }),
      expect.objectContaining({
        properties: expect.objectContaining({
          worker: { type: 'string', enum: ['text'] },
          files: { type: 'array', items: { anyOf: [{ type: 'integer', enum: [0] }, passages] }, maxItems: 1 },
        }),
      }),
    ]);
  });

  it('takes passages of a file, whole files beside them, and reads them as uses', () => {
    const result = validatePlan(
      {
        steps: [
          {
            worker: 'text',
            task: 'What does clause 7 say?',
            sees: [],
            files: [{ file: 0, find: 'clause 7' }],
          },
          { worker: 'eyes', task: 'Both', sees: [], files: [1, { file: 0 }] },
          { worker: 'text', task: 'Whole wins', sees: [], files: [{ file: 0, find: 'x' }, 0] },
        ],
      },
      options,
    );
    expect(result.ok && result.plan.steps.map((s) => s.files)).toEqual([
      [{ file: 0, find: 'clause 7' }],
      [{ file: 0 }, 1],
      [0],
    ]);
    expect(
      fileUses([{ file: 0, find: 'fees' }, { file: 0, find: 'notice', passages: [4, 2] }, 1], 2),
    ).toEqual([
      { file: 0, as: 'passages', find: 'fees notice', passages: [4, 2] },
      { file: 1, as: 'whole' },
    ]);
    expect(fileUses('all', 2)).toEqual([
      { file: 0, as: 'default' },
      { file: 1, as: 'default' },
    ]);
  });

  it('rejects a malformed passages entry and passages of an image, saying why', () => {
    const result = validatePlan(
      {
        steps: [
          { worker: 'text', task: 'a', sees: [], files: [{ file: 0, query: 'x' }] },
          { worker: 'text', task: 'b', sees: [], files: [{ find: 'x' }] },
          { worker: 'eyes', task: 'c', sees: [], files: [{ file: 1, find: 'axis' }] },
          { worker: 'text', task: 'd', sees: [], files: [{ file: 0, passages: 'some' }] },
        ],
      },
      options,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.step, i.code])).toEqual([
      [0, 'passages-invalid'],
      [1, 'passages-invalid'],
      [2, 'passages-of-image'],
      [3, 'passages-invalid'],
    ]);
    expect(result.issues[0]?.message).toContain(
      'has "query", which a file entry does not take ("file", "find", "passages")',
    );
    expect(result.issues[1]?.message).toContain('has no "file" (an attached file number, from 0)');
    expect(result.issues[2]?.message).toBe(
      'Step 2 asks for passages of the image "chart.png", which has no text to search: name it by its number (1) to send it whole, or leave it out.',
    );
  });
});
