import { describe, expect, it } from 'vitest';
import { CONVERSATION_BUDGET_CHARS, conversationMessage } from '../../../../workers/prompt/conversation.ts';
import { DATA_RULE } from '../../../../workers/prompt/data-fence.ts';
import { buildPlanMessages } from '../../../../workers/prompt/prompt.ts';

const long = (tag: string, n: number) => `${tag}-start ${'x'.repeat(n)} ${tag}-end`;

describe("the planner's view of a conversation", () => {
  it('is just the question on a first turn', () => {
    expect(conversationMessage([], 'Why is the sky blue?')).toBe('Why is the sky blue?');
  });

  it('shows short earlier questions whole and earlier answers cut in the middle, then the new question', () => {
    const text = conversationMessage(
      [{ question: 'Write a sort in Python.', answer: long('answer', 2000) }],
      'Now in Rust.',
    );
    expect(text).toContain('Q: Write a sort in Python.');
    expect(text).toMatch(
      /A: <data>answer-start x+ \[\.\.\. \d+ characters cut \.\.\.\] x+ answer-end<\/data>/,
    );
    expect(text.endsWith('\n\nNew question: Now in Rust.')).toBe(true);
    expect(text).toMatch(/^Earlier in this conversation; workers see these turns too:/);
  });

  it('keeps within a fixed budget however long the thread, dropping the oldest turns first', () => {
    const turns = Array.from({ length: 50 }, (_, i) => ({
      question: `Question number ${i}? ${long('q', i % 2 ? 500 : 10)}`,
      answer: long(`a${i}`, 3000),
    }));
    const text = conversationMessage(turns, 'And the last?');
    const block = text.slice(text.indexOf('\n') + 1, text.lastIndexOf('\n\nNew question:'));
    expect(block.length).toBeLessThanOrEqual(CONVERSATION_BUDGET_CHARS);
    // The newest turn is there; the oldest are not, and the header says how many were left out.
    expect(text).toContain('Question number 49?');
    expect(text).not.toContain('Question number 0?');
    const shown = (text.match(/^Q: /gm) ?? []).length;
    expect(text).toContain(`(${50 - shown} older turns not shown)`);
    // A long question is cut in the middle too, so one turn cannot take the whole budget.
    expect(text).toMatch(/Q: Question number 49\? q-start x+ \[\.\.\. \d+ characters cut/);
  });

  it('goes into the last user message of the plan prompt, after the few-shots', () => {
    const messages = buildPlanMessages({
      question: 'Shorter, please.',
      pool: [{ id: 'w1', label: 'One', strengths: 'general' }],
      mode: 'conductor',
      maxSteps: 3,
      maxDepth: 0,
      conversation: [{ question: 'Explain TCP.', answer: 'TCP is a transport protocol.' }],
    });
    const last = messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content).toContain('Q: Explain TCP.\nA: <data>TCP is a transport protocol.</data>');
    // The question last but for the rule that says what the fenced answers are.
    expect(last?.content.endsWith(`New question: Shorter, please.\n\n${DATA_RULE}`)).toBe(true);
    // The kept prefix (system prompt and few-shots) is the same as for a first question.
    const first = buildPlanMessages({
      question: 'Explain TCP.',
      pool: [{ id: 'w1', label: 'One', strengths: 'general' }],
      mode: 'conductor',
      maxSteps: 3,
      maxDepth: 0,
    });
    expect(messages.slice(0, -1)).toEqual(first.slice(0, -1));
  });
});
