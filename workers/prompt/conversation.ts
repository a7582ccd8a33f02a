import type { ConversationTurn } from '../../src/shared/conductor-api.ts';
import { truncateMiddle } from '../../src/shared/truncate-middle.ts';
import { fenceData } from './data-fence.ts';

/**
 * A follow-up's conversation as the planner reads it. Every token here is prefilled on the device before
 * planning starts, so the budget is fixed, whatever the thread's length: the planner needs to know what
 * "it" and "shorter" refer to, not the whole answers (the workers get those, src/executor/turn-history.ts).
 */

/** Characters of the conversation block in all, its header aside: about 100 tokens. */
export const CONVERSATION_BUDGET_CHARS = 400;
/** A question up to this long is shown whole; a longer one is cut in the middle. */
const WHOLE_QUESTION_CHARS = 140;
/** Most characters of one earlier answer (cut in the middle, as truncateMiddle does). */
const ANSWER_CHARS = 180;
/** What the data fence adds around an answer. */
const FENCE_CHARS = fenceData('').length;
/** Less room than this for an answer: the turn is not shown (an older turn gives way first). */
const SMALLEST_ANSWER_CHARS = 60;

/**
 * The earlier turns, newest kept first, oldest dropped first, each as `Q:` (whole if short) and `A:` (cut
 * in the middle), then the new question. Plain ASCII of our own: the tiny test model takes nothing else.
 */
export function conversationMessage(
  turns: readonly ConversationTurn[],
  question: string,
  budget = CONVERSATION_BUDGET_CHARS,
): string {
  const blocks: string[] = [];
  let left = budget;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as ConversationTurn;
    const q = `Q: ${truncateMiddle(turn.question.trim(), WHOLE_QUESTION_CHARS)}`;
    const room = Math.min(ANSWER_CHARS, left - q.length - 4 - FENCE_CHARS);
    if (room < SMALLEST_ANSWER_CHARS) break;
    // An answer is a model's text (which may quote a file or a page): fenced as data.
    const answer = turn.answer?.trim() ? fenceData(truncateMiddle(turn.answer.trim(), room)) : '(no answer)';
    const block = `${q}\nA: ${answer}`;
    blocks.unshift(block);
    left -= block.length + 1;
  }
  if (blocks.length === 0) return question;
  const dropped = turns.length - blocks.length;
  const header = `Earlier in this conversation${dropped > 0 ? ` (${dropped} older turns not shown)` : ''}; workers see these turns too:`;
  return `${header}\n${blocks.join('\n')}\n\nNew question: ${question}`;
}
