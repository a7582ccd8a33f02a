/**
 * Harness for test/browser/egress*.spec.ts: the real egress, ledger, vault, openai transport and executor
 * in a page, driven through `window.__egress`.
 */
import OpenAI, { APIConnectionError } from 'openai';
import { chatTransports } from '../../src/egress/chat-transports.ts';
import { type ConnectionResult, testConnection } from '../../src/egress/connection-test.ts';
import { listModels } from '../../src/egress/discovery.ts';
import { createEgress, type Egress } from '../../src/egress/egress.ts';
import { fetchThread } from '../../src/egress/fetch-thread.ts';
import { type Ledger, type LedgerEntry, openLedger } from '../../src/egress/ledger.ts';
import { startRun } from '../../src/executor/executor.ts';
import { type ProviderPreset, presetById } from '../../src/providers/catalog.ts';
import type { ChatEvent } from '../../src/providers/transport.ts';
import type { Plan } from '../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { openVault, type Vault } from '../../src/vault/vault.ts';

/**
 * Catalog presets, plus two for the test provider on 127.0.0.1: Anthropic's preset with an editable base
 * URL, and a custom preset that keeps the SDK's own headers (to show that they fail a strict preflight).
 */
function presetFor(id: string): ProviderPreset | undefined {
  // The catalog's own Anthropic preset, so its dialect (the native Messages API) too, let off
  // api.anthropic.com so that a worker can use the test provider (provider-anthropic.spec.ts).
  if (id === 'anthropic') return { ...presetById('anthropic')!, baseURLEditable: true };
  if (id === 'anthropic-test')
    return { ...presetById('anthropic')!, id, name: 'Anthropic (test)', baseURLEditable: true };
  if (id === 'keep-sdk-headers')
    return {
      ...presetById('custom')!,
      id,
      name: 'Keeps SDK headers',
      stripSdkHeaders: false,
      needsKey: true,
    };
  if (id === 'no-anthropic-header')
    return { ...presetById('custom')!, id, name: 'Plain bearer', needsKey: true };
  return presetById(id);
}

let vault: Vault;
let ledger: Ledger;
let egress: Egress;

const sending = fetchThread();

async function setup(): Promise<void> {
  const suffix = crypto.randomUUID();
  vault = await openVault(`egress-vault-${suffix}`);
  ledger = await openLedger(`egress-ledger-${suffix}`);
  // Fetched as the app fetches: in egress's worker (src/shared/fetch-relay.ts).
  egress = createEgress({ vault, ledger, presetFor, fetchImpl: sending });
}

async function saveKey(providerId: string, baseURL: string, key: string): Promise<void> {
  await vault.saveKey({ providerId, origin: baseURL, key });
}

async function collect(stream: AsyncIterable<ChatEvent>): Promise<string> {
  let text = '';
  for await (const event of stream) if (event.type === 'delta') text += event.text;
  return text;
}

function errorOf(error: unknown): { name: string; kind?: string; message: string } {
  const e = error as { name?: string; kind?: string; message?: string };
  return {
    name: e?.name ?? 'Error',
    ...(e?.kind ? { kind: e.kind } : {}),
    message: e?.message ?? String(error),
  };
}

/** A whole run through the real executor, each worker's transport sending through egress as in the app. */
async function fullRun(pool: WorkerSpec[], plan: Plan, runId: string) {
  const transport = chatTransports(egress);
  const handle = startRun({ runId, question: 'What is the capital of France?', plan, pool, transport });
  const result = await handle.result;
  return {
    status: result.status,
    usage: handle.steps().map((s) => s.usage ?? null),
    costs: handle.steps().map((s) => s.cost ?? null),
    totals: result.totals,
    answers: handle.steps().map((s) => s.text),
    errors: handle.steps().map((s) => s.error ?? null),
    ledger: await ledger.list(),
  };
}

/** The openai SDK as shipped: the browser's fetch, its default headers, the key in Authorization. */
async function sdkDefault(baseURL: string, key: string) {
  const client = new OpenAI({ apiKey: key, baseURL, dangerouslyAllowBrowser: true, maxRetries: 0 });
  try {
    const answer = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'hi' }],
    });
    return { ok: true, text: answer.choices[0]?.message.content ?? '' };
  } catch (error) {
    return { ok: false, connectionError: error instanceof APIConnectionError, error: errorOf(error) };
  }
}

/** One streamed chat request through the transport and egress, for `worker`. */
async function viaEgress(worker: WorkerSpec, runId = 'single') {
  const transport = chatTransports(egress)(worker);
  try {
    const text = await collect(
      transport.stream(worker, {
        messages: [{ role: 'user', content: 'hello egress' }],
        signal: new AbortController().signal,
        runId,
        stepIndex: 0,
      }),
    );
    return { ok: true, text };
  } catch (error) {
    return { ok: false, error: errorOf(error) };
  }
}

async function connection(providerId: string, baseURL: string, model?: string): Promise<ConnectionResult> {
  return testConnection(egress, { providerId, baseURL, ...(model ? { model } : {}) });
}

const api = {
  setup,
  saveKey,
  fullRun,
  sdkDefault,
  viaEgress,
  connection,
  models: (providerId: string, baseURL: string) => listModels(egress, { providerId, baseURL }),
  ledger: (): Promise<LedgerEntry[]> => ledger.list(),
  exportJSON: () => ledger.exportJSON(),
  exportCSV: () => ledger.exportCSV(),
};

export type EgressHarness = typeof api;
(globalThis as { __egress?: EgressHarness }).__egress = api;
document.body.dataset.ready = 'true';
