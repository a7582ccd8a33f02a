import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attachmentText, base64Of } from '../../../src/attachments/parts.ts';
import { findCitations, sentPassages } from '../../../src/attachments/passage-cites.ts';
import { splitPassages } from '../../../src/attachments/passages.ts';
import type { ImageAttachment } from '../../../src/attachments/types.ts';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { inFlightSpend } from '../../../src/executor/spend.ts';
import { filesOfStep, promptTokensOf, sentFilesOf, withStepFiles } from '../../../src/executor/step-files.ts';
import { attachmentBytes } from '../../../src/shared/chat.ts';
import { estimateTokens, loadTokenizer } from '../../../src/shared/token-estimate.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { csvAttachment, pdfAttachment, pngAttachment } from '../../fixtures/attachments.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { IMAGE_MODELS, startProvider, type TestProvider } from '../../provider/server.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider({ models: [...IMAGE_MODELS], retryAfterMs: 1 });
});
beforeEach(() => provider.clearRequests());
afterAll(async () => {
  await provider.close();
});

function worker(id: string, label: string, model: string, vision = false): WorkerSpec {
  return workerSpec({
    id,
    label,
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 4,
    price: { inputPerM: 1, outputPerM: 1 },
    ...(vision ? { vision: true } : {}),
  });
}

const CSV_MARK = 'ZEBRA-LEDGER-7731';

async function filesAndEgress(name: string) {
  const csv = await csvAttachment('sales.csv', `region,amount\n${CSV_MARK},42\n`);
  const png = await pngAttachment('chart.png');
  const ledger = await openLedger(name);
  const egress = createEgress({
    vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [] },
    ledger,
  });
  return { csv, png, ledger, transport: chatTransports(egress), pngBase64: base64Of(png.image.bytes) };
}

/** The chat requests the provider received, each with its model and raw body. */
function chatRequests() {
  return provider.requests
    .filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'))
    .map((r) => ({ model: (r.body as { model: string }).model, body: JSON.stringify(r.body) }));
}

describe("a step's files go to that step alone", () => {
  it('sends a file given to step 1 only in step 1’s request: not in step 0’s nor step 2’s (provider log and ledger)', async () => {
    const { csv, png, ledger, transport, pngBase64 } = await filesAndEgress('step-files-only');
    const handle = startRun({
      question: 'What do the sales show?',
      pool: [
        worker('a', 'Writer', 'echo'),
        worker('b', 'Looker', 'images', true),
        worker('c', 'Checker', 'text-only'),
      ],
      transport,
      attachments: [csv, png],
      plan: {
        steps: [
          { worker: 'a', task: 'List what to look for.', sees: [] },
          { worker: 'b', task: 'Read the files.', sees: [0], files: [0, 1] },
          { worker: 'c', task: 'Sum up.', sees: [1] },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('done');

    const requests = chatRequests();
    expect(requests.map((r) => r.model)).toEqual(['echo', 'images', 'text-only']);
    const [step0, step1, step2] = requests.map((r) => r.body);
    // Step 1 got both files: the CSV's text in its message, the image as an image part the provider read.
    expect(step1).toContain(CSV_MARK);
    expect(step1).toContain(pngBase64);
    expect(step1).toContain('sales.csv');
    expect(result.steps[1]?.text).toMatch(/^1 image: png 64x48/);
    // Steps 0 and 2 got neither, nor even the files' names.
    for (const body of [step0, step2]) {
      expect(body).not.toContain(CSV_MARK);
      expect(body).not.toContain(pngBase64);
      expect(body).not.toContain('sales.csv');
      expect(body).not.toContain('chart.png');
    }

    // The ledger says the same: attachment bytes on step 1's request only, as many as its files.
    const entries = await ledger.list({ runId: result.runId });
    const byStep = new Map(entries.map((e) => [e.stepIndex, e.attachmentBytes]));
    const sent = attachmentBytes(withStepFiles([{ role: 'user', content: 'x' }], [csv, png]));
    expect(byStep.get(1)).toBe(sent);
    expect(byStep.get(0)).toBeUndefined();
    expect(byStep.get(2)).toBeUndefined();
  });

  it('refuses a plan that gives an image to a text-only worker before any request, naming the step and the worker', async () => {
    const { png, csv, ledger, transport } = await filesAndEgress('step-files-refused');
    const handle = startRun({
      question: 'What is in the picture?',
      pool: [worker('b', 'Looker', 'images', true), worker('c', 'Checker', 'text-only')],
      transport,
      attachments: [csv, png],
      plan: {
        steps: [
          { worker: 'b', task: 'Describe it.', sees: [], files: [1] },
          { worker: 'c', task: 'Check.', sees: [0], files: 'all' },
        ],
      },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.error).toContain('Step 1 gives "Checker" the image "chart.png"');
    expect(chatRequests()).toEqual([]);
    expect(await ledger.list({ runId: result.runId })).toEqual([]);
  });

  it('never hands an image step over to a text-only worker when its worker fails', async () => {
    const { png, transport } = await filesAndEgress('step-files-failover');
    const handle = startRun({
      question: 'What is in the picture?',
      pool: [worker('b', 'Looker', 'fault:503', true), worker('c', 'Checker', 'text-only')],
      transport,
      attachments: [png],
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      failover: {},
      plan: { steps: [{ worker: 'b', task: 'Describe it.', sees: [], files: 'all' }] },
    });
    const result = await handle.result;
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.error).toContain(
      'No other worker could take over: Checker: it takes no images, and the step sends one.',
    );
    expect(result.steps[0]?.takeovers).toBeUndefined();
    expect(chatRequests().map((r) => r.model)).not.toContain('text-only');
  });
});

describe('passages an answer can cite', () => {
  it('labels a step’s passages [1], [2], … on from file to file, as its record gives them again, and says how to cite them', async () => {
    const pdf = await pdfAttachment('contract.pdf', ['First page.', 'Second page.', 'Third page.']);
    const notes = await csvAttachment('notes.csv', 'a,b\n1,2\n3,4');
    const whole = await csvAttachment('whole.csv', 'c\n5');
    const [p1, , p3] = splitPassages(pdf);
    const files = [
      { attachment: pdf, passages: { passages: [p1!, p3!], total: 3 } },
      { attachment: whole },
      { attachment: notes, passages: { passages: splitPassages(notes), total: 1 } },
    ];
    const [message] = withStepFiles([{ role: 'user', content: 'Answer.' }], files);
    const text = ((message?.content ?? []) as { type: string; text?: string }[])
      .map((p) => p.text ?? '')
      .join('');
    expect(text).toContain('<passage cite="[1]" place="page 1">\nFirst page.');
    expect(text).toContain('<passage cite="[2]" place="page 3">\nThird page.');
    expect(text).toContain('<passage cite="[3]" place="rows 1-2">');
    expect(text).toContain('Cite a passage you use by its label, as [1], or by page, as [p. 1].');
    expect(text).toContain('Cite a passage you use by its label, as [3].');
    // The step's record (what the run view resolves an answer's citations against) gives the same labels.
    const sent = sentPassages([{ index: 0, sent: sentFilesOf(files) }]);
    expect(sent.map((p) => [p.label, p.place])).toEqual([
      [1, 'page 1'],
      [2, 'page 3'],
      [3, 'rows 1-2'],
    ]);
    for (const p of sent) expect(text).toContain(`<passage cite="[${p.label}]" place="${p.place}">`);
    // Each label in the message reads back as the citation of that label.
    const labels = [...text.matchAll(/cite="(\[\d+\])"/g)].map((m) => findCitations(m[1]!)[0]?.refs);
    expect(labels).toEqual([[{ label: 1 }], [{ label: 2 }], [{ label: 3 }]]);
  });
});

describe('what files cost', () => {
  it('counts a step’s text and image tokens in its estimate and in the spend of a request as it leaves', async () => {
    const csv = await csvAttachment('a.csv', `x,y\n${'1,2\n'.repeat(400)}`);
    const png = await pngAttachment('p.png', 1000, 750);
    const plain = [{ role: 'user' as const, content: 'Sum it up.' }];
    const withFiles = withStepFiles(plain, filesOfStep({ files: 'all' }, [csv, png]));
    const claude = promptTokensOf(withFiles, 'claude-haiku-4-5');
    const text = promptTokensOf(plain, 'claude-haiku-4-5');
    // Anthropic's rule for a 1000 × 750 image: 1000 × 750 / 750 = 1000 tokens; the CSV adds its text.
    expect(claude - text).toBeGreaterThan(1000 + 400);
    expect(promptTokensOf(withFiles, 'gemini-2.5-flash')).toBe(claude - 1000 + 258 * 2);
    const spend = inFlightSpend(1, worker('b', 'Looker', 'claude-haiku-4-5', true), withFiles);
    expect(spend.promptTokens).toBe(claude);
    expect(spend.cost).toBeCloseTo(claude / 1_000_000, 9);
  });
  it('counts a file’s text as it is sent, inside the tag that names it, by o200k once it has loaded', async () => {
    expect(await loadTokenizer()).toBe('o200k');
    const plain = [{ role: 'user' as const, content: 'Sum it up.' }];
    const cost = (file: Awaited<ReturnType<typeof csvAttachment>>) =>
      promptTokensOf(withStepFiles(plain, [file]), 'gpt-5') - promptTokensOf(plain, 'gpt-5');
    const short = await csvAttachment('a.csv', 'region,units\nnorth,120\n');
    const long = await csvAttachment(
      `${'quarterly-sales-by-region-'.repeat(8)}.csv`,
      'region,units\nnorth,120\n',
    );
    expect(cost(short)).toBeGreaterThan(0);
    // The same rows under a longer name: the name is sent in the tag, so it is paid for.
    expect(cost(long) - cost(short)).toBe(
      estimateTokens(attachmentText(long)) - estimateTokens(attachmentText(short)),
    );
  });

  it("counts an image at the size it is sent (the downscaled copy), by each model's documented rule", () => {
    const photo: ImageAttachment = {
      id: 'i1',
      name: 'photo.jpg',
      kind: 'image',
      mime: 'image/jpeg',
      size: 9,
      blob: new Blob([]),
      image: { mime: 'image/jpeg', width: 4032, height: 3024, bytes: new Uint8Array(9) },
      downscaled: { mime: 'image/jpeg', width: 1264, height: 948, bytes: new Uint8Array(9) },
      thumbnail: new Blob([]),
    };
    const messages = withStepFiles([{ role: 'user', content: 'Describe it.' }], [photo]);
    // The text (the tag naming the image) is the same for both models: the difference is the image alone,
    // Anthropic's area rule (1264 × 948 / 750) against Gemini's 258 per 768-px tile (2 × 2 tiles).
    expect(promptTokensOf(messages, 'claude-haiku-4-5') - promptTokensOf(messages, 'gemini-2.5-flash')).toBe(
      Math.ceil((1264 * 948) / 750) - 258 * 4,
    );
  });
});
