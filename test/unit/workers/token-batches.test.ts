import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConductorEvent } from '../../../src/shared/conductor-api.ts';
import { batchTokens } from '../../../workers/token-batches.ts';

const STEP: ConductorEvent = {
  kind: 'step',
  index: 0,
  step: { worker: 'a', task: 'x', sees: [] },
  attempt: 1,
} as ConductorEvent;
const STATS: ConductorEvent = { kind: 'stats', stats: { promptTokens: 1, completionTokens: 4, ms: 1 } };

describe('batchTokens', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorder() {
    const events: ConductorEvent[] = [];
    return { events, deliver: batchTokens((event) => events.push(event), 16) };
  }

  it('sends the first token at once and the ones within a window together', () => {
    const { events, deliver } = recorder();
    deliver({ kind: 'token', text: '{"' });
    expect(events).toEqual([{ kind: 'token', text: '{"' }]);
    deliver({ kind: 'token', text: 'st' });
    deliver({ kind: 'token', text: 'eps' });
    expect(events).toHaveLength(1);
    vi.advanceTimersByTime(16);
    expect(events).toEqual([
      { kind: 'token', text: '{"' },
      { kind: 'token', text: 'steps' },
    ]);
  });

  it('sends the tokens held before any other event, so the page reads them in order', () => {
    const { events, deliver } = recorder();
    deliver({ kind: 'token', text: 'a' });
    deliver({ kind: 'token', text: 'b' });
    deliver(STEP);
    deliver({ kind: 'token', text: 'c' });
    deliver(STATS);
    expect(events.map((e) => (e.kind === 'token' ? e.text : e.kind))).toEqual([
      'a',
      'b',
      'step',
      'c',
      'stats',
    ]);
    // Nothing is left to arrive after the last event.
    vi.advanceTimersByTime(100);
    expect(events.at(-1)).toBe(STATS);
  });

  it('loses no text over many tokens', () => {
    const { events, deliver } = recorder();
    let written = '';
    for (let i = 0; i < 500; i++) {
      const text = String.fromCharCode(97 + (i % 26));
      written += text;
      deliver({ kind: 'token', text });
      if (i % 7 === 0) vi.advanceTimersByTime(5);
    }
    deliver(STATS);
    const tokens = events.filter((e) => e.kind === 'token');
    expect(tokens.map((e) => (e.kind === 'token' ? e.text : '')).join('')).toBe(written);
    expect(tokens.length).toBeLessThan(500 / 5);
  });

  it('returns what the listener returns for the last event, so the thread can await the page', async () => {
    const deliver = batchTokens((event) => (event.kind === 'stats' ? Promise.resolve('seen') : undefined));
    deliver({ kind: 'token', text: 'a' });
    await expect(deliver(STATS)).resolves.toBe('seen');
  });
});
