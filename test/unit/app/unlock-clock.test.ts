import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unlockingFirst } from '../../../src/app/vault-unlock.ts';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { openVault } from '../../../src/vault/vault.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

// A streamed plan's step asks for the passphrase as it is sent (unlockingFirst): the time the user takes
// to type it is theirs, not the provider's, so it counts toward neither the first-token timeout (which
// would call the provider stalled and try again, asking again) nor the step's time limit.

const FIRST_TOKEN_MS = 1_500;
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

describe('the passphrase asked for as a step is sent', () => {
  it('is off the step’s clocks: typed after the first-token timeout, the step is answered on its first attempt', async () => {
    const vault = await openVault('unlock-clock-vault');
    const ledger = await openLedger('unlock-clock-ledger');
    const egress = createEgress({ vault, ledger });
    let asked = 0;
    const transport = unlockingFirst(chatTransports(egress), async () => {
      asked++;
      await new Promise((resolve) => setTimeout(resolve, FIRST_TOKEN_MS + 300));
      return true;
    });
    const handle = startRun({
      question: 'Say hello.',
      pool: [workerSpec({ id: 'w', baseURL: provider.baseURL, model: 'echo' })],
      transport,
      firstTokenTimeoutMs: FIRST_TOKEN_MS,
      stepTimeoutMs: FIRST_TOKEN_MS,
      plan: { steps: [{ worker: 'w', task: 'Say hello.', sees: [] }] },
    });
    const result = await handle.result;
    expect(result.steps[0]?.error).toBeUndefined();
    expect(result.steps[0]?.state).toBe('done');
    expect(result.steps[0]?.attempts).toBe(1);
    expect(asked).toBe(1);
  });
});
