/**
 * The conductor thread's model downloads in the egress ledger: the worker's reporting fetch
 * (workers/download-reporter.ts) and the page's recorder (src/egress/model-downloads.ts), joined directly
 * as the bridge joins them over comlink, against the tiny-GGUF model host over real HTTP and a real
 * (fake-indexeddb) ledger.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/egress/ledger.ts';
import {
  LOCAL_PLANNER_PROVIDER,
  MODEL_DOWNLOAD_PROVIDER,
  modelDownloadRecorder,
} from '../../../src/egress/model-downloads.ts';
import { planJsonSchema } from '../../../src/shared/plan/index.ts';
import {
  localPlanningFetch,
  reportingFetch,
  reportUsage,
  setDownloadListener,
} from '../../../workers/download-reporter.ts';
import { createLocalServerEngine } from '../../../workers/engines/local-server.ts';
import { type ModelServer, startModelServer } from '../../fixtures/model-server.ts';
import { PLANNER_MODEL_ID, plannerModel } from '../../provider/planner-model.ts';
import { startProvider } from '../../provider/server.ts';

let models: ModelServer;
beforeAll(async () => {
  models = await startModelServer();
});
afterAll(async () => {
  setDownloadListener(undefined);
  await models.close();
});

let n = 0;
async function setup() {
  const ledger = await openLedger(`ledger-downloads-${n++}`);
  const record = modelDownloadRecorder(async () => ledger);
  setDownloadListener(record);
  return { ledger, record, fetch: reportingFetch((input, init) => fetch(input, init)) };
}

describe('model downloads in the ledger', () => {
  it('records a download with host, path, status and bytes, marked as a model download', async () => {
    const { ledger, fetch } = await setup();
    const response = await fetch(models.url);
    const size = (await response.blob()).size;
    expect(size).toBeGreaterThan(1000);
    const entries = await ledger.list();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      purpose: 'model-download',
      providerId: MODEL_DOWNLOAD_PROVIDER,
      host: new URL(models.url).host,
      path: '/tiny.gguf',
      method: 'GET',
      sent: true,
      keyAttached: false,
      state: 'done',
      status: 200,
      bytesIn: size,
    });
  });

  it('once the reader has seen the end, the entry is complete, however slow the ledger write', async () => {
    const ledger = await openLedger(`ledger-downloads-${n++}`);
    const record = modelDownloadRecorder(async () => ledger);
    // The page's write of the end is slow (a busy IndexedDB): the reader must still not finish first.
    setDownloadListener(async (report) => {
      if (report.kind === 'end') await new Promise((resolve) => setTimeout(resolve, 200));
      await record(report);
    });
    const response = await reportingFetch((input, init) => fetch(input, init))(models.url);
    const size = (await response.arrayBuffer()).byteLength;
    expect((await ledger.list())[0]).toMatchObject({ state: 'done', bytesIn: size });
  });

  it('records a failed download: its HTTP status, and a host that cannot be reached', async () => {
    const { ledger, fetch } = await setup();
    const missing = await fetch(models.url.replace('tiny.gguf', 'missing.gguf'));
    expect(missing.status).toBe(404);
    await expect(fetch('http://127.0.0.1:1/model.gguf')).rejects.toThrow();
    // The end of a failed download is reported without waiting for anyone to read its body.
    await expect.poll(async () => (await ledger.list()).map((e) => e.state)).toEqual(['error', 'error']);
    const [notFound, unreachable] = await ledger.list();
    expect(notFound).toMatchObject({ path: '/missing.gguf', status: 404, error: 'HTTP 404', bytesIn: 0 });
    expect(unreachable).toMatchObject({ host: '127.0.0.1:1', purpose: 'model-download', bytesIn: 0 });
    expect(unreachable?.status).toBeUndefined();
    expect(unreachable?.error).toMatch(/TypeError/);
  });

  it('writes the entry before the request leaves', async () => {
    const ledger = await openLedger(`ledger-downloads-${n++}`);
    const record = modelDownloadRecorder(async () => ledger);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    setDownloadListener(async (report) => {
      if (report.kind === 'start') await held;
      await record(report);
    });
    const before = models.downloads();
    const pending = reportingFetch((input, init) => fetch(input, init))(models.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(models.downloads()).toBe(before);
    release();
    await (await pending).arrayBuffer();
    expect(models.downloads()).toBe(before + 1);
    expect(await ledger.list()).toHaveLength(1);
  });

  it('does not send a download the ledger cannot record', async () => {
    setDownloadListener(async () => {
      throw new Error('QuotaExceededError');
    });
    const before = models.downloads();
    await expect(reportingFetch((input, init) => fetch(input, init))(models.url)).rejects.toThrow(
      /Could not record the model download in the ledger/,
    );
    expect(models.downloads()).toBe(before);
  });

  it('closes the open downloads of a worker that died', async () => {
    const { ledger, record, fetch } = await setup();
    const response = await fetch(models.url);
    // Headers arrived, the body was never read: then the bridge reports the worker gone.
    await expect.poll(async () => (await ledger.list())[0]?.state).toBe('streaming');
    await record({ kind: 'gone', reason: 'Model load cancelled' });
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({ state: 'error', error: 'Stopped: Model load cancelled', status: 200 });
    await response.body?.cancel();
  });

  it("records the local planner server's requests as local planning, with the bytes sent", async () => {
    const { ledger } = await setup();
    const provider = await startProvider({ models: [plannerModel()] });
    try {
      const engine = createLocalServerEngine({
        fetch: localPlanningFetch((input, init) => fetch(input, init)),
        onUsage: reportUsage,
      });
      await engine.load(
        { engine: 'local-server', baseURL: provider.baseURL, model: PLANNER_MODEL_ID },
        () => {},
      );
      const result = await engine.generate({
        messages: [{ role: 'user', content: 'What is 2+2?' }],
        jsonSchema: planJsonSchema({ workerIds: ['w1'], maxSteps: 2 }),
        maxTokens: 256,
        temperature: 0,
        signal: new AbortController().signal,
        onToken: () => {},
      });
      expect(result.text).toContain('"steps"');
      await expect.poll(async () => (await ledger.list()).map((e) => e.state)).toEqual(['done', 'done']);
      const [models, chat] = await ledger.list();
      const host = new URL(provider.url).host;
      expect(models).toMatchObject({
        purpose: 'local-planning',
        providerId: LOCAL_PLANNER_PROVIDER,
        host,
        method: 'GET',
        path: '/v1/models',
        status: 200,
      });
      expect(chat).toMatchObject({
        purpose: 'local-planning',
        providerId: LOCAL_PLANNER_PROVIDER,
        host,
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
      });
      expect(chat?.bytesOut).toBeGreaterThan(100);
      // The server's own count of the plan's tokens, as for a worker's request.
      await expect.poll(async () => (await ledger.list())[1]?.completionTokens).toBe(result.completionTokens);
      expect((await ledger.list())[1]?.promptTokens).toBe(result.promptTokens);
      expect(result.promptTokens).toBeGreaterThan(0);
      expect(chat?.bytesIn).toBeGreaterThan(result.text.length);
    } finally {
      await provider.close();
    }
  });

  it("writes a planner request's tokens even when they come after its end, and nothing else after it", async () => {
    const ledger = await openLedger(`ledger-downloads-${n++}`);
    const record = modelDownloadRecorder(async () => ledger);
    const url = 'http://127.0.0.1:11434/v1/chat/completions';
    await record({ kind: 'start', id: 'p1', url, method: 'POST', purpose: 'local-planning', bytesOut: 900 });
    await record({ kind: 'response', id: 'p1', status: 200 });
    await record({ kind: 'end', id: 'p1', status: 200, bytes: 4000 });
    await record({ kind: 'usage', id: 'p1', promptTokens: 512, completionTokens: 88 });
    await record({ kind: 'response', id: 'p1', status: 500 });
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({
      purpose: 'local-planning',
      providerId: LOCAL_PLANNER_PROVIDER,
      path: '/v1/chat/completions',
      state: 'done',
      status: 200,
      bytesOut: 900,
      bytesIn: 4000,
      promptTokens: 512,
      completionTokens: 88,
    });
  });
});
