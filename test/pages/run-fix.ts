import { runFixPlan } from '../../src/evaluation/run-fix.ts';
import { scoreAnswer } from '../../src/evaluation/score.ts';
import { runStrategy } from '../../src/evaluation/strategies.ts';
import type { Task } from '../../src/evaluation/taskset.ts';
import { codeRunnerWorker } from '../../src/executor/code-runner-worker.ts';
import { RunStepTransport } from '../../src/executor/run-step.ts';
import type { ChatEvent, ChatRequest, ChatTransport } from '../../src/providers/transport.ts';
import { createSandboxRunner } from '../../src/sandbox/code-runner.ts';
import { contentText } from '../../src/shared/chat.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';

// Harness for bench/run-step.bench.ts (P19, P20): the real executor, run step and sandbox (Pyodide from this
// build), with scripted workers in the page: a writer whose code has a seeded bug, and a fixer that fixes it
// only when the run step's answer shows a failure.

interface SeededTask {
  task: Task;
  correct: string;
  buggy: string;
}

const runner = createSandboxRunner();
const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

const worker = (id: string): WorkerSpec => ({
  id,
  label: id,
  strengths: '',
  providerId: 'scripted',
  baseURL: '',
  model: id,
  maxConcurrency: 1,
  enabled: true,
});

/** A scripted worker: its answer from the request's messages. */
function scripted(answer: (messages: string[]) => string): ChatTransport {
  return {
    async *stream(_worker: WorkerSpec, request: ChatRequest): AsyncIterable<ChatEvent> {
      yield { type: 'delta', text: answer(request.messages.map((m) => contentText(m.content))) };
      yield { type: 'usage', promptTokens: 0, completionTokens: 0 };
    },
  };
}

/** Accuracy of write alone and of write → run → fix on the seeded set: each item's two outcomes. */
async function runFix(items: SeededTask[]): Promise<{ id: string; alone: boolean; fixed: boolean }[]> {
  const out: { id: string; alone: boolean; fixed: boolean }[] = [];
  const run = new RunStepTransport(async () => runner, 10_000);
  for (const item of items) {
    const writer = scripted(() => `Here it is:\n\n${fenced(item.buggy)}`);
    const fixer = scripted((messages) =>
      messages.some((m) => /^Result: (raised|exited|stopped)/m.test(m))
        ? `Fixed:\n\n${fenced(item.correct)}`
        : `It ran cleanly:\n\n${fenced(item.buggy)}`,
    );
    const transport = (w: WorkerSpec) => (w.id === 'run' ? run : w.id === 'writer' ? writer : fixer);
    const pool = [worker('writer'), worker('fixer')];
    const signal = new AbortController().signal;
    const alone = await runStrategy({ kind: 'single', worker: 'writer' }, item.task, {
      pool,
      transport,
      signal,
    });
    const fixed = await runStrategy({ kind: 'run-fix', writer: 'writer', fixer: 'fixer' }, item.task, {
      pool,
      transport,
      signal,
    });
    const score = async (answer: string | undefined) =>
      answer !== undefined && (await scoreAnswer(item.task, answer, runner, 10_000)).correct;
    out.push({ id: item.task.id, alone: await score(alone.answer), fixed: await score(fixed.answer) });
  }
  return out;
}

/**
 * P19: ms of one run step (the code and the question's examples, as write → run → fix runs them) and of the
 * bench scoring the same code with its hidden tests, alternately, after `warmup` of each.
 */
async function runStepTimes(item: SeededTask, runs: number, warmup: number) {
  const transport = new RunStepTransport(async () => runner, 10_000);
  const [, runStep] = runFixPlan('writer', 'writer', item.task).steps;
  const messages = [
    { role: 'user' as const, content: item.task.question },
    { role: 'user' as const, content: 'Write the code.' },
    { role: 'assistant' as const, content: fenced(item.correct) },
    { role: 'user' as const, content: runStep!.task },
  ];
  const step = async () => {
    let text = '';
    const request = { messages, signal: new AbortController().signal, runId: 'p19', stepIndex: 1 };
    for await (const e of transport.stream(codeRunnerWorker(), request))
      if (e.type === 'delta') text += e.text;
    if (!text.startsWith('Result: ran to its end')) throw new Error(`the run step failed: ${text}`);
  };
  const score = async () => {
    if (!(await scoreAnswer(item.task, fenced(item.correct), runner, 10_000)).correct)
      throw new Error('the reference answer failed');
  };
  const timed = async (fn: () => Promise<void>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  for (let i = 0; i < warmup; i++) {
    await step();
    await score();
  }
  const times = { step: [] as number[], score: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.step.push(await timed(step));
    times.score.push(await timed(score));
  }
  return times;
}

Object.assign(globalThis, { harness: { runFix, runStepTimes } });
document.body.dataset.ready = 'true';
