import type { StepHistory } from '../records/run-types.ts';
import type { PastTurn } from '../records/thread-store.ts';
import type { ChatMessage } from '../shared/chat.ts';
import { estimateTokens } from '../shared/token-estimate.ts';
import { truncateMiddle } from '../shared/truncate-middle.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/**
 * What a step of a follow-up is told of its thread: the earlier turns' questions and final answers, as
 * chat turns before the question, the newest kept first within the worker's budget. Reasoning, steps and
 * plans of earlier turns are never sent: a worker sees what the user saw.
 */

/** The earlier turns of a run's thread, oldest first, and each worker's history budget in tokens. */
export interface TurnHistory {
  turns: readonly PastTurn[];
  budgetFor(worker: WorkerSpec): number;
}

/** What a chat format adds per message (as `estimatePromptTokens` counts it). */
const TOKENS_PER_MESSAGE = 3;
/** Below this much room, a turn's answer is not worth cutting down to fit: the turn is left out. */
const SMALLEST_SHORTENED_ANSWER = 64;

export interface FittedHistory {
  messages: ChatMessage[];
  /** Said on the step card and stored with the step; undefined when there were no earlier turns. */
  history?: StepHistory;
}

/**
 * The turns as user/assistant pairs, oldest first, within `budgetTokens`: from the newest back, each turn
 * whole while it fits; the newest alone, when it does not fit, with its answer cut in the middle; the rest
 * (the oldest) left out. A gap is never made: an older turn is not sent when a newer one was not.
 */
export function fitHistory(
  turns: readonly PastTurn[],
  budgetTokens: number,
  count: (text: string) => number = estimateTokens,
): FittedHistory {
  const answered = turns.filter(
    (t): t is PastTurn & { answer: string } => t.answer !== undefined && t.answer.trim() !== '',
  );
  if (answered.length === 0) return { messages: [] };
  const budget = Math.max(0, Math.floor(budgetTokens));
  const pairs: ChatMessage[][] = [];
  let used = 0;
  let shortened = false;
  for (let i = answered.length - 1; i >= 0; i--) {
    const turn = answered[i] as PastTurn & { answer: string };
    const questionTokens = count(turn.question) + TOKENS_PER_MESSAGE;
    const answerTokens = count(turn.answer) + TOKENS_PER_MESSAGE;
    if (used + questionTokens + answerTokens <= budget) {
      pairs.unshift(pair(turn.question, turn.answer));
      used += questionTokens + answerTokens;
      continue;
    }
    const room = budget - used - questionTokens - TOKENS_PER_MESSAGE;
    if (pairs.length === 0 && room >= SMALLEST_SHORTENED_ANSWER) {
      const answer = shortenTo(turn.answer, room, count);
      pairs.unshift(pair(turn.question, answer));
      used += questionTokens + count(answer) + TOKENS_PER_MESSAGE;
      shortened = true;
    }
    break;
  }
  const history: StepHistory = {
    kept: pairs.length,
    cut: answered.length - pairs.length,
    budgetTokens: budget,
    tokens: used,
  };
  if (shortened) history.shortened = true;
  return { messages: pairs.flat(), history };
}

function pair(question: string, answer: string): ChatMessage[] {
  return [
    { role: 'user', content: question },
    { role: 'assistant', content: answer },
  ];
}

/** `text` cut in the middle until it counts at most `tokens`. */
function shortenTo(text: string, tokens: number, count: (text: string) => number): string {
  let chars = Math.min(text.length, tokens * 4);
  let cut = truncateMiddle(text, chars);
  // A text denser than 4 characters a token: shorten again, in proportion, until it fits.
  for (let tries = 0; count(cut) > tokens && tries < 8; tries++) {
    chars = Math.floor((chars * tokens) / Math.max(1, count(cut))) - 8;
    cut = truncateMiddle(text, Math.max(0, chars));
  }
  return cut;
}

/** What the step card says when turns were cut; undefined when nothing was. */
export function historyCutText(history: StepHistory | undefined): string | undefined {
  if (!history || (history.cut === 0 && !history.shortened)) return undefined;
  const parts: string[] = [];
  if (history.cut > 0) {
    parts.push(`${history.cut} earlier turn${history.cut === 1 ? ' was' : 's were'} left out (the oldest)`);
  }
  if (history.shortened) parts.push("the last turn's answer was cut in the middle");
  const said = parts.join(' and ');
  return `${said[0]?.toUpperCase()}${said.slice(1)}: this worker's history is limited to ${history.budgetTokens.toLocaleString('en-US')} tokens (Settings → Planning).`;
}
