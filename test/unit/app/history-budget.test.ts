import { describe, expect, it } from 'vitest';
import {
  HISTORY_MAX_AUTO_TOKENS,
  HISTORY_UNKNOWN_WINDOW_TOKENS,
  historyBudget,
  readHistoryPrefs,
} from '../../../src/app/history-budget.ts';

describe('the history budget of a follow-up step', () => {
  it("is a share of the worker's context window when the catalog knows it, capped", () => {
    // Qwen2.5 Coder 32B on Together: 32,768 tokens, an eighth of it.
    expect(historyBudget({ model: 'Qwen/Qwen2.5-Coder-32B-Instruct' }, { tokens: null })).toBe(4_096);
    // GPT-5's 400,000: an eighth would be 50,000 a step; the cap holds it.
    expect(historyBudget({ model: 'gpt-5' }, { tokens: null })).toBe(HISTORY_MAX_AUTO_TOKENS);
    expect(historyBudget({ model: 'my-local-model' }, { tokens: null })).toBe(HISTORY_UNKNOWN_WINDOW_TOKENS);
  });

  it("is the user's number when set, for every worker", () => {
    expect(historyBudget({ model: 'gpt-5' }, { tokens: 1_000 })).toBe(1_000);
    expect(historyBudget({ model: 'unknown' }, { tokens: 0 })).toBe(0);
  });

  it('reads a stored setting, and anything odd as automatic', () => {
    expect(readHistoryPrefs('{"tokens":2000}')).toEqual({ tokens: 2000 });
    expect(readHistoryPrefs('{"tokens":null}')).toEqual({ tokens: null });
    expect(readHistoryPrefs('{"tokens":-5}')).toEqual({ tokens: null });
    expect(readHistoryPrefs('{"tokens":1.5}')).toEqual({ tokens: null });
    expect(readHistoryPrefs('not json')).toEqual({ tokens: null });
    expect(readHistoryPrefs(null)).toEqual({ tokens: null });
  });
});
