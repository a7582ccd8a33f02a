import type { ChatMessage } from '../shared/chat.ts';
import type { Step } from '../shared/plan/index.ts';
import { RUN_WORKER, SELF_WORKER } from '../shared/worker-ids.ts';
import { resolveSees } from './dag.ts';

export interface ContextInput {
  question: string;
  /** Send the user's question as the first user turn (default true). */
  includeQuestion?: boolean;
  /** The worker's system prompt, if it has one. */
  systemPrompt?: string;
  /** The thread's standing instructions, if it has them: after the worker's own system prompt. */
  instructions?: string;
  /** Every step of the workflow (global indices). */
  steps: readonly Step[];
  /** Answers by step index: the answer text only, never the model's reasoning (StepStatus.reasoning). */
  answers: readonly (string | undefined)[];
  /** The step the messages are for. */
  index: number;
  /** The thread's earlier turns as chat turns (src/executor/turn-history.ts), before this turn's question. */
  history?: readonly ChatMessage[];
}

/**
 * The messages for one step:
 *   [system: the worker's system prompt, then the thread's instructions, as one system message]
 *   in a follow-up, the thread's earlier turns that fit: user: a question / assistant: its final answer
 *   user: the question, word for word (so the worker reads it as the user wrote it)
 *   for each step it sees, in index order: user: that step's task / assistant: its answer
 *   user: its own task (last, so the instruction the worker must follow is the last thing it reads)
 * `self` steps and steps without an answer are left out: they have no (task, answer) pair to show.
 *
 * A `run` step runs the code of the answers it is given (src/executor/run-step.ts), so it is given only the
 * answers of the steps it sees that a model wrote, never another run step's answer: that is what code
 * printed, and a program's output must never become the next program.
 */
export function assembleMessages(input: ContextInput): ChatMessage[] {
  const step = input.steps[input.index];
  if (!step) throw new RangeError(`There is no step ${input.index}.`);
  const messages: ChatMessage[] = [];
  // One system message: some providers take only one, and each dialect places it (Anthropic's `system`).
  const system = [input.systemPrompt?.trim(), input.instructions?.trim()].filter(Boolean).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  if (input.history) messages.push(...input.history);
  if ((input.includeQuestion ?? true) && input.question.trim()) {
    messages.push({ role: 'user', content: input.question });
  }
  for (const seen of resolveSees(step.sees, input.index)) {
    const earlier = input.steps[seen];
    const answer = input.answers[seen];
    if (!earlier || earlier.worker === SELF_WORKER || answer === undefined) continue;
    if (step.worker === RUN_WORKER && earlier.worker === RUN_WORKER) continue;
    messages.push({ role: 'user', content: earlier.task });
    messages.push({ role: 'assistant', content: answer });
  }
  messages.push({ role: 'user', content: step.task });
  return messages;
}
