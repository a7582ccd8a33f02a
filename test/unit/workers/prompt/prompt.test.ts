import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../../src/shared/chat.ts';
import {
  DEFAULT_MAX_TASK_LENGTH,
  DEFAULT_MAX_THOUGHT_LENGTH,
  parsePlan,
  validatePlan,
} from '../../../../src/shared/plan/index.ts';
import { mapRoles } from '../../../../workers/prompt/few-shots.ts';
import {
  buildPlanMessages,
  buildRepairMessages,
  buildReplanMessages,
  type PromptWorker,
  truncateMiddle,
} from '../../../../workers/prompt/prompt.ts';

const POOL: PromptWorker[] = [
  { id: 'mini', label: 'GPT mini', strengths: 'Fast and cheap, good for simple facts.', costTier: 'low' },
  { id: 'coder', label: 'Codestral', strengths: 'Writes and debugs code.', costTier: 'medium' },
  { id: 'sage', label: 'Claude', strengths: 'Careful reasoning, math and writing.', costTier: 'high' },
];

const ONE: PromptWorker[] = [{ id: 'only', label: 'Local model', strengths: 'General.' }];

function assistantPlans(messages: ChatMessage[]): unknown[] {
  return messages.filter((m) => m.role === 'assistant').map((m) => JSON.parse(m.content));
}

function isAscii(text: string): boolean {
  return [...text].every((c) => c === '\n' || c === '\t' || (c >= ' ' && c <= '~'));
}

describe('mapRoles', () => {
  it('maps example roles onto the pool by cost tier and strengths', () => {
    expect(mapRoles(POOL)).toEqual({
      cheap: 'mini',
      strong: 'sage',
      coder: 'coder',
      reasoner: 'sage',
      proposerA: 'mini',
      proposerB: 'coder',
    });
  });

  it('maps everything onto a single worker', () => {
    expect(new Set(Object.values(mapRoles(ONE)))).toEqual(new Set(['only']));
  });
});

describe('buildPlanMessages', () => {
  const pools: Array<[string, PromptWorker[]]> = [
    ['three workers', POOL],
    ['one worker', ONE],
  ];

  it.each(pools)('conductor few-shots are valid plans for the pool (%s)', (_name, pool) => {
    for (const maxSteps of [1, 2, 3, 5]) {
      const messages = buildPlanMessages({ question: 'Q?', pool, mode: 'conductor', maxSteps, maxDepth: 2 });
      const plans = assistantPlans(messages);
      expect(plans.length).toBeGreaterThan(0);
      for (const plan of plans) {
        const result = validatePlan(plan, {
          workerIds: pool.map((w) => w.id),
          maxSteps,
          allowSelf: maxSteps > 1,
        });
        expect(result.ok, JSON.stringify(result)).toBe(true);
        const p = plan as { thought: string; steps: Array<{ task: string }> };
        expect(p.thought.length).toBeLessThanOrEqual(DEFAULT_MAX_THOUGHT_LENGTH);
        for (const step of p.steps) expect(step.task.length).toBeLessThanOrEqual(DEFAULT_MAX_TASK_LENGTH);
      }
    }
  });

  it('shows four shapes in conductor mode: one step, pipeline, parallel, and recursion', () => {
    const messages = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'conductor',
      maxSteps: 5,
      maxDepth: 2,
    });
    const plans = assistantPlans(messages) as Array<{ steps: Array<{ worker: string; sees: unknown }> }>;
    expect(plans).toHaveLength(4);
    expect(plans.map((p) => p.steps.length)).toEqual([1, 3, 3, 2]);
    // Parallel: two steps that see nothing, then one that sees both.
    expect(plans[2]?.steps.map((s) => s.sees)).toEqual([[], [], [0, 1]]);
    expect(new Set([plans[2]?.steps[0]?.worker, plans[2]?.steps[1]?.worker]).size).toBe(2);
    expect(plans[3]?.steps.at(-1)?.worker).toBe('self');
    // Turns alternate: system, (user, assistant) x 4, then the real question last.
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      ...Array(4).fill(['user', 'assistant']).flat(),
      'user',
    ]);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Q?' });
  });

  it('states the pool, the limits and the rules in the system prompt', () => {
    const [system] = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'conductor',
      maxSteps: 4,
      maxDepth: 2,
    });
    const text = system?.content ?? '';
    expect(system?.role).toBe('system');
    expect(text).toContain('- mini: GPT mini (cost low). Fast and cheap, good for simple facts.');
    expect(text).toContain('- coder: Codestral (cost medium). Writes and debugs code.');
    expect(text).toContain('- self: you, the conductor');
    expect(text).toContain('At most 4 steps.');
    expect(text).toContain("The last step's answer is the final answer");
    expect(text).toContain('"all" every earlier step');
    expect(text).toContain('- self: you, the conductor. Last step only');
    expect(text).toContain('(2 levels max)');
  });

  it('leaves self out when recursion is off', () => {
    const messages = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'conductor',
      maxSteps: 5,
      maxDepth: 0,
    });
    expect(messages[0]?.content).not.toMatch(/- self:|"self"/);
    const plans = assistantPlans(messages) as Array<{ steps: Array<{ worker: string }> }>;
    expect(plans.flatMap((p) => p.steps.map((s) => s.worker))).not.toContain('self');
    expect(plans).toHaveLength(3);
  });

  it('router mode asks for exactly one step and shows only one-step examples', () => {
    const messages = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'router',
      maxSteps: 5,
      maxDepth: 2,
    });
    expect(messages[0]?.content).toContain('Router mode: exactly one step.');
    // One step sees nothing, so the router's prompt spends no tokens on sees, limits or recursion.
    expect(messages[0]?.content).not.toMatch(/sees:|At most/);
    expect(messages[0]?.content).not.toMatch(/- self:|"self"/);
    const plans = assistantPlans(messages);
    expect(plans.length).toBeGreaterThanOrEqual(3);
    for (const plan of plans) {
      expect(validatePlan(plan, { workerIds: POOL.map((w) => w.id), maxSteps: 1 }).ok).toBe(true);
    }
    // The examples route to different workers, so the model sees that the choice matters.
    const workers = (plans as Array<{ steps: Array<{ worker: string }> }>).map((p) => p.steps[0]?.worker);
    expect(new Set(workers).size).toBe(3);
  });

  /** What the example questions are about: a task that names it restates the question. */
  const SUBJECTS = /australia|interval|odd|team of five/i;
  const shotSteps = (messages: ChatMessage[]) =>
    messages.flatMap((m, i) =>
      m.role === 'assistant'
        ? (JSON.parse(m.content) as { steps: Array<{ task: string; sees: unknown }> }).steps.map((step) => ({
            question: messages[i - 1]?.content ?? '',
            ...step,
          }))
        : [],
    );

  it.each(['router', 'conductor'] as const)(
    '%s mode: with the question sent to every worker (the default), tasks are instructions that do not restate it',
    (mode) => {
      const messages = buildPlanMessages({ question: 'Q?', pool: POOL, mode, maxSteps: 5, maxDepth: 2 });
      expect(messages[0]?.content).toMatch(/gets the question too: do not restate it/);
      const steps = shotSteps(messages);
      expect(steps.length).toBeGreaterThan(2);
      for (const step of steps) expect(step.task).not.toMatch(SUBJECTS);
    },
  );

  it.each(['router', 'conductor'] as const)(
    '%s mode: when workers are not sent the question, the prompt says so and the tasks restate it',
    (mode) => {
      const messages = buildPlanMessages({
        question: 'Q?',
        pool: POOL,
        mode,
        maxSteps: 5,
        maxDepth: 2,
        includeQuestion: false,
      });
      expect(messages[0]?.content).toMatch(/never gets? the question: restate what is needed/);
      expect(messages[0]?.content).not.toContain('the question too');
      // Every step that sees nothing else gets only its task, so that task names its subject.
      const alone = shotSteps(messages).filter((s) => Array.isArray(s.sees) && s.sees.length === 0);
      expect(alone.length).toBeGreaterThan(2);
      for (const step of alone) expect(step.task).toMatch(SUBJECTS);
      // The same shapes and workers either way: only the wording of the tasks changes.
      const withQuestion = buildPlanMessages({ question: 'Q?', pool: POOL, mode, maxSteps: 5, maxDepth: 2 });
      const shape = (ms: ChatMessage[]) => shotSteps(ms).map((s) => s.sees);
      expect(shape(messages)).toEqual(shape(withQuestion));
    },
  );

  it('is ASCII only and compact', () => {
    for (const mode of ['router', 'conductor'] as const) {
      const messages = buildPlanMessages({
        question: 'What is 2+2?',
        pool: POOL,
        mode,
        maxSteps: 5,
        maxDepth: 2,
      });
      for (const m of messages) expect(isAscii(m.content), m.content).toBe(true);
      const chars = messages.reduce((n, m) => n + m.content.length, 0);
      expect(chars).toBeLessThan(5000);
    }
  });

  it('keeps every turn before the question byte-identical across questions, so an engine can keep that prefix', () => {
    for (const mode of ['conductor', 'router'] as const) {
      const input = { pool: POOL, mode, maxSteps: 5, maxDepth: 2 };
      const a = buildPlanMessages({ ...input, question: 'What is 2 + 2?' });
      const b = buildPlanMessages({
        ...input,
        question: 'Write a poem about the sea, then check its rhyme.',
      });
      expect(JSON.stringify(a.slice(0, -1))).toBe(JSON.stringify(b.slice(0, -1)));
      expect(a.at(-1)).toEqual({ role: 'user', content: 'What is 2 + 2?' });
      // Workflow memory's examples differ per question: they come after the built-in turns, which stay the prefix.
      const example = {
        question: 'Sum a list in python',
        plan: { thought: 'code it', steps: [{ worker: 'coder', task: 'Write it.', sees: [] }] },
      };
      const c = buildPlanMessages({ ...input, question: 'What is 2 + 2?', examples: [example] });
      expect(JSON.stringify(c.slice(0, a.length - 1))).toBe(JSON.stringify(a.slice(0, -1)));
    }
  });

  it('refuses an empty pool', () => {
    expect(() =>
      buildPlanMessages({ question: 'Q', pool: [], mode: 'router', maxSteps: 1, maxDepth: 0 }),
    ).toThrow(/no workers/);
  });
});

describe('a pool with a worker that searches the web', () => {
  const SEARCHING: PromptWorker[] = [
    ...POOL,
    { id: 'web', label: 'GPT-4o Search', strengths: 'Recent events.', costTier: 'high', webSearch: true },
    { id: 'web2', label: 'Haiku search', strengths: 'Recent events.', costTier: 'medium', webSearch: true },
  ];
  const searchPlans = (messages: ChatMessage[]) =>
    messages.flatMap((m, i) =>
      m.role === 'assistant' && /F1 race/.test(messages[i - 1]?.content ?? '')
        ? [JSON.parse(m.content) as { steps: Array<{ worker: string; task: string; sees: unknown }> }]
        : [],
    );

  it('says in the pool line which workers search the web, and nothing for the others', () => {
    const [system] = buildPlanMessages({
      question: 'Q?',
      pool: SEARCHING,
      mode: 'conductor',
      maxSteps: 5,
      maxDepth: 2,
    });
    expect(system?.content).toContain('- web: GPT-4o Search (cost high, searches the web). Recent events.');
    expect(system?.content).toContain('- mini: GPT mini (cost low). Fast and cheap, good for simple facts.');
    const [bare] = buildPlanMessages({
      question: 'Q?',
      pool: [{ id: 'w', label: 'Searcher', strengths: '', webSearch: true }],
      mode: 'router',
      maxSteps: 1,
      maxDepth: 0,
    });
    expect(bare?.content).toContain('- w: Searcher (searches the web).');
  });

  it.each(['router', 'conductor'] as const)(
    '%s mode: one example sends a question about recent events to the cheapest searching worker',
    (mode) => {
      const messages = buildPlanMessages({ question: 'Q?', pool: SEARCHING, mode, maxSteps: 5, maxDepth: 2 });
      const plans = searchPlans(messages);
      expect(plans).toHaveLength(1);
      expect(plans[0]?.steps).toEqual([{ worker: 'web2', task: 'Search the web; cite sources.', sees: [] }]);
      for (const plan of assistantPlans(messages)) {
        const ok = validatePlan(plan, {
          workerIds: SEARCHING.map((w) => w.id),
          maxSteps: mode === 'router' ? 1 : 5,
          allowSelf: mode === 'conductor',
        });
        expect(ok.ok, JSON.stringify(ok)).toBe(true);
      }
      for (const m of messages) expect(isAscii(m.content), m.content).toBe(true);
      // A pool without a searching worker gets no such example, and pays no tokens for it.
      expect(
        searchPlans(buildPlanMessages({ question: 'Q?', pool: POOL, mode, maxSteps: 5, maxDepth: 2 })),
      ).toEqual([]);
    },
  );

  it('restates the question in the example when workers are not sent it', () => {
    const messages = buildPlanMessages({
      question: 'Q?',
      pool: SEARCHING,
      mode: 'conductor',
      maxSteps: 5,
      maxDepth: 2,
      includeQuestion: false,
    });
    expect(searchPlans(messages)[0]?.steps[0]?.task).toBe(
      'Who won the last F1 race? Search the web; cite sources.',
    );
  });
});

describe('buildReplanMessages', () => {
  const steps = [
    { worker: 'coder', task: 'Write fizzbuzz in Python.', sees: [] as number[] },
    { worker: 'self', task: 'Check it.', sees: 'all' as const },
  ];

  it('shows the question, the workflow with answers, and how to accept or correct', () => {
    const messages = buildReplanMessages({
      question: 'Write fizzbuzz.',
      pool: POOL,
      steps,
      answers: ['for i in range(1, 101): print(i)', null],
      depth: 1,
      maxDepth: 2,
    });
    const last = messages.at(-1)?.content ?? '';
    expect(last).toContain('Question: Write fizzbuzz.');
    expect(last).toContain(
      'Step 0 - worker coder, sees none\nTask: Write fizzbuzz in Python.\nAnswer: <data>for i in range(1, 101): print(i)</data>',
    );
    expect(last).toContain('Step 1 - worker self, sees all');
    expect(last).toContain('Answer: (no answer)');
    const system = messages[0]?.content ?? '';
    expect(system).toContain('accept it with {"steps": []}');
    expect(last).toContain('New steps start at step 2.');
    for (const m of messages) expect(isAscii(m.content)).toBe(true);
  });

  it('has an accepting and a correcting example that are valid for the pool', () => {
    const messages = buildReplanMessages({
      question: 'Q',
      pool: POOL,
      steps,
      answers: ['a', null],
      depth: 2,
      maxDepth: 2,
    });
    const plans = assistantPlans(messages);
    expect(plans).toHaveLength(2);
    const workerIds = POOL.map((w) => w.id);
    expect(validatePlan(plans[0], { workerIds, minSteps: 0, maxSteps: 3, offset: 2 }).ok).toBe(true);
    expect(plans[1]).toMatchObject({ steps: [] });
    expect(validatePlan(plans[1], { workerIds, minSteps: 0, maxSteps: 3 }).ok).toBe(true);
    // At the depth limit, self is not offered.
    expect(messages[0]?.content).not.toContain('- self:');
  });

  it('truncates long answers to the budget, keeping start and end', () => {
    const long = `START ${'x'.repeat(20_000)} END`;
    const messages = buildReplanMessages({
      question: 'Q',
      pool: POOL,
      steps: [steps[0]!],
      answers: [long],
      depth: 1,
      maxDepth: 2,
      answerBudget: 1000,
    });
    const last = messages.at(-1)?.content ?? '';
    expect(last.length).toBeLessThan(1300);
    expect(last).toContain('START');
    expect(last).toContain('END');
    expect(last).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
  });

  it('truncateMiddle leaves short text alone and respects the budget', () => {
    expect(truncateMiddle('short', 100)).toBe('short');
    const cut = truncateMiddle('a'.repeat(500) + 'b'.repeat(500), 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.startsWith('a')).toBe(true);
    expect(cut.endsWith('b')).toBe(true);
  });
});

describe('buildRepairMessages', () => {
  it('replays the attempt and quotes the validation error', () => {
    const first = buildPlanMessages({
      question: 'Q?',
      pool: POOL,
      mode: 'conductor',
      maxSteps: 3,
      maxDepth: 0,
    });
    const bad = '{"steps":[{"worker":"mini","task":"x","sees":[3]}]}';
    const result = parsePlan(bad, { workerIds: POOL.map((w) => w.id), maxSteps: 3 });
    expect(result.ok).toBe(false);
    const error = result.ok ? '' : result.message;
    const messages = buildRepairMessages({ messages: first, output: bad, error });
    expect(messages.slice(0, first.length)).toEqual(first);
    expect(messages[first.length]).toEqual({ role: 'assistant', content: bad });
    const ask = messages.at(-1);
    expect(ask?.role).toBe('user');
    expect(ask?.content).toContain(`"${error}"`);
    expect(ask?.content).toContain('Write the whole JSON again');
  });

  it('stands in for an empty output and shortens a huge one', () => {
    const empty = buildRepairMessages({ messages: [], output: '  ', error: 'The plan has no steps.' });
    expect(empty[0]).toEqual({ role: 'assistant', content: '(empty output)' });
    const huge = buildRepairMessages({ messages: [], output: 'y'.repeat(50_000), error: 'bad' });
    expect(huge[0]?.content.length).toBeLessThanOrEqual(2000);
  });
});
