import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_THOUGHT_LENGTH,
  IncrementalPlanParser,
  type ParseOptions,
  type ParseResult,
  parsePlan,
} from '../../../../src/shared/plan/index.ts';

const options: ParseOptions = { workerIds: ['w0', 'w1', 'w2'], allowSelf: true };
const plan = {
  thought: 'plan, build, check',
  steps: [
    { worker: 'w1', task: 'Write a plan for {the} "parser".', sees: [] },
    { worker: 'w2', task: 'Implement it.\nUse } and ] freely.', sees: [0] },
    { worker: 'w0', task: 'Check the code.', sees: 'all' },
  ],
};
const json = JSON.stringify(plan, null, 2);

function ok(result: ParseResult) {
  if (!result.ok) throw new Error(result.message);
  return result.plan;
}

function fail(result: ParseResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.plan)}`);
  return result;
}

describe('parsePlan: our JSON', () => {
  it('reads bare JSON', () => {
    expect(ok(parsePlan(json, options))).toEqual(plan);
    expect(ok(parsePlan(`  ${JSON.stringify(plan)}\n`, options))).toEqual(plan);
  });

  it('reads JSON inside a ```json fence and a bare ``` fence', () => {
    expect(ok(parsePlan(`Here is the plan:\n\`\`\`json\n${json}\n\`\`\`\nGood luck.`, options))).toEqual(
      plan,
    );
    expect(ok(parsePlan(`\`\`\`\n${json}\n\`\`\``, options))).toEqual(plan);
  });

  it('reads JSON after free text that has braces, quotes and apostrophes of its own', () => {
    const text = `Let's think. A set {a, b} is "unordered"; f(x) = {x: 1} isn't a plan.\n${json}\nThat's it }`;
    expect(ok(parsePlan(text, options))).toEqual(plan);
  });

  it('passes over JSON objects without "steps" and takes the first one with them', () => {
    const other = { ...plan, thought: 'second' };
    const text = `Example: {"answer": 42}. Plan: ${JSON.stringify(plan)} and later ${JSON.stringify(other)}`;
    expect(ok(parsePlan(text, options)).thought).toBe('plan, build, check');
  });

  it('finds a plan wrapped in another object', () => {
    expect(ok(parsePlan(JSON.stringify({ plan }), options))).toEqual(plan);
  });

  it('forgives trailing commas', () => {
    const text = '{"steps": [{"worker": "w1", "task": "a, b", "sees": [0,],},],}'.replace('[0,]', '[]');
    expect(ok(parsePlan(text, options))).toEqual({ steps: [{ worker: 'w1', task: 'a, b', sees: [] }] });
  });

  it('validates what it finds', () => {
    const bad = { steps: [{ worker: 'gpt5', task: 'x', sees: [] }] };
    expect(fail(parsePlan(JSON.stringify(bad), options)).message).toBe(
      'Step 0 names worker "gpt5", which is not in the pool (w0, w1, w2, self).',
    );
  });

  it('reports JSON that does not parse', () => {
    const r = fail(parsePlan('```json\n{"steps": [{"worker": w1, "task": "a", "sees": []}]}\n```', options));
    expect(r.issues[0]!.code).toBe('bad-json');
    expect(r.message).toMatch(/^The plan's JSON does not parse: .+\.$/);
  });

  it('reports a plan cut off before its closing brace', () => {
    const r = fail(parsePlan(json.slice(0, json.length - 20), options));
    expect(r.issues).toEqual([
      {
        code: 'bad-json',
        message: "The plan's JSON is incomplete: the text ends before the object is closed.",
      },
    ]);
  });

  it('reports text with no plan at all', () => {
    for (const text of ['', 'I cannot help with that.', '{"answer": 1}']) {
      expect(fail(parsePlan(text, options)).issues).toEqual([
        {
          code: 'not-found',
          message:
            'No plan found: expected a JSON object with "steps", or the lists model_id, subtasks and access_list.',
        },
      ]);
    }
  });
});

describe('parsePlan: a raw control character in a string', () => {
  it("reads a task with a raw tab (web-llm's grammar lets one in), streamed or whole, as the same plan", () => {
    const text = '{"thought":"a\tb","steps":[{"worker":"w1","task":"Say\thello","sees":[]}]}';
    expect(() => JSON.parse(text)).toThrow();
    const whole = ok(parsePlan(text, options));
    expect(whole).toEqual({ thought: 'a\tb', steps: [{ worker: 'w1', task: 'Say\thello', sees: [] }] });
    const parser = new IncrementalPlanParser(options);
    const streamed = [...text]
      .flatMap((c) => parser.push(c))
      .flatMap((e) => (e.type === 'step' ? [e.step] : []));
    expect(streamed).toEqual(whole.steps);
  });
});

describe("parsePlan: the Conductor paper's lists", () => {
  const pool = { ...options, pool: ['w0', 'w1', 'w2'] };

  it('reads a realistic conductor answer: reasoning, then the three lists in a python fence', () => {
    const text = `The question asks for the number of primes below 100 and then a proof sketch. It's a two-part job:
a strong reasoner should compute it, and a second model should check the work (it may see the first answer).
I'll give the checker access to everything with "all".

\`\`\`python
model_id = [2, 0]
subtasks = [
    "Count the primes below 100. Show the list, then say: \\"Answer: N\\".",
    'Check the list above for mistakes; if it\\'s right, restate the answer.\\n'
    'Keep it short.',
]
access_list = [[], all]
\`\`\``;
    expect(ok(parsePlan(text, pool))).toEqual({
      thought: text.slice(0, text.indexOf('```python')).trim(),
      steps: [
        { worker: 'w2', task: 'Count the primes below 100. Show the list, then say: "Answer: N".', sees: [] },
        {
          worker: 'w0',
          task: "Check the list above for mistakes; if it's right, restate the answer.\nKeep it short.",
          sees: 'all',
        },
      ],
    });
  });

  it('reads the lists without a fence, with "all" quoted and index lists', () => {
    const text = `Plan below.
model_id = [0, 1, 2]
subtasks = ["a", """multi
line""", r'raw \\d']
access_list = ["all", [0], [0, 1]]`;
    expect(ok(parsePlan(text, pool)).steps).toEqual([
      { worker: 'w0', task: 'a', sees: 'all' },
      { worker: 'w1', task: 'multi\nline', sees: [0] },
      { worker: 'w2', task: 'raw \\d', sees: [0, 1] },
    ]);
  });

  it('maps model_id through the pool option, and falls back to workerIds', () => {
    const text = 'model_id = [1]\nsubtasks = ["a"]\naccess_list = [[]]';
    expect(ok(parsePlan(text, { ...options, pool: ['w2', 'w0'] })).steps[0]!.worker).toBe('w0');
    expect(ok(parsePlan(text, options)).steps[0]!.worker).toBe('w1');
  });

  it('accepts worker ids as strings in model_id', () => {
    const text = 'model_id = ["w2", "self"]\nsubtasks = ["a", "b"]\naccess_list = [[], "all"]';
    expect(ok(parsePlan(text, pool)).steps.map((s) => s.worker)).toEqual(['w2', 'self']);
  });

  it('takes the last assignment of each list, and does not read names inside subtasks', () => {
    const text = `First idea: model_id = [0]
but better:
model_id = [1, 2]
subtasks = ["Set model_id = [9] in config.py", "Review"]
access_list = [[], [0]]`;
    const steps = ok(parsePlan(text, pool)).steps;
    expect(steps.map((s) => s.worker)).toEqual(['w1', 'w2']);
    expect(steps[0]!.task).toBe('Set model_id = [9] in config.py');
  });

  it('reports lists of unequal length', () => {
    const text = 'model_id = [0, 1, 2]\nsubtasks = ["a", "b"]\naccess_list = [[], [0], [1]]';
    expect(fail(parsePlan(text, pool)).issues).toEqual([
      {
        code: 'unequal-lists',
        message: 'The three lists have different lengths: model_id 3, subtasks 2, access_list 3.',
      },
    ]);
  });

  it('reports a model index outside the pool, with the other faults', () => {
    const text = 'model_id = [0, 7]\nsubtasks = ["a", ""]\naccess_list = [[], [1]]';
    expect(fail(parsePlan(text, pool)).issues).toEqual([
      {
        code: 'unknown-worker',
        step: 1,
        message: 'Step 1 names model 7, but the pool has only 3 models (0–2).',
      },
      { code: 'empty-task', step: 1, message: 'Step 1 has an empty task.' },
      { code: 'sees-self', step: 1, message: 'Step 1 sees itself.' },
    ]);
  });

  it('validates access lists like sees', () => {
    const text = 'model_id = [0, 1]\nsubtasks = ["a", "b"]\naccess_list = [None, [3]]';
    expect(fail(parsePlan(text, pool)).message).toBe(
      'Step 0 has sees null; it must be "all" or a list of earlier step numbers. Step 1 sees step 3, but the plan has only 2 steps.',
    );
  });

  it('reports a missing list', () => {
    const text = 'model_id = [0]\nsubtasks = ["a"]';
    expect(fail(parsePlan(text, pool)).issues).toEqual([
      {
        code: 'not-found',
        message: "Found model_id and subtasks but not access_list: the paper's format needs all three lists.",
      },
    ]);
  });

  it('ignores prose that names a list without a literal', () => {
    const text = 'model_id = the index of a model.\nmodel_id = [0]\nsubtasks = ["a"]\naccess_list = [[]]';
    expect(ok(parsePlan(text, pool)).steps).toEqual([{ worker: 'w0', task: 'a', sees: [] }]);
  });

  it('reads the three lists written as one JSON object, as some reproductions prompt for', () => {
    const text = `I will research, then answer.\n\`\`\`json\n${JSON.stringify({
      model_id: [1, 0],
      subtasks: ['Find sources on {x}.', 'Answer using them.'],
      access_list: [[], 'all'],
    })}\n\`\`\``;
    expect(ok(parsePlan(text, pool))).toEqual({
      thought: 'I will research, then answer.',
      steps: [
        { worker: 'w1', task: 'Find sources on {x}.', sees: [] },
        { worker: 'w0', task: 'Answer using them.', sees: 'all' },
      ],
    });
    const unequal = JSON.stringify({ model_id: [1], subtasks: ['a', 'b'], access_list: [[]] });
    expect(fail(parsePlan(unequal, pool)).issues[0]!.code).toBe('unequal-lists');
  });

  it('prefers our JSON when both formats appear', () => {
    const text = `model_id = [0]\nsubtasks = ["paper"]\naccess_list = [[]]\n${JSON.stringify(plan)}`;
    expect(ok(parsePlan(text, pool)).steps).toHaveLength(3);
  });
});

describe("parsePlan: the paper's reasoning and the thought's limit", () => {
  it('cuts long reasoning before the lists to the limit instead of rejecting the plan', () => {
    const text = `${'Reasoning. '.repeat(200)}\nmodel_id = [0]\nsubtasks = ["do it"]\naccess_list = [[]]`;
    const r = parsePlan(text, { workerIds: ['w0'] });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(Array.from(r.plan.thought ?? '')).toHaveLength(DEFAULT_MAX_THOUGHT_LENGTH);
      expect(r.plan.thought?.endsWith('…')).toBe(true);
    }
  });
});
