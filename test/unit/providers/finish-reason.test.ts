import { describe, expect, it } from 'vitest';
import { createAnthropicTransport } from '../../../src/providers/anthropic-transport.ts';
import { cutAtOutputLimit } from '../../../src/providers/finish-reason.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { ChatEvent, ChatTransport } from '../../../src/providers/transport.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { useDialectProviders } from '../../provider/dialect-providers.ts';
import { DIALECT_MODES, type DialectMode } from '../../provider/dialects/index.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import type { ScriptedModel } from '../../provider/server.ts';

// Why an answer ended, as each transport reports it, against the test provider over HTTP speaking each
// provider's dialect: a model whose own output limit cuts its answer ends with that dialect's length reason
// (test/provider/dialects/: OpenAI `length`, Anthropic `max_tokens`, ...), read as a cut answer; a whole
// answer ends with `stop` / `end_turn`, read as whole.

const TEXT = 'one two three four five six seven eight';
const MODELS: ScriptedModel[] = [
  { id: 'whole', behaviour: { kind: 'fixed', text: TEXT } },
  { id: 'capped', behaviour: { kind: 'fixed', text: TEXT }, outputLimit: { tokens: 3 } },
  // Mistral's reason when the context window, not max_tokens, ran out.
  {
    id: 'window',
    behaviour: { kind: 'fixed', text: TEXT },
    outputLimit: { tokens: 3, reason: 'model_length' },
  },
  // Gemini's own word, as a gateway that does not translate it passes it on.
  {
    id: 'gemini-native',
    behaviour: { kind: 'fixed', text: TEXT },
    outputLimit: { tokens: 3, reason: 'MAX_TOKENS' },
  },
];

const at = useDialectProviders(DIALECT_MODES, { models: MODELS });

async function collect(transport: ChatTransport, providerId: string, baseURL: string, model: string) {
  const events: ChatEvent[] = [];
  const worker = workerSpec({ id: 'w1', label: 'W1', providerId, baseURL, model });
  const request = {
    messages: [{ role: 'user' as const, content: 'Count.' }],
    signal: new AbortController().signal,
    runId: 'r1',
    stepIndex: 0,
  };
  for await (const event of transport.stream(worker, request)) events.push(event);
  return events;
}
const openai = createOpenAITransport({ fetch: directFetch });
const answer = (events: ChatEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
const finishes = (events: ChatEvent[]) => events.filter((e) => e.type === 'finish');

describe('why an answer ended', () => {
  it.each(DIALECT_MODES)(
    '%s: an answer cut at the output limit says so, a whole one does not',
    async (mode: DialectMode) => {
      const cut = await collect(openai, mode, at(mode).baseURL, 'capped');
      expect(answer(cut)).toBe('one two three');
      expect(finishes(cut)).toEqual([{ type: 'finish', reason: 'length', cut: true }]);
      // Last: the executor knows the answer is whole once it has it.
      expect(cut.at(-1)?.type).toBe('finish');

      const whole = await collect(openai, mode, at(mode).baseURL, 'whole');
      expect(answer(whole)).toBe(TEXT);
      expect(finishes(whole)).toEqual([{ type: 'finish', reason: 'stop', cut: false }]);
    },
  );

  it("mistral: `model_length` (the context window) is a cut too; so is Gemini's own MAX_TOKENS passed through", async () => {
    const window = await collect(openai, 'mistral', at('mistral').baseURL, 'window');
    expect(finishes(window)).toEqual([{ type: 'finish', reason: 'model_length', cut: true }]);
    const native = await collect(openai, 'gemini', at('gemini').baseURL, 'gemini-native');
    expect(finishes(native)).toEqual([{ type: 'finish', reason: 'MAX_TOKENS', cut: true }]);
  });

  it('anthropic: `stop_reason: "max_tokens"` is a cut, `end_turn` is not', async () => {
    const anthropic = createAnthropicTransport({ fetch: directFetch });
    const { baseURL } = at('openai');
    const cut = await collect(anthropic, 'anthropic', baseURL, 'capped');
    expect(answer(cut)).toBe('one two three');
    expect(finishes(cut)).toEqual([{ type: 'finish', reason: 'max_tokens', cut: true }]);
    const whole = await collect(anthropic, 'anthropic', baseURL, 'whole');
    expect(finishes(whole)).toEqual([{ type: 'finish', reason: 'end_turn', cut: false }]);
  });

  it('reads no other reason as a cut', () => {
    for (const reason of ['stop', 'end_turn', 'content_filter', 'tool_calls', 'refusal', 'STOP', 'SAFETY'])
      expect(cutAtOutputLimit(reason)).toBe(false);
    for (const reason of [
      'length',
      'model_length',
      'max_tokens',
      'MAX_TOKENS',
      'model_context_window_exceeded',
    ])
      expect(cutAtOutputLimit(reason)).toBe(true);
  });
});
