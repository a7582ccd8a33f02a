import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PlanJsonSchemaOptions,
  planJsonSchema,
  type ValidateOptions,
  validatePlan,
} from '../../../../src/shared/plan/index.ts';
import { parseJson } from '../../../../src/shared/plan/json-text.ts';
import { tinyVocabulary } from '../../../fixtures/tiny-gguf.ts';
import {
  webLlmXGrammar,
  type XGrammarCompiler,
  type XGrammarTokenizerInfo,
} from '../../../fixtures/xgrammar.ts';

// What WebLLM's constrained decoding lets a model write under the plan's JSON Schema: web-llm's own
// xgrammar compiles it, and a walk that picks any token the grammar allows (as a random-weight model
// does) writes plans. Validation then judges them by the rule the conductor thread plans under.

const vocab = tinyVocabulary().map((token) => token.text.replaceAll('\u2581', ' '));
/** `</s>` and `<|im_end|>` end a generation. */
const STOP = [2, 4];

/** A small deterministic generator, so a failing walk can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

let info: XGrammarTokenizerInfo;
let compiler: XGrammarCompiler;
beforeAll(async () => {
  const xg = webLlmXGrammar();
  info = await xg.TokenizerInfo.createTokenizerInfo(vocab, 'raw', false, vocab.length, STOP);
  compiler = await xg.GrammarCompiler.createGrammarCompiler(info, false);
});
afterAll(() => {
  compiler?.dispose();
  info?.dispose();
});

/** `walks` plans written by picking uniformly among the tokens the grammar allows at each point. */
async function walk(schema: Record<string, unknown>, walks: number, seed: number): Promise<unknown[]> {
  const xg = webLlmXGrammar();
  const compiled = await compiler.compileJSONSchema(JSON.stringify(schema));
  const next = random(seed);
  const plans: unknown[] = [];
  for (let w = 0; w < walks; w++) {
    const matcher = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    let text = '';
    for (let n = 0; n < 4000 && !matcher.isTerminated(); n++) {
      const mask = await matcher.getNextTokenBitmask();
      const allowed: number[] = [];
      for (let id = 0; id < vocab.length; id++) if ((mask[id >> 5]! >>> (id & 31)) & 1) allowed.push(id);
      const id = allowed[Math.floor(next() * allowed.length)]!;
      expect(matcher.acceptToken(id)).toBe(true);
      if (!STOP.includes(id)) text += vocab[id];
    }
    const ended = matcher.isTerminated();
    matcher.dispose();
    if (!ended) continue;
    // The plan reader takes what this xgrammar writes, a raw tab in a string included.
    const parsed = parseJson(text);
    if (!parsed.ok) throw new Error(`${parsed.error}: ${text}`);
    plans.push(parsed.value);
  }
  compiled.dispose();
  return plans;
}

describe("the plan schema under web-llm's xgrammar", () => {
  const options: PlanJsonSchemaOptions & ValidateOptions = {
    workerIds: ['w1', 'w2', 'w3'],
    maxSteps: 4,
    allowSelf: true,
    selfOnlyLast: true,
    requireThought: true,
    maxTaskLength: 20,
    maxThoughtLength: 20,
  };
  const misplacedSelf = (plan: unknown) => {
    const result = validatePlan(plan, options);
    return !result.ok && result.issues.some((i) => i.code === 'self-not-last' || i.code === 'no-worker-step');
  };

  it('never lets a self-check be written before the last step, nor alone', async () => {
    const plans = await walk(planJsonSchema(options), 60, 7);
    expect(plans.length).toBeGreaterThan(40);
    expect(plans.filter(misplacedSelf)).toEqual([]);
    // The walks do reach self-checks: the rule moved them to the end, it did not remove them.
    const steps = plans.map((plan) => (plan as { steps: { worker: string }[] }).steps);
    expect(steps.some((s) => s.at(-1)?.worker === 'self')).toBe(true);
    expect(steps.some((s) => s.length > 1)).toBe(true);
  });

  it('lets the same walks misplace it when the rule is off (what decoding allowed before)', async () => {
    const plans = await walk(planJsonSchema({ ...options, selfOnlyLast: false }), 30, 7);
    expect(plans.filter(misplacedSelf).length).toBeGreaterThan(0);
  });
});

describe('attached files under the same xgrammar', () => {
  // File 1 is an image; only w2 takes images.
  const files = { count: 3, images: [1], names: ['a.csv', 'b.png', 'c.pdf'], visionWorkers: ['w2'] };
  const options: PlanJsonSchemaOptions & ValidateOptions = {
    workerIds: ['w1', 'w2', 'w3'],
    maxSteps: 3,
    allowSelf: true,
    selfOnlyLast: true,
    maxTaskLength: 12,
    maxThoughtLength: 12,
    files,
  };
  type Walked = { steps: { worker: string; files?: unknown }[] };
  const imageToText = (plan: unknown) => {
    const result = validatePlan(plan, options);
    return (
      !result.ok &&
      result.issues.some((i) => i.code === 'image-to-text-worker' || i.code.startsWith('files-'))
    );
  };

  it('writes plans whose every worker step names its files and never gives the image to a text-only worker', async () => {
    const plans = (await walk(planJsonSchema(options), 60, 11)) as Walked[];
    expect(plans.length).toBeGreaterThan(40);
    expect(plans.filter(imageToText)).toEqual([]);
    const workerSteps = plans.flatMap((plan) => plan.steps.filter((step) => step.worker !== 'self'));
    expect(workerSteps.every((step) => step.files !== undefined)).toBe(true);
    // The walks do reach the image: w2 gets it, in a list or through "all".
    const getsImage = (files: unknown) => files === 'all' || (Array.isArray(files) && files.includes(1));
    expect(workerSteps.some((step) => step.worker === 'w2' && getsImage(step.files))).toBe(true);
  });

  it('names each file it sends: never "all", and never a file for the code sandbox, which reads none', async () => {
    const withRunner = { ...options, workerIds: ['w1', 'w2', 'run'] };
    const plans = (await walk(planJsonSchema(withRunner), 60, 13)) as Walked[];
    expect(plans.length).toBeGreaterThan(40);
    const steps = plans.flatMap((plan) => plan.steps);
    expect(steps.filter((step) => step.files === 'all')).toEqual([]);
    expect(steps.some((step) => step.worker === 'run')).toBe(true);
    expect(steps.filter((step) => step.worker === 'run' && step.files !== undefined)).toEqual(
      steps.filter((step) => step.worker === 'run').map((step) => ({ ...step, files: [] })),
    );
    // Nothing decoding wrote of files is what validation refuses.
    const fileIssues = plans.flatMap((plan) => {
      const result = validatePlan(plan, withRunner);
      return result.ok ? [] : result.issues.filter((i) => i.code.startsWith('files-'));
    });
    expect(fileIssues).toEqual([]);
  });

  it('lets a text-only worker take the image when the worker groups are gone (what the split prevents)', async () => {
    const everyoneSees = planJsonSchema({
      ...options,
      files: { ...files, visionWorkers: ['w1', 'w2', 'w3'] },
    });
    const plans = await walk(everyoneSees, 40, 11);
    expect(plans.filter(imageToText).length).toBeGreaterThan(0);
  });

  it("gives the router's one step every file, on the worker that takes images", async () => {
    const router = { ...options, maxSteps: 1, allowSelf: false, selfOnlyLast: false, allFiles: true };
    const plans = (await walk(planJsonSchema(router), 20, 5)) as Walked[];
    expect(plans.length).toBeGreaterThan(10);
    for (const plan of plans)
      expect(plan.steps).toEqual([expect.objectContaining({ worker: 'w2', files: 'all' })]);
  });
});

describe('granted tools under the same xgrammar', () => {
  const tools = { names: ['t.search', 't.delete'], toolWorkers: ['w1'] };
  const options: PlanJsonSchemaOptions & ValidateOptions = {
    workerIds: ['w1', 'w2', 'run'],
    maxSteps: 3,
    maxTaskLength: 12,
    maxThoughtLength: 12,
    tools,
  };
  type Walked = { steps: { worker: string; tools?: string[] }[] };

  it('writes only offered tools, and only on the worker that calls tools: nothing validation refuses', async () => {
    const plans = (await walk(planJsonSchema(options), 60, 17)) as Walked[];
    expect(plans.length).toBeGreaterThan(40);
    const toolIssues = plans.flatMap((plan) => {
      const result = validatePlan(plan, options);
      return result.ok ? [] : result.issues.filter((i) => i.code.includes('tool'));
    });
    expect(toolIssues).toEqual([]);
    const steps = plans.flatMap((plan) => plan.steps);
    // The walks do grant tools, to w1 only.
    expect(steps.some((step) => step.worker === 'w1' && (step.tools?.length ?? 0) > 0)).toBe(true);
    expect(steps.filter((step) => step.worker !== 'w1' && step.tools !== undefined)).toEqual([]);
  });
});
