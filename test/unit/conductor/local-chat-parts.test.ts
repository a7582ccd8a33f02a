/**
 * The on-device `local` worker reads text: it gets a turn's parts as their text (a file's text kept), and
 * an image is refused before the thread is asked anything.
 */
import { describe, expect, it } from 'vitest';
import { LocalChatTransport } from '../../../src/conductor/bridge.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import type { ChatMessage, PartsMessage } from '../../../src/shared/chat.ts';
import type { LocalChatRequest, LocalChatResponse } from '../../../src/shared/conductor-api.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const local: WorkerSpec = workerSpec({
  id: 'local',
  label: 'On this device',
  providerId: 'local',
  baseURL: '',
  model: 'tiny',
  maxConcurrency: 1,
});

/** A thread that answers "ok" and remembers what it was asked. */
function thread(seen: ChatMessage[][]) {
  return {
    async chat(request: LocalChatRequest): Promise<LocalChatResponse> {
      seen.push(request.messages);
      return { text: 'ok', stats: { promptTokens: 3, completionTokens: 1 } } as LocalChatResponse;
    },
  };
}

async function run(transport: LocalChatTransport, messages: PartsMessage[]) {
  for await (const _ of transport.stream(local, {
    messages,
    signal: new AbortController().signal,
    runId: 'r',
    stepIndex: 0,
  })) {
    // drained
  }
}

describe('LocalChatTransport', () => {
  it("gives the thread a turn's parts as one text, an attached file's text included", async () => {
    const seen: ChatMessage[][] = [];
    await run(new LocalChatTransport(thread(seen)), [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<file name="a.txt" type="text">\nhi\n</file>\n', attachment: 'h' },
          { type: 'text', text: 'Read it.' },
        ],
      },
    ]);
    expect(seen).toEqual([
      [{ role: 'user', content: '<file name="a.txt" type="text">\nhi\n</file>\nRead it.' }],
    ]);
  });

  it('refuses an image, and asks the thread nothing', async () => {
    const seen: ChatMessage[][] = [];
    const sending = run(new LocalChatTransport(thread(seen)), [
      { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] },
    ]);
    await expect(sending).rejects.toBeInstanceOf(ProviderError);
    await expect(sending).rejects.toThrow('reads text only');
    expect(seen).toEqual([]);
  });
});
