import { describe, expect, it } from 'vitest';
import { answerChunks, type StreamSeen } from '../../../src/providers/answer-response.ts';

/** A response whose body arrives in `pieces`, one read each, with the given content type. */
function streamed(pieces: string[], type = 'text/event-stream'): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': type } });
}

async function read(response: Response): Promise<{ chunks: unknown[]; seen: StreamSeen }> {
  const seen: StreamSeen = { done: false };
  const chunks: unknown[] = [];
  for await (const batch of answerChunks(response, seen)) chunks.push(...batch);
  return { chunks, seen };
}

// The event stream format: https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream
describe('answerChunks reads an event stream as the SDK does', () => {
  it('events split anywhere across reads, with CRLF, CR or LF line ends, comments and multi-line data', async () => {
    const { chunks, seen } = await read(
      streamed([
        ': keep-alive\r\n\r\ndata: {"n"',
        ':1}\r',
        '\n\r\ndata: {"n":2}\r\rdata: {"n":\ndata: 3}\n\n',
        'data: [DONE]\n\n',
      ]),
    );
    expect(chunks).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(seen.done).toBe(true);
  });

  it('an event the stream ends inside is not read as a chunk, but an unterminated [DONE] still ends it', async () => {
    const cut = await read(streamed(['data: {"n":1}\n\n', 'data: {"n":2}']));
    expect(cut.chunks).toEqual([{ n: 1 }]);
    expect(cut.seen.done).toBe(false);
    const done = await read(streamed(['data: {"n":1}\n\n', 'data: [DONE]']));
    expect(done.chunks).toEqual([{ n: 1 }]);
    expect(done.seen.done).toBe(true);
  });

  it('nothing after [DONE] is read as a chunk', async () => {
    const { chunks } = await read(streamed(['data: {"n":1}\n\ndata: [DONE]\n\ndata: {"n":2}\n\n']));
    expect(chunks).toEqual([{ n: 1 }]);
  });

  it('an error event is thrown after the chunks before it are given', async () => {
    const seen: StreamSeen = { done: false };
    const chunks: unknown[] = [];
    const reading = (async () => {
      for await (const batch of answerChunks(
        streamed(['data: {"n":1}\n\ndata: {"error":{"message":"overloaded"}}\n\n']),
        seen,
      ))
        chunks.push(...batch);
    })();
    await expect(reading).rejects.toThrow(/overloaded/);
    expect(chunks).toEqual([{ n: 1 }]);
  });
});
