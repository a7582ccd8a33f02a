import { describe, expect, it } from 'vitest';
import { createChannel } from '../../../src/shared/async-channel.ts';

async function readAll<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe('createChannel', () => {
  it('yields what was pushed before and after the reader started, in order, until closed', async () => {
    const channel = createChannel<number>();
    channel.push(1);
    const reading = readAll(channel);
    await Promise.resolve();
    channel.push(2);
    channel.push(3);
    channel.close();
    channel.push(4);
    expect(await reading).toEqual([1, 2, 3]);
    expect(channel.closed).toBe(true);
  });

  it('wakes a waiting reader on close with nothing pushed', async () => {
    const channel = createChannel<string>();
    const reading = readAll(channel);
    await Promise.resolve();
    channel.close();
    expect(await reading).toEqual([]);
  });

  it('drops what is pushed after the reader leaves', async () => {
    const channel = createChannel<number>();
    channel.push(1);
    channel.push(2);
    for await (const item of channel) {
      expect(item).toBe(1);
      break;
    }
    expect(channel.closed).toBe(true);
    channel.push(3);
    expect(await readAll(channel)).toEqual([]);
  });
});
