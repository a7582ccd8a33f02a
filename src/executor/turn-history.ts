import type { SentTurn, StepHistory } from '../records/run-types.ts';
import type { PastTurn } from '../records/thread-store.ts';
import type { ChatMessage } from '../shared/chat.ts';
import { estimateTokens } from '../shared/token-estimate.ts';
import { truncateMiddle } from '../shared/truncate-middle.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { TurnRanking } from './turn-relevance.ts';

/**
 * What a step of a follow-up is told of its thread: the earlier turns' questions and final answers, as
 * chat turns before the question, the newest and those most relevant to the question kept first within the
 * worker's budget (turn-relevance.ts). Reasoning, steps and plans of earlier turns are never sent: a worker
 * sees what the user saw.
 */

/** The earlier turns of a run's thread, oldest first, and each worker's history budget in tokens. */
export interface TurnHistory {
  turns: readonly PastTurn[];
  budgetFor(worker: WorkerSpec): number;
  /**
   * The turns ranked for the new question (turn-relevance.ts), when read with it: the estimate then counts
   * the turns the run will send, not the newest.
   */
  ranking?: TurnRanking;
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
 * The turns as user/assistant pairs, in the thread's order, within `budgetTokens`, offered in `ranking`'s
 * order (without one: newest first). The newest goes first: whole when it fits, else alone with its answer
 * cut in the middle. Then the turns matching the question, best first, each while it fits (one that does
 * not is passed over for the next); then the rest, newest first, until one does not fit: among those, an
 * older turn is never sent when a newer one was not. One pass, each turn counted once: O(n).
 */
export function fitHistory(
  turns: readonly PastTurn[],
  budgetTokens: number,
  count: (text: string) => number = estimateTokens,
  ranking?: TurnRanking,
): FittedHistory {
  const answered = turns.flatMap((t, i) => (t.answer !== undefined && t.answer.trim() !== '' ? [i] : []));
  if (answered.length === 0) return { messages: [] };
  const order = ranking?.order ?? [...answered].reverse();
  const matched = ranking?.matched ?? new Map<number, readonly string[]>();
  const budget = Math.max(0, Math.floor(budgetTokens));
  const kept = new Map<number, { question: string; answer: string }>();
  let used = 0;
  let shortened = false;
  for (const i of order) {
    const turn = turns[i] as PastTurn & { answer: string };
    const questionTokens = count(turn.question) + TOKENS_PER_MESSAGE;
    const answerTokens = count(turn.answer) + TOKENS_PER_MESSAGE;
    if (used + questionTokens + answerTokens <= budget) {
      kept.set(i, turn);
      used += questionTokens + answerTokens;
      continue;
    }
    if (kept.size === 0) {
      // The newest: alone, cut to fit, or nothing at all.
      const room = budget - questionTokens - TOKENS_PER_MESSAGE;
      if (room < SMALLEST_SHORTENED_ANSWER) break;
      const answer = shortenTo(turn.answer, room, count);
      kept.set(i, { question: turn.question, answer });
      used += questionTokens + count(answer) + TOKENS_PER_MESSAGE;
      shortened = true;
      break;
    }
    if (!matched.has(i)) break;
  }
  const newest = answered.at(-1) as number;
  const sent = [...kept.keys()].sort((a, b) => a - b);
  const history: StepHistory = {
    kept: kept.size,
    cut: answered.length - kept.size,
    budgetTokens: budget,
    tokens: used,
    turns: sent.map((i) => sentTurn(turns[i] as PastTurn, i, i === newest, matched.get(i))),
  };
  if (shortened) history.shortened = true;
  const messages = sent.flatMap((i) => {
    const turn = kept.get(i) as { question: string; answer: string };
    return pair(turn.question, turn.answer);
  });
  return { messages, history };
}

function sentTurn(turn: PastTurn, index: number, newest: boolean, terms?: readonly string[]): SentTurn {
  // A turn read from the store knows its number; one made up (a test, an estimate) counts from the start.
  const number = turn.turn ?? index;
  if (newest) return { turn: number, why: 'newest' };
  if (terms) return { turn: number, why: 'matched', terms: [...terms] };
  return { turn: number, why: 'recent' };
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

/**
 * Which turns went and why, as the step card says it: "turns 3 (matched 'termination'), 11 (recent), 12
 * (newest)", neighbours with the same reason named together; undefined for a record that does not say.
 */
export function sentTurnsText(history: StepHistory | undefined): string | undefined {
  const turns = history?.turns;
  if (!turns || turns.length === 0) return undefined;
  const groups: { numbers: number[]; why: string }[] = [];
  for (const sent of turns) {
    const why =
      sent.why === 'matched' ? `matched ${(sent.terms ?? []).map((t) => `'${t}'`).join(', ')}` : sent.why;
    const last = groups.at(-1);
    if (last && last.why === why) last.numbers.push(sent.turn + 1);
    else groups.push({ numbers: [sent.turn + 1], why });
  }
  const listed = groups.map((g) => `${g.numbers.join(', ')} (${g.why})`).join(', ');
  return `${turns.length === 1 ? 'turn' : 'turns'} ${listed}`;
}

/** What the step card says when turns were cut; undefined when nothing was. */
export function historyCutText(history: StepHistory | undefined): string | undefined {
  if (!history || (history.cut === 0 && !history.shortened)) return undefined;
  const parts: string[] = [];
  if (history.cut > 0) {
    const which = history.turns?.some((t) => t.why === 'matched')
      ? 'older, and less related to the question'
      : 'the oldest';
    parts.push(`${history.cut} earlier turn${history.cut === 1 ? ' was' : 's were'} left out (${which})`);
  }
  if (history.shortened) parts.push("the last turn's answer was cut in the middle");
  const said = parts.join(' and ');
  return `${said[0]?.toUpperCase()}${said.slice(1)}: this worker's history is limited to ${history.budgetTokens.toLocaleString('en-US')} tokens (Settings → Planning).`;
}
