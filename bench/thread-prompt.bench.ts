// The planner's prompt in a conversation: what the conductor prefills for the tenth question of a thread
// against the first, with the real Qwen3 tokenizer on the layout web-llm writes (as the prompt benchmarks
// count it, bench/prompt-tokens.bench.ts). The earlier turns are shown under a fixed budget, so planning a
// follow-up costs about what planning a first question does, however long the thread.
import { suggestPool } from '../src/pool/worker-rules.ts';
import type { ConversationTurn, PlanRequest } from '../src/shared/conductor-api.ts';
import { planPrompt } from '../workers/engine-host.ts';
import { countTokens, qwen3ChatText } from './prompt-tokens.bench.ts';
import { round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

/** A scripted thread: a question, then follow-ups that lean on the answers before them. */
const QUESTIONS = [
  'Write a Python function that checks whether a string is a palindrome, ignoring case.',
  'Now make it ignore punctuation and spaces too.',
  'Add type hints and a docstring.',
  'Write pytest tests for it, including empty strings and Unicode.',
  'Why does the Unicode test fail for "Ǆ"? Explain case folding.',
  'Rewrite it with str.casefold and show the new tests.',
  'Now the same function in Rust, with the same behaviour.',
  'Make the Rust version avoid allocating a new string.',
  'Compare the two versions for speed on a 1 MB input: what would you expect and why?',
  'Summarise everything we did in five bullet points.',
];

/** An answer of the length workers write for such questions (about 1,500 characters, code and prose). */
function answerFor(question: string, turn: number): string {
  const code = [
    '```python',
    'def is_palindrome(text: str) -> bool:',
    '    """Return True when text reads the same backwards, ignoring case and punctuation."""',
    '    kept = [c.casefold() for c in text if c.isalnum()]',
    '    return kept == kept[::-1]',
    '```',
  ].join('\n');
  const prose =
    `For "${question}" (turn ${turn + 1}): the function walks the string once, keeps the letters and digits, ` +
    'folds their case, and compares the sequence with its reverse. Edge cases: the empty string and a ' +
    'single character are palindromes; punctuation and spaces are ignored; case folding handles letters ' +
    'whose upper and lower forms differ in length. ';
  return `${prose.repeat(3)}\n\n${code}\n\n${prose}`;
}

function pool(): PlanRequest['pool'] {
  return suggestPool(['openai', 'anthropic', 'gemini', 'mistral']).map((w) => ({
    id: w.id,
    label: w.label,
    strengths: w.strengths,
    ...(w.costTier ? { costTier: w.costTier } : {}),
  }));
}

/** Prefill tokens of the planner's prompt for turn `n` (from 1) of the scripted thread. */
export function turnPromptTokens(n: number, mode: PlanRequest['mode'] = 'conductor'): number {
  const conversation: ConversationTurn[] = QUESTIONS.slice(0, n - 1).map((question, i) => ({
    question,
    answer: answerFor(question, i),
  }));
  const question = QUESTIONS[n - 1] ?? QUESTIONS[0] ?? '';
  const request: PlanRequest = { question, pool: pool(), mode, maxSteps: 5, maxDepth: 2 };
  if (conversation.length > 0) request.conversation = conversation;
  return countTokens(qwen3ChatText(planPrompt(request).messages));
}

function threadPrompt(): BenchResult {
  const first = turnPromptTokens(1);
  const tenth = turnPromptTokens(10);
  const second = turnPromptTokens(2);
  const router = turnPromptTokens(10, 'router') / turnPromptTokens(1, 'router');
  const earlier = QUESTIONS.slice(0, 9).reduce((n, q, i) => n + countTokens(`${q}\n${answerFor(q, i)}`), 0);
  return {
    value: round(tenth / first),
    goal: 1.25,
    unit: 'ratio',
    better: 'lower',
    notes:
      `conductor mode, 4 workers: turn 1 ${first} tokens, turn 2 ${second}, turn 10 ${tenth}` +
      ` (the 9 earlier turns hold ${earlier} tokens of questions and answers; the workers get them, the planner a` +
      ` compact view); router mode turn 10 ÷ turn 1 ${round(router)}`,
  };
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p16-thread-prompt',
    title: "P16: planner prompt tokens at a thread's turn 10 ÷ turn 1 (Qwen3 tokenizer, conductor mode)",
    run: async () => threadPrompt(),
  },
];
