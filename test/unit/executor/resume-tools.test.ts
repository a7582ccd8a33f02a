import { describe, expect, it } from 'vitest';
import { sentPerStep } from '../../../src/executor/resume.ts';

describe("a step's tool calls on resume", () => {
  it('are not counted as requests of the step’s model (whose answers a reload would have lost)', async () => {
    const ledger = {
      list: async () => [
        { stepIndex: 0, sent: true, purpose: 'chat', state: 'done', bytesIn: 10 },
        { stepIndex: 0, sent: true, purpose: 'tool', state: 'done', bytesIn: 99 },
        { stepIndex: 1, sent: true, purpose: 'tool', state: 'done', bytesIn: 99 },
      ],
    };
    const sent = await sentPerStep(ledger, 'r');
    expect(sent.get(0)).toEqual([{ stepIndex: 0, sent: true, purpose: 'chat', state: 'done', bytesIn: 10 }]);
    expect(sent.has(1)).toBe(false);
  });
});
