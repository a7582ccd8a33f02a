import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../../src/egress/ledger.ts';
import {
  countedResponse,
  EntryWriter,
  errorText,
  hasNoBody,
  purposeOf,
  sizedBody,
  UsageSniffer,
} from '../../../src/egress/metering.ts';

const encoder = new TextEncoder();

function entry(): LedgerEntry {
  return {
    id: 1,
    time: 0,
    purpose: 'chat',
    providerId: 'custom',
    host: 'h.example',
    method: 'POST',
    path: '/v1/chat/completions',
    sent: true,
    keyAttached: true,
    state: 'pending',
    bytesOut: 10,
    bytesIn: 0,
  };
}

/** A ledger that keeps every update it is given, in order. */
function recorder() {
  const updates: LedgerEntry[] = [];
  return { updates, ledger: { update: async (e: LedgerEntry) => void updates.push(e) } };
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('egress metering', () => {
  it('names what a request is for from its path', () => {
    expect(purposeOf('/v1/chat/completions')).toBe('chat');
    expect(purposeOf('/v1/models')).toBe('models');
    expect(purposeOf('/v1/embeddings')).toBe('other');
  });

  it('sizes every kind of body in bytes, as sent', async () => {
    const headers = new Headers();
    expect(await sizedBody('http://h/x', 'POST', 'héllo', headers)).toEqual({ body: 'héllo', bytes: 6 });
    expect((await sizedBody('http://h/x', 'POST', new Uint8Array(7), headers)).bytes).toBe(7);
    expect((await sizedBody('http://h/x', 'POST', new URLSearchParams({ a: 'b c' }), headers)).bytes).toBe(5);
    expect(headers.get('content-type')).toContain('application/x-www-form-urlencoded');
    const form = new FormData();
    form.set('f', 'v');
    const sized = await sizedBody('http://h/x', 'POST', form, new Headers());
    expect(sized.bytes).toBe((sized.body as ArrayBuffer).byteLength);
    expect(await sizedBody('http://h/x', 'GET', undefined, new Headers())).toEqual({
      body: undefined,
      bytes: 0,
    });
  });

  it('reads usage from the last SSE chunk and from a JSON body, split anywhere', () => {
    const sse = new UsageSniffer(true);
    const text =
      'data: {"choices":[],"usage":null}\n\ndata: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}\n\ndata: [DONE]\n';
    for (let i = 0; i < text.length; i += 7) sse.push(encoder.encode(text.slice(i, i + 7)));
    sse.end();
    expect([sse.promptTokens, sse.completionTokens]).toEqual([3, 5]);
    const json = new UsageSniffer(false);
    json.push(encoder.encode('{"usage":{"input_tokens":2,'));
    json.push(encoder.encode('"output_tokens":4}}'));
    json.end();
    expect([json.promptTokens, json.completionTokens]).toEqual([2, 4]);
  });

  it('writes ledger changes in order, and a failed write does not reach the request', async () => {
    const { updates, ledger } = recorder();
    let fail = true;
    const writer = new EntryWriter(
      {
        update: async (e) => {
          if (fail) {
            fail = false;
            throw new Error('quota');
          }
          await ledger.update(e);
        },
      },
      entry(),
    );
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      void writer.write({ state: 'streaming' });
      await writer.write({ state: 'done', bytesIn: 4 });
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
    expect(updates.map((u) => [u.state, u.bytesIn])).toEqual([['done', 4]]);
  });

  it('counts bytes and tokens as the body is read, and completes the entry before the reader sees the end', async () => {
    const { updates, ledger } = recorder();
    const chunks = [
      'data: {"choices":[{"delta":{"content":"hi"}}],"usage":null}\n\n',
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\ndata: [DONE]\n\n',
    ];
    const response = new Response(streamOf(chunks), { headers: { 'content-type': 'text/event-stream' } });
    const counted = countedResponse(response, {
      writer: new EntryWriter(ledger, entry()),
      started: Date.now(),
      key: undefined,
      answerSecrets: [],
    });
    expect(await counted.text()).toBe(chunks.join(''));
    expect(updates.at(-1)).toMatchObject({
      state: 'done',
      bytesIn: encoder.encode(chunks.join('')).byteLength,
      promptTokens: 1,
      completionTokens: 2,
    });
    expect(updates[0]?.state).toBe('streaming');
  });

  it("reads ahead of a slow reader: the entry's last write begins once the body is in, the end waits for it", async () => {
    const writes: LedgerEntry[] = [];
    let land!: () => void;
    const landed = new Promise<void>((resolve) => {
      land = resolve;
    });
    const ledger = {
      update: async (e: LedgerEntry) => {
        writes.push(e);
        if (e.state === 'done') await landed;
      },
    };
    const chunks = [
      'data: {"choices":[{"delta":{"content":"a"}}]}\n\n',
      'data: {"choices":[]}\n\n',
      'data: [DONE]\n\n',
    ];
    const counted = countedResponse(
      new Response(streamOf(chunks), { headers: { 'content-type': 'text/event-stream' } }),
      { writer: new EntryWriter(ledger, entry()), started: Date.now(), key: undefined, answerSecrets: [] },
    );
    const reader = counted.body!.getReader();
    // The reader takes one chunk and then stops, as a client busy with the event it was given.
    expect((await reader.read()).done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Read to its end meanwhile: the final write is on its way, with every byte counted.
    expect(writes.at(-1)).toMatchObject({
      state: 'done',
      bytesIn: encoder.encode(chunks.join('')).byteLength,
    });
    expect((await reader.read()).done).toBe(false);
    expect((await reader.read()).done).toBe(false);
    let ended = false;
    const end = reader.read().then((r) => {
      ended = r.done;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // ...but the reader is not told the body ended before the entry is complete.
    expect(ended).toBe(false);
    land();
    await end;
    expect(ended).toBe(true);
  });

  it('takes saved keys out of the answer, and records a cancel by the reader without the key', async () => {
    const key = 'sk-echoed-key-0123456789';
    const { updates, ledger } = recorder();
    const response = new Response(streamOf([`{"echo":"${key.slice(0, 9)}`, `${key.slice(9)}"}`]), {
      headers: { 'content-type': 'application/json' },
    });
    const counted = countedResponse(response, {
      writer: new EntryWriter(ledger, entry()),
      started: Date.now(),
      key,
      answerSecrets: [key],
    });
    const text = await counted.text();
    expect(text).not.toContain(key);
    expect(updates.at(-1)).toMatchObject({ state: 'done', answerKeysRemoved: 1 });

    const second = recorder();
    const open = new Response(new ReadableStream({ pull: () => new Promise(() => undefined) }));
    const reading = countedResponse(open, {
      writer: new EntryWriter(second.ledger, entry()),
      started: Date.now(),
      key,
      answerSecrets: [key],
    });
    await reading.body?.cancel(new Error(`gave up on ${key}`));
    expect(second.updates.at(-1)?.state).toBe('error');
    expect(second.updates.at(-1)?.error).toContain('Cancelled by the reader');
    expect(second.updates.at(-1)?.error).not.toContain(key);
    expect(errorText(new Error(`boom ${key}`), key)).not.toContain(key);
  });

  it('tells answers without a body to count', () => {
    expect(hasNoBody(new Response(null, { status: 204 }))).toBe(true);
    expect(hasNoBody(new Response('x', { status: 200 }))).toBe(false);
  });
});
