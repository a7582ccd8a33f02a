import { describe, expect, it } from 'vitest';
import {
  IncrementalPlanParser,
  type ParsedStepEvent,
  type ParseOptions,
  type Plan,
  parsePlan,
  type Step,
} from '../../../../src/shared/plan/index.ts';

const options: ParseOptions = { workerIds: ['w0', 'w1', 'w2'], allowSelf: true };

/** Deterministic PRNG (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces that stress the scanner: braces and brackets in strings, quotes, backslashes, escapes, non-ASCII.
const PIECES = [
  'plan',
  ' the ',
  '{',
  '}',
  '[',
  ']',
  '"',
  '\\',
  '\\"',
  '\n',
  'é',
  '😀',
  ',',
  ':',
  'steps',
  '\t',
  'x',
];

function text(random: () => number, min: number): string {
  const n = min + Math.floor(random() * 8);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(random() * PIECES.length)];
  return s.trim() === '' ? 'task' : s;
}

function randomPlan(random: () => number): Plan {
  const count = 1 + Math.floor(random() * 5);
  const workers = ['w0', 'w1', 'w2', 'self'];
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) {
    let sees: Step['sees'];
    if (i > 0 && random() < 0.25) sees = 'all';
    else sees = Array.from({ length: i }, (_, j) => j).filter(() => random() < 0.5);
    steps.push({ worker: workers[Math.floor(random() * workers.length)]!, task: text(random, 1), sees });
  }
  // A plan of only self-checks is invalid (no worker would answer): give the last step a worker.
  if (steps.every((s) => s.worker === 'self')) steps[count - 1]!.worker = 'w0';
  return random() < 0.2 ? { steps } : { thought: text(random, 0), steps };
}

/** JSON.stringify, optionally with every non-ASCII character written as \uXXXX (as some models do). */
function str(value: unknown, ascii: boolean): string {
  const s = JSON.stringify(value);
  return ascii
    ? s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

/** Serializes a plan, recording where each step's closing brace is. Styles vary the surroundings. */
function serialize(plan: Plan, random: () => number): { text: string; closes: number[] } {
  const ascii = random() < 0.5;
  const pretty = random() < 0.5;
  const nl = pretty ? '\n  ' : '';
  const prefix = ['', 'Sure. Here is a plan {not this one}:\n```json\n', 'Thinking: "quotes" and \\ here.\n'][
    Math.floor(random() * 3)
  ]!;
  let out = `${prefix}{${nl}`;
  if (plan.thought !== undefined) out += `"thought":${pretty ? ' ' : ''}${str(plan.thought, ascii)},${nl}`;
  out += `"steps": [`;
  const closes: number[] = [];
  plan.steps.forEach((step, i) => {
    if (i > 0) out += `,${nl}`;
    out += `${nl}{"worker": ${str(step.worker, ascii)}, "task":${str(step.task, ascii)},"sees": ${str(step.sees, ascii)} }`;
    closes.push(out.length - 1);
  });
  out += `${nl}]}${prefix.includes('```') ? '\n```' : ''}`;
  return { text: out, closes };
}

/** Feeds `text` cut at `cuts`; returns each event with the [start, end) range of the chunk it came from. */
function feed(text: string, cuts: number[], parserOptions = options) {
  const parser = new IncrementalPlanParser(parserOptions);
  const got: { event: ParsedStepEvent; from: number; to: number }[] = [];
  const thoughts: string[] = [];
  let from = 0;
  for (const to of [...cuts, text.length]) {
    for (const event of parser.push(text.slice(from, to))) got.push({ event, from, to });
    thoughts.push(parser.thought);
    from = to;
  }
  return { parser, got, thoughts };
}

function check(plan: Plan, serialized: { text: string; closes: number[] }, cuts: number[]) {
  const { parser, got, thoughts } = feed(serialized.text, cuts);
  const where = `cuts ${JSON.stringify(cuts)} of ${JSON.stringify(serialized.text)}`;
  expect(
    got.map((g) => g.event),
    where,
  ).toEqual(plan.steps.map((step, index) => ({ type: 'step', index, step })));
  got.forEach((g, i) => {
    // Emitted by the very push whose chunk holds the step's closing brace.
    const close = serialized.closes[i]!;
    expect(
      close >= g.from && close < g.to,
      `step ${i} closes at ${close}, emitted on [${g.from}, ${g.to}) — ${where}`,
    ).toBe(true);
  });
  // The thought streams as a growing prefix of the final text.
  const final = plan.thought ?? '';
  expect(parser.thought, where).toBe(final);
  for (const t of thoughts) expect(final.startsWith(t), where).toBe(true);
  expect(parser.thoughtComplete).toBe(plan.thought !== undefined);
  expect(parser.complete).toBe(true);
  expect(parser.emitted).toBe(plan.steps.length);
  expect(parser.end(), where).toEqual({ ok: true, plan });
}

describe('IncrementalPlanParser', () => {
  it('emits exactly the steps, each on the chunk holding its closing brace, for a cut at every position', () => {
    const random = rng(1);
    for (let n = 0; n < 12; n++) {
      const plan = randomPlan(random);
      const serialized = serialize(plan, random);
      for (let cut = 0; cut <= serialized.text.length; cut++) check(plan, serialized, [cut]);
    }
  });

  it('does the same for random chunk sizes and one character at a time', () => {
    const random = rng(2);
    for (let n = 0; n < 150; n++) {
      const plan = randomPlan(random);
      const serialized = serialize(plan, random);
      const cuts: number[] = [];
      const max = n % 3 === 0 ? 1 : 1 + Math.floor(random() * 12);
      for (
        let at = 1 + Math.floor(random() * max);
        at < serialized.text.length;
        at += 1 + Math.floor(random() * max)
      ) {
        cuts.push(at);
      }
      check(plan, serialized, cuts);
    }
  });

  it('streams the thought, unescaping as it goes, even with an escape split across chunks', () => {
    const parser = new IncrementalPlanParser(options);
    parser.push('{"thought": "Split \\');
    expect(parser.thought).toBe('Split ');
    parser.push('"this\\u00');
    expect(parser.thought).toBe('Split "this');
    parser.push('e9\\n\\ud83d\\ude00 x", "steps": [');
    expect(parser.thought).toBe('Split "thisé\n😀 x');
    expect(parser.thoughtComplete).toBe(true);
  });

  it('stops at the first invalid step, reporting it on the chunk that closes it', () => {
    const parser = new IncrementalPlanParser(options);
    expect(
      parser.push(
        '{"steps": [{"worker": "w1", "task": "a", "sees": []}, {"worker": "w2", "task": "b", "sees": [',
      ),
    ).toEqual([{ type: 'step', index: 0, step: { worker: 'w1', task: 'a', sees: [] } }]);
    const error = {
      code: 'sees-forward',
      step: 1,
      message: 'Step 1 sees step 2, which comes after it: a step may only see earlier steps.',
    };
    expect(parser.push('2]}')).toEqual([{ type: 'error', index: 1, error, issues: [error] }]);
    expect(parser.failed).toBe(true);
    expect(parser.push(', {"worker": "w0", "task": "c", "sees": []}]}')).toEqual([]);
    expect(parser.emitted).toBe(1);
    const end = parser.end();
    expect(end.ok).toBe(false);
    if (!end.ok) expect(end.issues).toEqual([error]);
  });

  it('lists every fault of a bad step in the error event', () => {
    const parser = new IncrementalPlanParser(options);
    const [event] = parser.push('{"steps": [{"worker": "gpt5", "task": " ", "sees": [0]}]}');
    expect(event?.type).toBe('error');
    if (event?.type === 'error') {
      expect(event.error.code).toBe('unknown-worker');
      expect(event.issues.map((i) => i.code)).toEqual(['unknown-worker', 'empty-task', 'sees-self']);
    }
  });

  it('reports a step past the limit as soon as it closes', () => {
    const parser = new IncrementalPlanParser({ ...options, maxSteps: 2 });
    const step = '{"worker": "w1", "task": "a", "sees": []}';
    const events = parser.push(`{"steps": [${step}, ${step}, ${step}`);
    expect(events.map((e) => e.type)).toEqual(['step', 'step', 'error']);
    expect(events[2]).toMatchObject({
      index: 2,
      error: { code: 'too-many-steps', message: 'The plan has more than 2 steps; the limit is 2.' },
    });
  });

  it('reports a step that is not valid JSON', () => {
    const parser = new IncrementalPlanParser(options);
    const [event] = parser.push('{"steps": [{"worker": w1, "task": "a", "sees": []}');
    expect(event).toMatchObject({ type: 'error', index: 0, error: { code: 'bad-json', step: 0 } });
    expect(event?.error?.message).toMatch(/^Step 0 is not valid JSON: .+\.$/);
  });

  it('continues indices after existing steps with offset', () => {
    const parser = new IncrementalPlanParser({ ...options, offset: 4, minSteps: 0 });
    expect(parser.push('{"steps": [{"worker": "w1", "task": "fix", "sees": [3]}]}')).toEqual([
      { type: 'step', index: 4, step: { worker: 'w1', task: 'fix', sees: [3] } },
    ]);
    expect(parser.end()).toEqual({ ok: true, plan: { steps: [{ worker: 'w1', task: 'fix', sees: [3] }] } });
  });

  it('accepts an empty corrective list, and ignores text after the plan', () => {
    const parser = new IncrementalPlanParser({ ...options, minSteps: 0 });
    expect(parser.push('{"thought": "fine as is", "steps": []} and {"steps": [{"worker": "w1"}]}')).toEqual(
      [],
    );
    expect(parser.complete).toBe(true);
    expect(parser.end()).toEqual({ ok: true, plan: { thought: 'fine as is', steps: [] } });
  });

  it('passes over an object without steps, forgetting its thought', () => {
    const parser = new IncrementalPlanParser(options);
    parser.push('{"thought": "not the plan"} then {"steps": [{"worker": "w1", "task": "a", "sees": "all"}]');
    expect(parser.thought).toBe('');
    expect(parser.emitted).toBe(1);
  });

  it('leaves a plan wrapped in another object to end(), which finds it as parsePlan does', () => {
    // Streaming a nested "steps" could dispatch steps the final plan lacks: the outer object may still
    // get a "steps" of its own, which parsePlan prefers.
    const parser = new IncrementalPlanParser(options);
    const events = parser.push(
      '{"plan": {"thought": "t", "steps": [{"worker": "w1", "task": "a", "sees": []}]}}',
    );
    expect(events).toHaveLength(0);
    expect(parser.emitted).toBe(0);
    expect(parser.end()).toEqual({
      ok: true,
      plan: { thought: 't', steps: [{ worker: 'w1', task: 'a', sees: [] }] },
    });
  });

  it('reads a key split across chunks and a key with an escape', () => {
    const parser = new IncrementalPlanParser(options);
    parser.push('{"th');
    parser.push('ought": "a", "st\\u0065');
    const events = parser.push('ps": [{"worker": "w1", "task": "a", "sees": []}]}');
    expect(parser.thought).toBe('a');
    expect(events).toHaveLength(1);
  });

  it('leaves the paper format to end()', () => {
    const parser = new IncrementalPlanParser(options);
    expect(
      parser.push('Reasoning first.\nmodel_id = [1]\nsubtasks = ["do {it}"]\naccess_list = [[]]'),
    ).toEqual([]);
    expect(parser.end()).toEqual({
      ok: true,
      plan: { thought: 'Reasoning first.', steps: [{ worker: 'w1', task: 'do {it}', sees: [] }] },
    });
  });

  it('reports a plan cut off mid-stream at end()', () => {
    const parser = new IncrementalPlanParser(options);
    parser.push('{"steps": [{"worker": "w1", "task": "a", "sees": []}, {"worker": "w2", "ta');
    expect(parser.emitted).toBe(1);
    expect(parser.complete).toBe(false);
    const end = parser.end();
    expect(end.ok).toBe(false);
    if (!end.ok) expect(end.issues[0]!.code).toBe('bad-json');
    expect(() => parser.push('x')).toThrow(/push after end/);
  });
});

describe('IncrementalPlanParser: only the plan\'s own "steps", once', () => {
  const A = '{"worker": "w0", "task": "A", "sees": []}';
  const B0 = '{"worker": "w1", "task": "B0", "sees": []}';
  const B1 = '{"worker": "w2", "task": "B1", "sees": [0]}';
  const E = '{"worker": "w1", "task": "E", "sees": []}';
  const R = '{"worker": "w2", "task": "R", "sees": []}';

  /** Every step the stream dispatches, chunk by chunk (one character at a time), and the final parse. */
  function stream(text: string) {
    const parser = new IncrementalPlanParser(options);
    const events = [...text].flatMap((c) => parser.push(c));
    return {
      steps: events.filter((e) => e.type === 'step').map((e) => e.step?.task),
      errors: events.filter((e) => e.type === 'error').map((e) => e.error?.message),
      final: parser.end(),
    };
  }

  it('a second "steps" key dispatches nothing more and the whole text is rejected', () => {
    const r = stream(`{"steps": [${A}], "steps": [${B0}, ${B1}]}`);
    expect(r.steps).toEqual(['A']);
    expect(r.errors).toEqual([
      'The plan has "steps" twice; it must have one "steps" list (the first one was already read).',
    ]);
    expect(r.final.ok).toBe(false);
    if (!r.final.ok) expect(r.final.message).toBe(r.errors[0]);
  });

  it('a "steps" inside an example object before the plan\'s own dispatches only the plan\'s own', () => {
    const r = stream(`{"example": {"steps": [${E}]}, "steps": [${R}]}`);
    expect(r.steps).toEqual(['R']);
    expect(r.final).toEqual({ ok: true, plan: { steps: [{ worker: 'w2', task: 'R', sees: [] }] } });
  });

  it('a "steps" nested after the plan\'s own, or inside a step, dispatches nothing of its own', () => {
    const after = stream(`{"steps": [${A}], "extra": {"steps": [${E}]}}`);
    expect(after.steps).toEqual(['A']);
    expect(after.final.ok && after.final.plan.steps.map((s) => s.task)).toEqual(['A']);

    const inside = stream(`{"steps": [{"worker": "w0", "task": "A", "sees": [], "steps": [${E}]}]}`);
    expect(inside.steps).toEqual(['A']);
    expect(inside.final.ok && inside.final.plan.steps.map((s) => s.task)).toEqual(['A']);
  });

  it('a key that only spells "steps" with escapes still counts, and a string that holds one does not', () => {
    const escaped = stream(`{"steps": [${A}], "st\\u0065ps": [${E}]}`);
    expect(escaped.steps).toEqual(['A']);
    expect(escaped.final.ok).toBe(false);

    const quoted = stream(`{"note": "\\"steps\\": [${E.replaceAll('"', '\\"')}]", "steps": [${R}]}`);
    expect(quoted.steps).toEqual(['R']);
    expect(quoted.final.ok && quoted.final.plan.steps.map((s) => s.task)).toEqual(['R']);
  });

  it('a "thought" inside a nested object is not streamed as the plan\'s thought', () => {
    const parser = new IncrementalPlanParser(options);
    parser.push('{"example": {"thought": "not mine"}, "thought": "mine", "steps": [');
    expect(parser.thought).toBe('mine');
  });

  it('what streams is always a prefix of the final plan, for every adversarial input', () => {
    const inputs = [
      `{"steps": [${A}], "steps": [${B0}, ${B1}]}`,
      `{"example": {"steps": [${E}]}, "steps": [${R}]}`,
      `{"plan": {"steps": [${E}]}, "steps": [${R}]}`,
      `{"plan": {"steps": [${E}]}}`,
      `{"steps": {"0": ${E}}, "x": [${E}]}`,
      `[{"steps": [${A}]}]`,
      `{"a": [{"steps": [${E}]}], "steps": [${R}, ${B0}]}`,
      `{"steps": [${A}]} {"steps": [${E}]}`,
      // The first object is the plan even when its "steps" is no list, is nested, or does not parse:
      // a later object must not stream, since parsePlan takes (or rejects) the first.
      `{"steps": "none"} {"steps": [${E}]}`,
      `{"plan": {"steps": [${E}]}} {"steps": [${R}]}`,
      `{"steps": [${A}, {"worker": w1}]} {"steps": [${E}]}`,
      `{"thought": "no plan here"} {"steps": [${R}]}`,
    ];
    for (const input of inputs) {
      const r = stream(input);
      const final = r.final.ok ? r.final.plan.steps.map((s) => s.task) : [];
      if (r.final.ok) expect(final.slice(0, r.steps.length), input).toEqual(r.steps);
      // A rejected text that streamed a step says so in the stream too, so the caller can stop.
      else if (r.steps.length > 0) expect(r.errors.length, input).toBe(1);
      // What parsePlan alone finds is what end() finds.
      expect(parsePlan(input, options), input).toEqual(r.final);
    }
  });
});
