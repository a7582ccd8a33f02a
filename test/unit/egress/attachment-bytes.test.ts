/**
 * The ledger records how many of a request's bytes are attachments: the transport declares them in the
 * request's EgressContext, egress writes them into the request's entry beside `bytesOut`.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { type Ledger, openLedger } from '../../../src/egress/ledger.ts';
import type { PartsMessage } from '../../../src/shared/chat.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { writePng } from '../../fixtures/png-writer.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { IMAGE_MODELS, startProvider, type TestProvider } from '../../provider/server.ts';

const PNG_BASE64 = Buffer.from(writePng(120, 80)).toString('base64');
const REPORT = '<file name="report.md" type="markdown">\n# Q3\nUp 4 %, café sales first.\n</file>\n';

let provider: TestProvider;
let ledger: Ledger;
beforeAll(async () => {
  provider = await startProvider({ models: [...IMAGE_MODELS] });
  ledger = await openLedger('ledger-attachment-bytes');
});
afterAll(async () => {
  ledger.close();
  await provider.close();
});

const noKeys = { keyFor: async () => undefined, keysNotBoundTo: async () => [] };

async function send(runId: string, messages: PartsMessage[]): Promise<void> {
  const egress = createEgress({ vault: noKeys, ledger });
  // vLLM's preset: a local server needs no key, and its base URL may be the test provider's.
  const worker: WorkerSpec = workerSpec({
    id: 'w1',
    label: 'Local vision',
    providerId: 'vllm',
    baseURL: provider.baseURL,
    model: 'images',
    maxConcurrency: 1,
    vision: true,
  });
  const stream = chatTransports(egress)(worker).stream(worker, {
    messages,
    signal: new AbortController().signal,
    runId,
    stepIndex: 2,
  });
  for await (const _ of stream) {
    // the answer is not what is checked here
  }
  await egress.idle();
}

describe('the ledger entry of a request with attachments', () => {
  it("records the attachments' bytes as they went in the body, part of bytesOut", async () => {
    await send('run-files', [
      {
        role: 'user',
        content: [
          { type: 'text', text: REPORT, attachment: 'md-hash' },
          { type: 'image', mediaType: 'image/png', data: PNG_BASE64, attachment: 'png-hash' },
          { type: 'text', text: 'Summarise both.' },
        ],
      },
    ]);
    const [entry] = await ledger.list({ runId: 'run-files' });
    expect(entry?.attachmentBytes).toBe(PNG_BASE64.length + Buffer.byteLength(REPORT));
    expect(entry?.bytesOut).toBeGreaterThan(entry?.attachmentBytes ?? Number.POSITIVE_INFINITY);
    expect(entry?.state).toBe('done');
    const csv = await ledger.exportCSV();
    const [header, ...rows] = csv.split('\r\n');
    const column = header?.split(',').indexOf('attachmentBytes') ?? -1;
    expect(column).toBeGreaterThan(-1);
    expect(rows.some((row) => row.split(',')[column] === String(entry?.attachmentBytes))).toBe(true);
  });

  it('has no attachmentBytes when the request carried none', async () => {
    await send('run-plain', [{ role: 'user', content: 'No files today.' }]);
    const [entry] = await ledger.list({ runId: 'run-plain' });
    expect(entry?.state).toBe('done');
    expect(entry).not.toHaveProperty('attachmentBytes');
  });
});
